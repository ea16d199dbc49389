"""The report's `aspects` key (analysis/designs/aspects.py): typed dicts with exactly the JSON
keys; None where a figure is undefined."""

from __future__ import annotations

from typing import TypedDict

from analysis.schema.model_types import Correlation

Interval = list[float]


class AspectComparison(TypedDict):
    """Chosen against rejected on the coverage of all aspects, or of the aspects at one place
    of the rubric ("Aspect 1" is each pair's first aspect): one value per pair."""

    label: str
    n_pairs: int
    mean_chosen: float | None
    mean_rejected: float | None
    mean_diff: float | None  # chosen - rejected, per pair (annotators and aspects averaged)
    ci95: Interval | None  # t interval of the mean paired difference
    wilcoxon_p: float | None  # two-sided signed-rank test (analysis.inference.paired.wilcoxon_test)
    share_chosen_higher: float | None  # of (pair, aspect) units: chosen covers it more
    share_tied: float | None
    n_units: int
    with_rubric: Correlation  # Spearman of the difference with the rubric-alignment difference
    alpha_ordinal: float | None  # Krippendorff, units (pair, response, aspect), coders annotators


class WeakAspect(TypedDict):
    """A (pair, aspect) where the chosen response does not cover the aspect more."""

    pair_id: str
    aspect_index: int
    aspect: str
    mean_chosen: float
    mean_rejected: float
    n_annotators: int


class JudgeAgreement(TypedDict):
    """Human consensus (median of the annotators) against an LLM judge, per response and aspect."""

    label: str
    n: int
    exact_agreement: float | None
    kappa_quadratic: float | None  # statsmodels cohens_kappa(wt="quadratic")


class AspectSummary(TypedDict):
    overall: AspectComparison
    by_aspect: list[AspectComparison]  # ranked: the largest chosen - rejected difference first
    weakest: list[WeakAspect]
    n_weak: int
    judges: dict[str, list[JudgeAgreement]]  # judge -> all aspects first, then by aspect
    n_marks: int
    n_pairs: int
    n_annotators: int
