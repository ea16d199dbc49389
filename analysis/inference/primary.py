"""The primary per-dimension inference: over pairs AND annotators.

The estimand is the mean chosen - rejected difference d of one annotator on one pair, for
pairs and annotators drawn as the study drew them. Each annotator's d per pair goes into
:func:`analysis.inference.crossed.crossed_mean` (crossed random pair and annotator effects, REML,
Satterthwaite df; Kenward-Roger df on a singular fit, named in ``primary.singular`` and the
dimension's notes); its interval, TOST and superiority test give the verdict by the rules of
:func:`analysis.inference.paired.verdict`, with one symmetric standard:

* a general dimension ties when the (1 - 2 alpha) interval lies inside +-margin (TOST);
* chosen "diverges" only when it exceeds rejected by more than the smallest effect of
  interest (SESOI, default the margin): the one-sided test of d > SESOI;
* a tie that still differs significantly from 0 (two-sided) is flagged in ``differs``.

The per-pair-mean paired t-test (pairs random, annotators fixed) stays as ``sensitivity``.
"""

from __future__ import annotations

from collections.abc import Mapping

from analysis.core.coded import BoolArray, CodedRatings, FloatArray, IntArray, PairMeans
from analysis.inference.crossed import (
    DEGENERATE,
    CrossedMean,
    crossed_mean,
)
from analysis.inference.mixed import rating_level
from analysis.inference.paired import (
    INSUFFICIENT,
    MIN_PAIRS,
    TIE,
    compare_dimension,
    equivalence_bound,
    verdict,
)
from analysis.schema.report_types import PairedTest, PairMeansTest, PrimaryFit
from analysis.schema.tables import singular_words
from annotate.questionnaire import Questionnaire, QuestionRole

DESCRIBED = "described: reported without a hypothesis, not part of the study verdict"
PAIR_MEANS_METHOD = "per-pair means, paired t-test (pairs random, annotators fixed)"


class RatingDiffs:
    """Each annotator's chosen - rejected per pair-rating and dimension, computed once."""

    def __init__(self, coded: CodedRatings) -> None:
        self.by_dim = [rating_level(coded, i) for i in range(coded.n_dims)]
        self.coded = coded

    def of(
        self, dim_index: int, pair_mask: BoolArray | None
    ) -> tuple[FloatArray, IntArray, IntArray]:
        d, _, pair, annotator = self.by_dim[dim_index]
        if pair_mask is None:
            return d, pair, annotator
        keep = pair_mask[pair]
        return d[keep], pair[keep], annotator[keep]


def tie_levels(questionnaire: Questionnaire, tie_alpha: float | None) -> dict[str, float | None]:
    """Each question's TOST level when it is not the study's alpha: ``tie_alpha`` for a ``tie``
    question (after an internal pilot's look), None for the rest."""
    return {
        q.key: tie_alpha if q.role is QuestionRole.TIE else None for q in questionnaire.questions
    }


def compare_dimensions(
    diffs: RatingDiffs,
    means: PairMeans,
    margins: Mapping[str, float | None],
    alpha: float,
    smallest_effect: Mapping[str, float | None],
    mask: BoolArray | None = None,
    tie_alpha: float | None = None,
) -> dict[str, PairedTest]:
    """Per-dimension primary figures and verdicts for the pairs in ``mask`` (all by default),
    each dimension at its margin and SESOI in points; no multiplicity correction. A ``diverge``
    question reads superiority first; a ``describe`` one is reported without hypothesis.
    ``tie_alpha``: each ``tie`` question's TOST (its interval and its tie verdict, the
    per-pair-means sensitivity's too) at that level instead of alpha (a study run with an
    internal pilot, :mod:`analysis.inference.reestimate`)."""
    results = {}
    questionnaire = diffs.coded.questionnaire
    levels = tie_levels(questionnaire, tie_alpha)
    for dim_index, dim in enumerate(diffs.coded.keys):
        role = questionnaire.question(dim).role
        chosen, rejected = means.means(dim_index, mask)
        margin = margins[dim]
        sesoi = smallest_effect[dim]
        results[dim] = primary_dimension(
            diffs.of(dim_index, mask),
            chosen,
            rejected,
            margin or 0.0,
            alpha,
            margin if sesoi is None else sesoi,
            rubric=role is QuestionRole.DIVERGE,
            tost_alpha=levels[dim],
        )
        if role is QuestionRole.DESCRIBE:
            results[dim]["notes"].append(DESCRIBED)
        if margin is None:
            results[dim]["notes"].append("margin undefined (SD units with no variance)")
            results[dim]["verdict"] = INSUFFICIENT
    return results


