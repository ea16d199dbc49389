"""Chosen against rejected on one dimension: the paired tests behind each verdict.

Inputs are per-pair means (each pair's annotators averaged), one value per pair for the chosen
and one for the rejected response; the estimand of every primary test is the mean paired
difference d = chosen - rejected. Every figure can be reproduced in R:

* ``ci95``: ``t.test(chosen, rejected, paired=TRUE)$conf.int``; ``ci_tost`` the same at
  ``conf.level = 1 - 2 * alpha``;
* ``tost_p``: the larger of the two one-sided paired t-tests against -margin and +margin
  (``t.test(..., mu=-margin, alternative="greater")`` and ``mu=margin, alternative="less"``),
  the same as ``statsmodels.stats.weightstats.ttost_paired``;
* ``superiority_p``: ``t.test(chosen, rejected, paired=TRUE, alternative="greater")$p.value``;
* ``wilcoxon_p``: :func:`wilcoxon_test`; ``sign_p``: ``binom.test(n_pos, n_pos + n_neg)``
  (sensitivity analyses only: they test a pseudo-median / median, not the mean);
* ``hodges_lehmann``: median of the Walsh averages, with its distribution-free CI;
* ``d_z``: mean / SD of the differences, CI by inverting the noncentral t.

Verdict (see :func:`verdict`): a general dimension ties when TOST holds; rubric alignment
diverges when the one-sided superiority test holds. Fewer than :data:`MIN_PAIRS` pairs or no
variance read ``insufficient_data``, never ``tie``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from scipy import optimize, stats

from analysis.core.coded import FloatArray
from analysis.schema.report_types import Checks, Interval, PairedTest
from annotate.questionnaire import DEFAULT_QUESTIONNAIRE, Questionnaire

TIE, DIVERGES, INCONCLUSIVE, INSUFFICIENT = "tie", "diverges", "inconclusive", "insufficient_data"
VERDICTS = (TIE, DIVERGES, INCONCLUSIVE, INSUFFICIENT)
MIN_PAIRS = 10
"""Below this many complete pairs a dimension reads ``insufficient_data``."""
DIFF_DECIMALS = 9
"""Paired differences are rounded to this many decimals before ranking, so that differences
that are equal in exact arithmetic (e.g. 11/3 - 8/3 and 7/3 - 4/3) tie in the Wilcoxon test."""
EXACT_MAX_N = 49
"""The exact signed-rank distribution is used below 50 non-zero differences (R: ``n < 50``)."""
WALSH_MAX_N = 3000
"""Hodges-Lehmann uses all n(n+1)/2 Walsh averages up to this n, a seeded subsample above."""


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
    alternative="two-sided", method=M)`` where M is ``"exact"`` when there are fewer than 50
    non-zero differences, no zero differences and no tied absolute differences (R's
    ``wilcox.test`` rule), and ``"asymptotic"`` otherwise (normal approximation with tie and
    continuity correction, as R). scipy's ``method="auto"`` is never used: its choice has
    changed across releases. Zero differences are dropped. All-zero differences give p = 1.
    """
    d = _differences(x, y)
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


def _differences(x: FloatArray, y: FloatArray) -> FloatArray:
    diff = np.round(np.asarray(x, float) - np.asarray(y, float), DIFF_DECIMALS)
    return np.asarray(diff, dtype=np.float64)


def sign_test(d: FloatArray) -> float | None:
    """Two-sided exact sign test of the paired differences (zeros dropped), R's
    ``binom.test(sum(d > 0), sum(d != 0))``; None without non-zero differences."""
    positive, negative = int(np.sum(d > 0)), int(np.sum(d < 0))
    if positive + negative == 0:
        return None
    return float(stats.binomtest(positive, positive + negative, 0.5).pvalue)


@dataclass(frozen=True)
class TTests:
    """One-sample t figures of the paired differences (None when undefined)."""

    tost_p: float | None
    superiority_p: float | None
    ci95: Interval | None
    ci_tost: Interval | None


def t_tests(d: FloatArray, margin: float, alpha: float) -> TTests:
    """TOST at +-margin, one-sided superiority (mean > 0) and the two t intervals."""
    n = len(d)
    sd = float(np.std(d, ddof=1)) if n >= 2 else 0.0
    if n < 2 or sd == 0:
        return TTests(None, None, None, None)
    mean, se, df = float(np.mean(d)), sd / np.sqrt(n), n - 1
    p_lower = float(stats.t.sf((mean + margin) / se, df))  # H0: mean <= -margin
    p_upper = float(stats.t.cdf((mean - margin) / se, df))  # H0: mean >= +margin
    return TTests(
        tost_p=max(p_lower, p_upper),
        superiority_p=float(stats.t.sf(mean / se, df)),
        ci95=t_interval(d, 0.95),
        ci_tost=t_interval(d, 1 - 2 * alpha),
    )


