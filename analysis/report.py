"""The validation report: every figure of the study in one JSON-serialisable typed dict."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import cast

import numpy as np
import pandas as pd

from annotate.vocabulary import (
    DEFAULT_EQUIVALENCE_MARGIN,
    DEFAULT_N_BOOT,
    DIMENSION_LABELS,
    DIMENSIONS,
    PERSONAL_DIMENSION,
    SCALE_MAX,
    SCALE_MIN,
)

from .accuracy import human_accuracy
from .agreement import annotator_agreement, dimension_agreement, preference_agreement
from .annotators import annotator_behaviour
from .coded import BoolArray, CodedRatings, FloatArray, PairMeans, encode_ratings, pair_means
from .paired import apply_holm, compare_dimension, study_checks
from .position import position_bias
from .ratings import load_ratings, validate_ratings
from .report_types import (
    Agreement,
    AnnotatorPair,
    AnnotatorRow,
    DimensionExclusions,
    DimensionResult,
    DomainResult,
    ExcludedPair,
    Exclusions,
    Histogram,
    PairedTest,
    Report,
)

SCHEMA_VERSION = 1
MAX_LISTED_PAIRS = 100
MAX_PAIRWISE_ROWS = 10_000
"""The report keeps at most this many annotator pairs (those sharing the most units); call
:func:`analysis.agreement.annotator_agreement` for all of them."""
HISTOGRAM_BIN = 0.5

METHODS = {
    "pair_means": "Each pair's annotators are averaged, separately for chosen and rejected, per "
    "dimension. A pair lacking chosen or rejected scores on a dimension is excluded from that "
    "dimension (see exclusions).",
    "ci95": "t-based 95% CI of the mean paired difference (chosen - rejected); ci_tost is the "
    "(1 - 2 alpha) interval, inside +-margin exactly when TOST p < alpha.",
    "tost": "Paired TOST: statsmodels.stats.weightstats.ttost_paired(chosen, rejected, "
    "-margin, margin)[0], the larger one-sided p-value.",
    "wilcoxon": "Two-sided Wilcoxon signed-rank test, scipy.stats.wilcoxon(chosen - rejected, "
    "zero_method='wilcox', correction=True, method=wilcoxon_method): 'exact' when at most 50 "
    "differences, none zero and no ties, else 'asymptotic' (as R's wilcox.test). Differences "
    "rounded to 9 decimals. Statistic V = sum of ranks of positive differences.",
    "verdict": "tie when TOST p < alpha; diverges when Wilcoxon p < alpha and mean_diff > 0; "
    "else inconclusive (with Holm: using the adjusted p-values, each test family adjusted "
    "across the four dimensions).",
    "alpha": "Krippendorff's alpha (krippendorff package), units = (pair, response), coders = "
    "annotators; bootstrap CI resamples units with replacement (percentile).",
    "preference_alpha": "Nominal alpha on each annotator's rubric preference per pair "
    "(chosen / equal / rejected by their rubric_alignment scores); units = pairs.",
    "annotator_agreement": "Pairwise: share of shared units (pair, response, dimension) where two "
    "annotators gave the same score (exact) or scores at most one point apart (within_one); "
    "per annotator pooled over all their comparisons. mean_abs_diff_from_others: mean |score - "
    "mean of the other annotators on the unit|.",
    "human_accuracy": "Share of pairs whose mean rubric_alignment is higher for chosen, ties "
    "counted as 0.5; Wilson 95% CI of the strict share.",
    "position_bias": "Per pair-rating, score of the response on side A vs side B; two-sided "
    "Wilcoxon signed-rank test.",
}


def build_report(
    data: pd.DataFrame | str | Path,
    margin: float = DEFAULT_EQUIVALENCE_MARGIN,
    alpha: float = 0.05,
    n_boot: int = DEFAULT_N_BOOT,
    holm: bool = False,
    seed: int = 0,
    scale_min: int = SCALE_MIN,
    scale_max: int = SCALE_MAX,
    excluded_pairs: Sequence[ExcludedPair] = (),
) -> Report:
    """Validate ratings (a DataFrame in the export format, or a file path) and compute every
    figure of the validation report. The result is JSON-serialisable with no NaN (None).
    `excluded_pairs` (by pair id) are left out of every figure and listed under exclusions."""
    _check_settings(margin, alpha, n_boot)
    if isinstance(data, pd.DataFrame):
        df = validate_ratings(data, scale_min, scale_max)
    else:
        df = load_ratings(data, scale_min, scale_max)
    if excluded_pairs:
        left_out = {e["pair_id"] for e in excluded_pairs}
        df = df[~df["pair_id"].astype(str).isin(left_out)].reset_index(drop=True)
    coded = encode_ratings(df)
    means = pair_means(coded)
    paired = compare_dimensions(means, margin, alpha, holm)
    dimensions = _dimension_results(paired, coded, means, n_boot, seed, scale_min, scale_max)
    agreement, annotators = _agreement(coded, n_boot, seed, scale_min, scale_max)
    report: Report = {
        "schema_version": SCHEMA_VERSION,
        "n_pairs": coded.n_pairs,
        "n_annotators": coded.n_annotators,
        "n_scores": coded.n_scores,
        "n_pair_ratings": coded.n_ratings,
        "studies": sorted(coded.pairs["study"].unique().tolist()),
        "domains": sorted(coded.pairs["domain"].unique().tolist()),
        "dimensions": dimensions,
        "checks": study_checks(paired),
        "human_accuracy": human_accuracy(*means.means(DIMENSIONS.index(PERSONAL_DIMENSION))),
        "agreement": agreement,
        "by_domain": by_domain(coded, means, margin, alpha, holm),
        "position_bias": position_bias(coded, alpha),
        "exclusions": exclusions(coded, means, excluded_pairs),
        "settings": {
            "margin": margin,
            "alpha": alpha,
            "holm": holm,
            "n_boot": n_boot,
            "seed": seed,
            "scale_min": scale_min,
            "scale_max": scale_max,
            "ci_level": 0.95,
        },
        "methods": METHODS,
        "annotators": annotators,
    }
    return cast(Report, to_jsonable(report))


def _dimension_results(
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
    results: dict[str, DimensionResult] = {}
    for dim_index, dim in enumerate(DIMENSIONS):
        chosen, rejected = means.means(dim_index)
        results[dim] = {
            **paired[dim],
            **agreement[dim],
            "label": DIMENSION_LABELS[dim],
            "diff_histogram": diff_histogram(chosen - rejected, scale_max - scale_min),
        }
    return results


def _check_settings(margin: float, alpha: float, n_boot: int) -> None:
    if not margin > 0:
        raise ValueError(f"margin must be positive, got {margin}")
    if not 0 < alpha < 0.5:
        raise ValueError(f"alpha must be between 0 and 0.5, got {alpha}")
    if n_boot < 0:
        raise ValueError(f"n_boot must be 0 (no bootstrap) or more, got {n_boot}")


def compare_dimensions(
    means: PairMeans,
    margin: float,
    alpha: float,
    holm: bool,
    mask: BoolArray | None = None,
) -> dict[str, PairedTest]:
    """Per-dimension paired figures and verdicts for the pairs in ``mask`` (all by default)."""
    results = {}
    for dim_index, dim in enumerate(DIMENSIONS):
        chosen, rejected = means.means(dim_index, mask)
        results[dim] = compare_dimension(chosen, rejected, margin, alpha)
    if holm:
        apply_holm(results, alpha)
    return results


def diff_histogram(diff: FloatArray, scale_range: int) -> Histogram:
    """Counts of paired differences in bins of 0.5 centred on multiples of 0.5."""
    half = HISTOGRAM_BIN / 2
    edges = np.arange(-scale_range - half, scale_range + half + 1e-9, HISTOGRAM_BIN)
    counts, _ = np.histogram(diff, bins=edges)
    centres = (edges[:-1] + edges[1:]) / 2
    return {"centres": centres.round(6).tolist(), "counts": counts.tolist()}


def by_domain(
    coded: CodedRatings, means: PairMeans, margin: float, alpha: float, holm: bool
) -> dict[str, DomainResult]:
    """Per-dimension figures, study checks and human accuracy within each domain."""
    out: dict[str, DomainResult] = {}
    domains = coded.pairs["domain"].to_numpy()
    rubric = DIMENSIONS.index(PERSONAL_DIMENSION)
    for domain in sorted(set(domains)):
        mask = domains == domain
        dims = compare_dimensions(means, margin, alpha, holm, mask)
        out[domain] = {
            "n_pairs": int(mask.sum()),
            "dimensions": dims,
            "checks": study_checks(dims),
            "human_accuracy": human_accuracy(*means.means(rubric, mask)),
        }
    return out


def exclusions(
    coded: CodedRatings, means: PairMeans, excluded_pairs: Sequence[ExcludedPair] = ()
) -> Exclusions:
    """Pairs left out of each dimension, and why; never silent."""
    per_dim: dict[str, DimensionExclusions] = {}
    for dim_index, dim in enumerate(DIMENSIONS):
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
        "incomplete_pair_ratings": int(np.sum(per_rating < len(DIMENSIONS) * 2)),
        "note": "A pair lacking chosen or rejected scores on a dimension is excluded from that "
        "dimension only. Incomplete pair-ratings (fewer than 8 scores) are kept; the pair means "
        "use the scores present. Pairs under excluded_pairs were left out of every figure by an "
        "admin, for the reason given.",
        "excluded_pairs": list(excluded_pairs),
    }


def _agreement(
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


def to_jsonable(value: object) -> object:
    """Recursively convert numpy scalars/arrays to Python types and NaN/inf to None."""
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | np.ndarray):
        return [to_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if value is pd.NA or value is pd.NaT:
        return None
    return value
