"""Chosen against rejected on one dimension: the paired tests behind each verdict.

Inputs are per-pair means (each pair's annotators averaged), one value per pair for the chosen
and one for the rejected response. Every figure here can be reproduced with scipy/statsmodels:

* ``ci95``: t-based CI of the mean paired difference (as R's ``t.test(paired=TRUE)``);
* ``tost_p``: ``statsmodels.stats.weightstats.ttost_paired(chosen, rejected, -margin, margin)[0]``,
  the larger of the two one-sided p-values;
* ``wilcoxon_p``: :func:`wilcoxon_test` (two-sided signed-rank test, method pinned, see there);
* ``d_z``: mean difference / standard deviation of the differences (ddof=1).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy import stats
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.weightstats import ttost_paired

from annotate.vocabulary import GENERAL_DIMENSIONS, PERSONAL_DIMENSION

from .coded import FloatArray
from .report_types import Checks, PairedTest

TIE, DIVERGES, INCONCLUSIVE = "tie", "diverges", "inconclusive"
DIFF_DECIMALS = 9
"""Paired differences are rounded to this many decimals before ranking, so that differences
that are equal in exact arithmetic (e.g. 11/3 - 8/3 and 7/3 - 4/3) tie in the Wilcoxon test."""
EXACT_MAX_N = 50


@dataclass(frozen=True)
class WilcoxonResult:
    statistic: float | None  # V: sum of the ranks of positive differences (as R reports it)
    pvalue: float | None
    method: str | None  # "exact" or "asymptotic"; None when no test was run
    n_nonzero: int
    note: str | None = None


def wilcoxon_test(x: FloatArray, y: FloatArray) -> WilcoxonResult:
    """Two-sided Wilcoxon signed-rank test of x - y, with the method pinned as R does it.

    Calls ``scipy.stats.wilcoxon(x - y, zero_method="wilcox", correction=True,
    alternative="two-sided", method=M)`` where M is ``"exact"`` when there are at most 50 non-zero
    differences, no zero differences and no tied absolute differences (the exact null
    distribution is valid only then), and ``"asymptotic"`` otherwise (normal approximation with
    tie correction and continuity correction, as R's ``wilcox.test`` default). scipy's own
    ``method="auto"`` is never used: its choice has changed across releases. Zero differences are
    dropped (Wilcoxon's method, R's behaviour). All-zero differences give p = 1 with a note.
    """
    d = np.round(np.asarray(x, float) - np.asarray(y, float), DIFF_DECIMALS)
    nonzero = d[d != 0]
    if d.size == 0:
        return WilcoxonResult(None, None, None, 0, "no pairs")
    if nonzero.size == 0:
        return WilcoxonResult(0.0, 1.0, None, 0, "all paired differences are zero; p set to 1")
    ranks = stats.rankdata(np.abs(nonzero))
    v_stat = float(ranks[nonzero > 0].sum())
    has_ties = np.unique(np.abs(nonzero)).size < nonzero.size
    exact = nonzero.size <= EXACT_MAX_N and nonzero.size == d.size and not has_ties
    method = "exact" if exact else "asymptotic"
    result = stats.wilcoxon(
        d, zero_method="wilcox", correction=True, alternative="two-sided", method=method
    )
    return WilcoxonResult(v_stat, float(result.pvalue), method, int(nonzero.size))


def tost_p(chosen: FloatArray, rejected: FloatArray, margin: float) -> float | None:
    """Paired TOST p-value at +-margin (statsmodels ``ttost_paired``); None if undefined."""
    if len(chosen) < 2:
        return None
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        p = float(
            ttost_paired(np.asarray(chosen, float), np.asarray(rejected, float), -margin, margin)[0]
        )
    return None if np.isnan(p) else p


def t_interval(values: FloatArray, level: float = 0.95) -> list[float] | None:
    """t-based confidence interval of the mean, [low, high]; None with fewer than 2 values."""
    n = len(values)
    if n < 2:
        return None
    mean = float(np.mean(values))
    half = stats.t.ppf(0.5 + level / 2, n - 1) * float(np.std(values, ddof=1)) / np.sqrt(n)
    return [mean - half, mean + half]


def compare_dimension(
    chosen: FloatArray, rejected: FloatArray, margin: float = 0.5, alpha: float = 0.05
) -> PairedTest:
    """All per-dimension figures for paired per-pair means (no multiplicity correction)."""
    chosen = np.asarray(chosen, float)
    rejected = np.asarray(rejected, float)
    diff = chosen - rejected
    n = len(diff)
    notes: list[str] = []
    wilcoxon = wilcoxon_test(chosen, rejected)
    if wilcoxon.note:
        notes.append(f"Wilcoxon: {wilcoxon.note}")
    sd = float(np.std(diff, ddof=1)) if n >= 2 else None
    if n < 2:
        notes.append("fewer than 2 complete pairs: tests not run")
    result: PairedTest = {
        "n_pairs": n,
        "mean_chosen": _mean(chosen),
        "mean_rejected": _mean(rejected),
        "ci95_chosen": t_interval(chosen),
        "ci95_rejected": t_interval(rejected),
        "mean_diff": _mean(diff),
        "sd_diff": sd,
        "ci95": t_interval(diff, 0.95),
        "ci_tost": t_interval(diff, 1 - 2 * alpha),
        "tost_p": tost_p(chosen, rejected, margin),
        "tost_p_adjusted": None,
        "wilcoxon_statistic": wilcoxon.statistic,
        "wilcoxon_p": wilcoxon.pvalue,
        "wilcoxon_p_adjusted": None,
        "wilcoxon_method": wilcoxon.method,
        "d_z": (float(np.mean(diff)) / sd) if sd else None,
        "verdict": INCONCLUSIVE,
        "notes": notes,
    }
    if sd == 0:
        notes.append("all paired differences are equal: d_z undefined")
    result["verdict"] = verdict(result["tost_p"], result["wilcoxon_p"], result["mean_diff"], alpha)
    if result["verdict"] == INCONCLUSIVE and _significant(result["wilcoxon_p"], alpha):
        notes.append("chosen rated significantly LOWER than rejected")
    return result


def _mean(values: FloatArray) -> float | None:
    return float(np.mean(values)) if len(values) else None


def _significant(p: float | None, alpha: float) -> bool:
    return p is not None and p < alpha


def verdict(
    tost: float | None, wilcoxon: float | None, mean_diff: float | None, alpha: float
) -> str:
    """``tie`` if TOST p < alpha; else ``diverges`` if Wilcoxon p < alpha and chosen is rated
    higher; else ``inconclusive``."""
    if _significant(tost, alpha):
        return TIE
    if _significant(wilcoxon, alpha) and mean_diff is not None and mean_diff > 0:
        return DIVERGES
    return INCONCLUSIVE


def apply_holm(results: dict[str, PairedTest], alpha: float) -> None:
    """Holm-adjust the TOST and the Wilcoxon p-values across dimensions (two separate families),
    store them as ``*_p_adjusted`` and recompute each verdict from the adjusted values."""
    tost = _holm({d: r["tost_p"] for d, r in results.items()})
    wilcoxon = _holm({d: r["wilcoxon_p"] for d, r in results.items()})
    for dim, r in results.items():
        r["tost_p_adjusted"] = tost[dim]
        r["wilcoxon_p_adjusted"] = wilcoxon[dim]
    for r in results.values():
        r["verdict"] = verdict(
            r["tost_p_adjusted"], r["wilcoxon_p_adjusted"], r["mean_diff"], alpha
        )


def _holm(p_values: dict[str, float | None]) -> dict[str, float | None]:
    """Holm-adjusted p-values of one family; a missing p-value stays missing."""
    present = {k: p for k, p in p_values.items() if p is not None}
    adjusted = dict.fromkeys(p_values)
    if present:
        corrected = multipletests(list(present.values()), method="holm")[1]
        adjusted.update({k: float(p) for k, p in zip(present, corrected, strict=True)})
    return adjusted


def study_checks(results: dict[str, PairedTest]) -> Checks:
    """The study is validated when the general dimensions tie and rubric alignment diverges."""
    general = all(d in results and results[d]["verdict"] == TIE for d in GENERAL_DIMENSIONS)
    rubric = PERSONAL_DIMENSION in results and results[PERSONAL_DIMENSION]["verdict"] == DIVERGES
    return {
        "general_quality_tie": general,
        "rubric_alignment_diverges": rubric,
        "validated": general and rubric,
    }