def tost_p(chosen: FloatArray, rejected: FloatArray, margin: float) -> float | None:
    """Paired TOST p-value at +-margin (as statsmodels ``ttost_paired``); None if undefined."""
    return t_tests(np.asarray(chosen, float) - np.asarray(rejected, float), margin, 0.05).tost_p


def t_interval(values: FloatArray, level: float = 0.95) -> Interval | None:
    """t-based confidence interval of the mean, [low, high]; None with fewer than 2 values."""
    n = len(values)
    if n < 2:
        return None
    mean = float(np.mean(values))
    half = stats.t.ppf(0.5 + level / 2, n - 1) * float(np.std(values, ddof=1)) / np.sqrt(n)
    return [mean - half, mean + half]


def equivalence_bound(ci_tost: Interval | None) -> float | None:
    """The smallest margin at which TOST holds: TOST at margin m rejects exactly when the
    (1 - 2 alpha) CI lies inside (-m, m), so the bound is max(|low|, |high|)."""
    return None if ci_tost is None else max(abs(ci_tost[0]), abs(ci_tost[1]))


def hodges_lehmann(d: FloatArray, level: float = 0.95) -> tuple[float | None, Interval | None]:
    """One-sample Hodges-Lehmann estimate (median of the Walsh averages (d_i + d_j)/2, i <= j)
    and its distribution-free CI from order statistics of the Walsh averages (Hollander &
    Wolfe); the critical rank comes from the exact signed-rank distribution below 50 values
    (R's ``wilcox.test(d, conf.int=TRUE)`` then gives the same interval) and from the normal
    approximation above."""
    n = len(d)
    if n == 0:
        return None, None
    walsh = _walsh_averages(np.asarray(d, float))
    m = len(walsh)
    middle = [(m - 1) // 2, m // 2]  # the median's order statistics (one when m is odd)
    if n < 2:
        ordered = np.partition(walsh, middle)
        return _median_of(ordered, m), None
    k = _signed_rank_critical(n, level)  # rank of the lower bound among the Walsh averages
    scale = m / (n * (n + 1) / 2)  # subsampled: scale the rank
    low_rank = max(int(np.floor(k * scale)), 1)
    # the few order statistics needed, by one partition (not a sort of all M averages)
    ordered = np.partition(walsh, sorted({*middle, low_rank - 1, m - low_rank}))
    return _median_of(ordered, m), [float(ordered[low_rank - 1]), float(ordered[m - low_rank])]


def _median_of(ordered: FloatArray, m: int) -> float:
    """np.median's value from an array partitioned at its middle order statistics."""
    if m % 2:
        return float(ordered[m // 2])
    return float((ordered[m // 2 - 1] + ordered[m // 2]) / 2)


def _walsh_averages(d: FloatArray) -> FloatArray:
    n = len(d)
    if n > WALSH_MAX_N:
        rng = np.random.default_rng(0)
        i = rng.integers(0, n, 2_000_000)
        j = rng.integers(0, n, 2_000_000)
        return np.asarray((d[i] + d[j]) / 2, dtype=np.float64)
    i, j = np.triu_indices(n)
    return np.asarray((d[i] + d[j]) / 2, dtype=np.float64)


def _signed_rank_critical(n: int, level: float) -> int:
    """C such that the CI is [W_(C), W_(M+1-C)] over the M sorted Walsh averages: as R,
    ``C = qsignrank((1 - level)/2, n)`` (at least 1) in the exact case, the normal
    approximation of the signed-rank distribution otherwise."""
    tail = (1 - level) / 2
    if n <= EXACT_MAX_N:
        counts = np.zeros(n * (n + 1) // 2 + 1)
        counts[0] = 1
        for r in range(1, n + 1):  # distribution of the sum of a random subset of 1..n
            counts[r:] = counts[r:] + counts[:-r].copy()
        cdf = np.cumsum(counts) / 2.0**n
        return max(int(np.searchsorted(cdf, tail * (1 - 1e-12), side="left")), 1)
    mean = n * (n + 1) / 4
    sd = np.sqrt(n * (n + 1) * (2 * n + 1) / 24)
    return max(int(np.floor(mean - stats.norm.ppf(1 - tail) * sd)), 1)


D_Z_EXACT = "exact (noncentral t inverted)"
D_Z_APPROXIMATE = "approximate (normal; the noncentral t failed numerically)"


def d_z_interval(d_z: float | None, n: int, level: float = 0.95) -> Interval | None:
    """CI of d_z; see :func:`d_z_interval_method`."""
    return d_z_interval_method(d_z, n, level)[0]


def d_z_interval_method(
    d_z: float | None, n: int, level: float = 0.95
) -> tuple[Interval | None, str | None]:
    """CI of the standardised mean difference d_z = mean/SD by inverting the noncentral t
    (t = d_z * sqrt(n) has noncentrality delta * sqrt(n), df = n - 1), as MBESS::ci.sm, with
    the method that gave it: where scipy's noncentral t fails numerically (very large t), the
    normal approximation d_z +- z * sqrt(1/n + d_z^2 / (2n)), labelled approximate."""
    if d_z is None or n < 2:
        return None, None
    tail = (1 - level) / 2
    try:
        return [_ncp_bound(d_z, n, 1 - tail), _ncp_bound(d_z, n, tail)], D_Z_EXACT
    except ValueError:
        half = float(stats.norm.ppf(1 - tail) * np.sqrt(1 / n + d_z**2 / (2 * n)))
        return [d_z - half, d_z + half], D_Z_APPROXIMATE


def _ncp_bound(d_z: float, n: int, prob: float) -> float:
    """delta / sqrt(n) where P(T <= t_obs | ncp = delta) = prob."""
    t_obs, df = float(d_z * np.sqrt(n)), n - 1

    def f(ncp: float) -> float:
        value = float(stats.nct.cdf(t_obs, df, ncp)) - prob
        if not np.isfinite(value):
            raise ValueError("noncentral t undefined")
        return value

    width = 10 * float(np.sqrt(1 + t_obs**2 / (2 * df)))
    return float(optimize.brentq(f, t_obs - width, t_obs + width, xtol=1e-10) / np.sqrt(n))


def compare_dimension(
    chosen: FloatArray,
    rejected: FloatArray,
    margin: float = 0.5,
    alpha: float = 0.05,
    rubric: bool = False,
) -> PairedTest:
    """All per-dimension figures for paired per-pair means (no multiplicity correction).

    ``rubric`` selects the verdict rule of rubric alignment (superiority first) instead of a
    general dimension's (equivalence first)."""
    chosen = np.asarray(chosen, float)
    rejected = np.asarray(rejected, float)
    d = chosen - rejected
    n = len(d)
    notes: list[str] = []
    wilcoxon = wilcoxon_test(chosen, rejected)
    if wilcoxon.note:
        notes.append(f"Wilcoxon: {wilcoxon.note}")
    sd = float(np.std(d, ddof=1)) if n >= 2 else None
    tests = t_tests(d, margin, alpha)
    d_z = float(np.mean(d)) / sd if sd else None
    hl, hl_ci = hodges_lehmann(_differences(chosen, rejected))
    d_z_ci, d_z_method = d_z_interval_method(d_z, n)
    result: PairedTest = {
        "n_pairs": n,
        "mean_chosen": _mean(chosen),
        "mean_rejected": _mean(rejected),
        "ci95_chosen": t_interval(chosen),
        "ci95_rejected": t_interval(rejected),
        "mean_diff": _mean(d),
        "sd_diff": sd,
        "ci95": tests.ci95,
        "ci_tost": tests.ci_tost,
        "margin": margin,
        "tost_p": tests.tost_p,
        "tost_p_adjusted": None,
        "superiority_p": tests.superiority_p,
        "superiority_p_adjusted": None,
        "equivalence_bound": equivalence_bound(tests.ci_tost),
        "wilcoxon_statistic": wilcoxon.statistic,
        "wilcoxon_p": wilcoxon.pvalue,
        "wilcoxon_p_adjusted": None,
        "wilcoxon_method": wilcoxon.method,
        "sign_p": sign_test(_differences(chosen, rejected)),
        "hodges_lehmann": hl,
        "hodges_lehmann_ci95": hl_ci,
        "d_z": d_z,
        "d_z_ci95": d_z_ci,
        "d_z_ci_method": d_z_method,
        "rule": "superiority" if rubric else "equivalence",
        "verdict": INCONCLUSIVE,
        "notes": notes,
    }
    if n < MIN_PAIRS:
        notes.append(f"{n} complete pairs, fewer than the minimum of {MIN_PAIRS}: no verdict")
    elif sd == 0:
        notes.append("all paired differences are equal (zero variance): tests undefined")
    result["verdict"] = verdict(result, alpha)
    if _significant(_lower_p(result), alpha):
        notes.append("chosen rated significantly LOWER than rejected")
    return result


def _lower_p(result: PairedTest) -> float | None:
    """One-sided p of chosen < rejected (the complement of superiority for a t-test)."""
    p = result["superiority_p"]
    return None if p is None else 1 - p


def _mean(values: FloatArray) -> float | None:
    return float(np.mean(values)) if len(values) else None


def _significant(p: float | None, alpha: float) -> bool:
    return p is not None and p < alpha


def verdict(
    result: PairedTest, alpha: float, adjusted: bool = False, tost_alpha: float | None = None
) -> str:
    """The verdict of one dimension from its (adjusted, for the by-domain family) p-values.

    ``insufficient_data`` below MIN_PAIRS pairs or when the tests are undefined (no variance).
    General dimension (rule ``equivalence``): ``tie`` when TOST p < alpha, else ``diverges``
    when chosen is significantly higher (one-sided), else ``inconclusive``. Rubric alignment
    (rule ``superiority``): ``diverges`` when chosen is significantly higher, else ``tie`` when
    TOST holds, else ``inconclusive`` -- so a real effect never reads "tie" on a large study.
    ``tost_alpha``: the TOST's own level when it differs from alpha (a tie question after an
    internal pilot's look, :mod:`analysis.inference.reestimate`).
    """
    tost = result["tost_p_adjusted"] if adjusted else result["tost_p"]
    superior = result["superiority_p_adjusted"] if adjusted else result["superiority_p"]
    if result["n_pairs"] < MIN_PAIRS or tost is None or superior is None:
        return INSUFFICIENT
    order = (DIVERGES, TIE) if result["rule"] == "superiority" else (TIE, DIVERGES)
    passed = {TIE: tost < (alpha if tost_alpha is None else tost_alpha), DIVERGES: superior < alpha}
    for candidate in order:
        if passed[candidate]:
            return candidate
    return INCONCLUSIVE


def apply_holm(
    families: list[dict[str, PairedTest]],
    alpha: float,
    tost_alphas: Mapping[str, float | None] | None = None,
) -> None:
    """Holm-adjust one family: the TOST and superiority p-values of every result in
    ``families`` (e.g. every domain and dimension), stored as ``*_p_adjusted``; verdicts are
    recomputed from the adjusted values, each dimension's TOST at its level in ``tost_alphas``
    (a tie question's after an internal pilot; alpha when absent). The Wilcoxon p-values
    (sensitivity) are adjusted as a separate family the same way."""
    keyed = [(dim, r) for family in families for dim, r in family.items()]
    results = [r for _, r in keyed]
    primary = _holm([r["tost_p"] for r in results] + [r["superiority_p"] for r in results])
    wilcoxon = _holm([r["wilcoxon_p"] for r in results])
    levels = tost_alphas or {}
    for i, (dim, r) in enumerate(keyed):
        r["tost_p_adjusted"] = primary[i]
        r["superiority_p_adjusted"] = primary[len(results) + i]
        r["wilcoxon_p_adjusted"] = wilcoxon[i]
        r["verdict"] = verdict(r, alpha, adjusted=True, tost_alpha=levels.get(dim))


def _holm(p_values: list[float | None]) -> list[float | None]:
    """Holm-adjusted p-values of one family; a missing p-value stays missing."""
    present = {i: p for i, p in enumerate(p_values) if p is not None}
    adjusted: list[float | None] = [None] * len(p_values)
    for i, p in zip(present, holm_adjust(list(present.values())), strict=True):
        adjusted[i] = p
    return adjusted


def holm_adjust(p_values: list[float]) -> list[float]:
    """Holm's step-down adjustment (Holm 1979), as R's p.adjust(method = "holm"): sorted
    ascending, the j-th smallest (from 0) times m - j, made non-decreasing, capped at 1.
    (statsmodels' multipletests gives the same values in ~0.15 s a call, most of a report's
    by-domain time.)"""
    m = len(p_values)
    adjusted = [0.0] * m
    running = 0.0
    for rank, index in enumerate(sorted(range(m), key=lambda i: p_values[i])):
        running = max(running, min(1.0, (m - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


def study_checks(
    results: dict[str, PairedTest],
    reliability_caveat: bool | None = None,
    questionnaire: Questionnaire = DEFAULT_QUESTIONNAIRE,
) -> Checks:
    """Validated = every ``tie`` question ties AND every ``diverge`` question diverges (the
    intersection of each question's role): an intersection-union test, each at the study's
    alpha, with no multiplicity correction needed (Berger 1982); a questionnaire with no
    ``tie`` and no ``diverge`` question validates nothing. ``describe`` questions take no part.
    ``reliability_caveat`` is set by the caller from the target's alpha."""
    ties = all(_reads(results, d, TIE) for d in questionnaire.tie_keys)
    diverges = all(_reads(results, d, DIVERGES) for d in questionnaire.diverge_keys)
    tested = bool(questionnaire.tie_keys or questionnaire.diverge_keys)
    insufficient = [d for d in results if results[d]["verdict"] == INSUFFICIENT]
    return {
        "general_quality_tie": ties,
        "rubric_alignment_diverges": diverges,
        "validated": tested and ties and diverges,
        "insufficient_data": insufficient,
        "reliability_caveat": reliability_caveat,
    }


def _reads(results: Mapping[str, PairedTest], key: str, expected: str) -> bool:
    return key in results and results[key]["verdict"] == expected