def primary_dimension(
    ratings: tuple[FloatArray, IntArray, IntArray],
    chosen: FloatArray,
    rejected: FloatArray,
    margin: float,
    alpha: float,
    sesoi: float | None,
    rubric: bool,
    tost_alpha: float | None = None,
) -> PairedTest:
    """One dimension: ``ratings`` (d, pair, annotator per pair-rating) for the primary
    figures, the per-pair means ``chosen``/``rejected`` for the sensitivity and descriptive
    ones (Wilcoxon, Hodges-Lehmann, d_z); ``tost_alpha`` the TOST's level when not alpha."""
    tost_level = alpha if tost_alpha is None else tost_alpha
    result = compare_dimension(chosen, rejected, margin, tost_level, rubric=rubric)
    result["sensitivity"] = _sensitivity(result)
    sesoi = margin if sesoi is None else sesoi
    fit = crossed_mean(*ratings)
    ci_tost = fit.interval(1 - 2 * tost_level)
    two_sided = _two_sided(fit)
    result.update(
        {
            "mean_diff": fit.estimate,
            "ci95": fit.ci,
            "ci_tost": ci_tost,
            "tost_p": fit.tost_p(margin),
            "superiority_p": fit.p_greater(sesoi),
            "equivalence_bound": equivalence_bound(ci_tost),
            "sesoi": sesoi,
            "difference_p": two_sided,
            "primary": _primary(fit),
            "notes": _notes(result["notes"], fit, result["n_pairs"]),
        }
    )
    result["verdict"] = verdict(result, alpha, tost_alpha=tost_alpha)
    result["differs"] = _differs(fit, two_sided, alpha)
    if result["differs"] == "lower":
        result["notes"].append("chosen rated significantly LOWER than rejected")
    elif result["verdict"] == TIE and result["differs"] == "higher":
        result["notes"].append(
            f"ties within +-{margin:g}, yet chosen is rated significantly higher than rejected "
            f"(two-sided p = {two_sided:.3g}): a difference smaller than the margin"
        )
    return result


def _sensitivity(result: PairedTest) -> PairMeansTest:
    return {
        "method": PAIR_MEANS_METHOD,
        "n_pairs": result["n_pairs"],
        "mean_diff": result["mean_diff"],
        "ci95": result["ci95"],
        "ci_tost": result["ci_tost"],
        "tost_p": result["tost_p"],
        "superiority_p": result["superiority_p"],
        "equivalence_bound": result["equivalence_bound"],
        "verdict": result["verdict"],
    }


def _primary(fit: CrossedMean) -> PrimaryFit:
    return {
        "method": fit.method,
        "df_method": fit.df_method,
        "estimate": fit.estimate,
        "se": fit.se,
        "df": fit.df,
        "n_ratings": fit.n,
        "n_annotators": fit.n_annotators,
        "var_pair": fit.var_pair,
        "var_annotator": fit.var_annotator,
        "var_residual": fit.var_residual,
        "singular": list(fit.singular),
    }


def _notes(old: list[str], fit: CrossedMean, n_pairs: int) -> list[str]:
    """The per-pair notes but the direction note (recomputed from the primary fit), and what
    the primary fit fell back to."""
    notes = [n for n in old if "significantly LOWER" not in n]
    if fit.method == DEGENERATE and n_pairs >= MIN_PAIRS:
        notes.append("all annotators' differences are equal (zero variance): tests undefined")
    if fit.singular:
        notes.append(singular_words(fit.singular))
    return notes


def _two_sided(fit: CrossedMean) -> float | None:
    p = fit.p_greater(0.0)
    return None if p is None else float(min(1.0, 2 * min(p, 1 - p)))


def _differs(fit: CrossedMean, two_sided: float | None, alpha: float) -> str | None:
    if two_sided is None or two_sided >= alpha or fit.estimate is None:
        return None
    return "higher" if fit.estimate > 0 else "lower"
