"""The validation report's sections: the figures of each dimension, agreement, the checks and
the reliability caveat in words, by domain, exclusions (:func:`analysis.report.build_report`
assembles them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import cast

import numpy as np

from analysis.core.agreement import annotator_agreement, dimension_agreement, preference_agreement
from analysis.core.alpha import why_no_alpha
from analysis.core.annotators import annotator_behaviour
from analysis.core.coded import (
    CodedRatings,
    FloatArray,
    IntArray,
    PairMeans,
)
from analysis.inference.accuracy import human_accuracy
from analysis.inference.paired import TIE, apply_holm, study_checks
from analysis.inference.primary import RatingDiffs, compare_dimensions, tie_levels
from analysis.methods import ALPHA_TENTATIVE, CAVEAT_MEANING
from analysis.schema.questions import target_key
from analysis.schema.report_types import (
    Agreement,
    AnnotatorPair,
    AnnotatorRow,
    Checks,
    DimensionAgreement,
    DimensionExclusions,
    DimensionResult,
    DomainResult,
    ExcludedPair,
    Exclusions,
    Histogram,
    PairedTest,
)
from annotate.questionnaire import DEFAULT_QUESTIONNAIRE, Questionnaire

MAX_LISTED_PAIRS = 100


MAX_PAIRWISE_ROWS = 10_000
"""The report keeps at most this many annotator pairs (those sharing the most units); call
:func:`analysis.core.agreement.annotator_agreement` for all of them."""


HISTOGRAM_BIN = 0.5


def checks_section(
    paired: dict[str, PairedTest],
    dimensions: dict[str, DimensionResult],
    diffs: RatingDiffs,
    agreement: Agreement,
) -> Checks:
    coded = diffs.coded
    target = coded.target_index()
    questionnaire = coded.questionnaire
    caveat = reliability_caveat(dimensions[coded.keys[target]])
    checks = study_checks(paired, caveat, questionnaire)
    d, pair, _ = diffs.of(target, None)
    raw = raw_agreement(d, pair)
    checks["raw_agreement"] = raw
    shares = agreement["preference"]["shares"]
    checks["reliability"] = reliability_words(dimensions, raw, shares, (d, pair), questionnaire)
    return checks


def dimension_results(
    paired: dict[str, PairedTest],
    coded: CodedRatings,
    means: PairMeans,
    n_boot: int,
    seed: int,
    scale_min: int,
    scale_max: int,
) -> dict[str, DimensionResult]:
    """The paired test, Krippendorff's alpha (with CIs), the label and the difference histogram
    of each dimension."""
    agreement = dimension_agreement(coded, list(range(scale_min, scale_max + 1)), n_boot, seed)
    labels = coded.questionnaire.labels
    results: dict[str, DimensionResult] = {}
    for dim_index, dim in enumerate(coded.keys):
        chosen, rejected = means.means(dim_index)
        results[dim] = {
            **paired[dim],
            **agreement[dim],
            "label": labels[dim],
            "diff_histogram": diff_histogram(chosen - rejected, scale_max - scale_min),
        }
    return results


NEAR_ZERO_ALPHA = 0.2


SKEWED_SHARE = 0.8


def reliability_caveat(rubric: DimensionAgreement) -> bool | None:
    """True when the alpha of rubric alignment's chosen - rejected difference (the agreement
    the verdict is about) is below Krippendorff's 0.667 for tentative conclusions; None when it
    cannot be computed (not assessed)."""
    value = rubric["alpha_difference"]
    return None if value is None else value < ALPHA_TENTATIVE


def raw_agreement(d: FloatArray, pair: IntArray) -> float | None:
    """Share of pairs of annotators on the same pair who agree on the rubric preference
    (chosen higher, equal, rejected higher); None without a pair rated twice."""
    votes = np.where(np.round(d, 9) > 0, 0, np.where(np.round(d, 9) == 0, 1, 2))
    codes = np.unique(pair, return_inverse=True)[1].ravel()
    counts = np.zeros((int(codes.max()) + 1 if len(codes) else 0, 3))
    np.add.at(counts, (codes, votes), 1)
    n = counts.sum(axis=1)
    together = float(np.sum(n * (n - 1)))
    return float(np.sum(counts * (counts - 1)) / together) if together else None


def reliability_words(
    dimensions: Mapping[str, DimensionResult],
    raw: float | None,
    shares: Mapping[str, float],
    rubric_diffs: tuple[FloatArray, IntArray] | None = None,
    questionnaire: Questionnaire = DEFAULT_QUESTIONNAIRE,
) -> str:
    """The reliability check in words: the rubric difference alpha with the raw agreement
    beside it, what a low value measures, why a missing one is missing (from `rubric_diffs`,
    each judgement's chosen - rejected and its pair), and why a low alpha elsewhere is no
    caveat."""
    rubric = dimensions[target_key(questionnaire)]["alpha_difference"]
    raw_words = "not assessed" if raw is None else f"{100 * raw:.0f}%"
    if rubric is None:
        why = "alpha cannot be computed on these ratings"
        if rubric_diffs is not None:
            why = why_no_alpha(rubric_diffs[1], rubric_diffs[0])
        text = (
            f"Reliability of the rubric chosen - rejected difference: not assessed ({why}); raw "
            f"agreement on the rubric preference {raw_words}."
        )
    elif rubric < ALPHA_TENTATIVE:
        text = (
            f"Krippendorff's alpha of the rubric chosen - rejected difference is {rubric:.2f}, "
            f"below {ALPHA_TENTATIVE}: {CAVEAT_MEANING}. Raw agreement on the rubric preference "
            f"(which response is better) {raw_words}."
        )
    else:
        text = (
            f"Krippendorff's alpha of the rubric chosen - rejected difference is {rubric:.2f}, "
            f"at or above {ALPHA_TENTATIVE}: annotators largely agree on how much better chosen "
            f"is than rejected, pair by pair; raw agreement on the rubric preference {raw_words}."
        )
    if max(shares.values(), default=0.0) >= SKEWED_SHARE:
        text += (
            " Most judgements fall in one category, which holds a chance-corrected alpha down "
            "even where raw agreement is high."
        )
    tied = [
        dim
        for dim in questionnaire.tie_keys
        if dimensions[dim]["verdict"] == TIE
        and (dimensions[dim]["alpha_difference"] or 0.0) < NEAR_ZERO_ALPHA
    ]
    if tied:
        text += (
            f" The difference alphas of {', '.join(tied)} are near 0 because those dimensions "
            "tie: with no real difference between pairs there is nothing to agree on, so this "
            "is expected and raises no caveat."
        )
    return text


def diff_histogram(diff: FloatArray, scale_range: int) -> Histogram:
    """Counts of paired differences in bins of 0.5 centred on multiples of 0.5."""
    half = HISTOGRAM_BIN / 2
    edges = np.arange(-scale_range - half, scale_range + half + 1e-9, HISTOGRAM_BIN)
    counts, _ = np.histogram(diff, bins=edges)
    centres = (edges[:-1] + edges[1:]) / 2
    return {"centres": centres.round(6).tolist(), "counts": counts.tolist()}


def by_domain(
    coded: CodedRatings,
    diffs: RatingDiffs,
    means: PairMeans,
    margins: Mapping[str, float | None],
    sesoi: Mapping[str, float | None],
    alpha: float,
    holm: bool,
    tie_alpha: float | None = None,
) -> dict[str, DomainResult]:
    """Per-dimension figures, checks and human accuracy within each domain (exploratory). With
    ``holm`` the TOST and superiority p-values of all domains and dimensions form one Holm
    family, and the verdicts use the adjusted values. ``tie_alpha``: each tie question's TOST
    at that level, as in the study's own results (an internal pilot's plan)."""
    out: dict[str, DomainResult] = {}
    domains = coded.pairs["domain"].to_numpy()
    families = {
        domain: compare_dimensions(
            diffs, means, margins, alpha, sesoi, domains == domain, tie_alpha=tie_alpha
        )
        for domain in sorted(set(domains))
    }
    target = coded.target_index()
    if holm:
        apply_holm(list(families.values()), alpha, tie_levels(coded.questionnaire, tie_alpha))
    for domain, dims in families.items():
        mask = domains == domain
        out[domain] = {
            "n_pairs": int(mask.sum()),
            "dimensions": dims,
            "checks": study_checks(dims, questionnaire=coded.questionnaire),
            "human_accuracy": human_accuracy(*diffs.of(target, mask)),
        }
    return out


def exclusions(
    coded: CodedRatings, means: PairMeans, excluded_pairs: Sequence[ExcludedPair] = ()
) -> Exclusions:
    """Pairs left out of each dimension, and why; never silent."""
    per_dim: dict[str, DimensionExclusions] = {}
    for dim_index, dim in enumerate(coded.keys):
        counts = means.counts[:, dim_index]
        no_chosen = (counts[:, 0] == 0) & (counts[:, 1] > 0)
        no_rejected = (counts[:, 0] > 0) & (counts[:, 1] == 0)
        no_scores = counts.sum(axis=1) == 0
        excluded = np.flatnonzero(no_chosen | no_rejected | no_scores)
        per_dim[dim] = {
            "n_excluded": len(excluded),
            "no_chosen_scores": int(no_chosen.sum()),
            "no_rejected_scores": int(no_rejected.sum()),
            "no_scores": int(no_scores.sum()),
            "pairs": coded.pair_names(excluded[:MAX_LISTED_PAIRS]),
            "pairs_truncated": bool(len(excluded) > MAX_LISTED_PAIRS),
        }
    per_rating = np.bincount(coded.rating, minlength=coded.n_ratings)
    return {
        "dimensions": per_dim,
        "n_excluded_total": sum(d["n_excluded"] for d in per_dim.values()),
        "incomplete_pair_ratings": int(np.sum(per_rating < coded.n_dims * 2)),
        "note": "A pair lacking chosen or rejected scores on a dimension is excluded from that "
        f"dimension only. Incomplete pair-ratings (fewer than {coded.n_dims * 2} scores) are "
        "kept; the pair means use the scores present. Pairs under excluded_pairs were left out "
        "of every figure by an admin, for the reason given.",
        "excluded_pairs": list(excluded_pairs),
    }


def agreement_section(
    coded: CodedRatings, n_boot: int, seed: int, scale_min: int, scale_max: int
) -> tuple[Agreement, list[AnnotatorRow]]:
    """Rubric-preference alpha and annotator-pair agreement; the per-annotator table."""
    pairwise, per_annotator = annotator_agreement(coded, scale_min, scale_max)
    names = coded.annotators
    annotators = annotator_behaviour(coded, scale_min, scale_max).join(per_annotator)
    annotators.insert(0, "annotator", names)
    n_pairwise = len(pairwise)
    if n_pairwise > MAX_PAIRWISE_ROWS:
        pairwise = pairwise.nlargest(MAX_PAIRWISE_ROWS, "n_shared", keep="first")
    pairwise = pairwise.assign(
        annotator_a=names[pairwise["annotator_a"].to_numpy()],
        annotator_b=names[pairwise["annotator_b"].to_numpy()],
    )
    agreement: Agreement = {
        "preference": preference_agreement(coded, n_boot, seed),
        "pairwise": cast(list[AnnotatorPair], pairwise.to_dict(orient="records")),
        "pairwise_total": n_pairwise,
        "pairwise_truncated": n_pairwise > MAX_PAIRWISE_ROWS,
    }
    return agreement, cast(list[AnnotatorRow], annotators.to_dict(orient="records"))
