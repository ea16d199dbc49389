"""The report's reward-model keys: `reward_models.<name>` and `label_audit` (typed dicts with
exactly the JSON keys; None where a figure is undefined)."""

from __future__ import annotations

from typing import TypedDict

Interval = list[float]


class Proportion(TypedDict):
    n: int
    accuracy: float | None
    ci95: Interval | None


class McNemar(TypedDict):
    n_pairs: int
    model_only_correct: int  # b: model right, human majority not
    human_only_correct: int  # c: human majority right, model not
    statistic: float | None  # chi-squared with continuity correction (None when exact)
    p: float | None
    method: str | None  # "exact binomial" or "chi-squared with continuity correction"


class Correlation(TypedDict):
    n: int
    spearman_rho: float | None
    p: float | None


class ModelDomain(TypedDict):
    n_pairs: int
    accuracy_all: float | None
    accuracy_all_ci95: Interval | None
    n_rated: int
    accuracy_rated: float | None
    accuracy_rated_ci95: Interval | None
    human_accuracy_same_pairs: float | None


class RewardModelResult(ModelDomain):
    """A model's figures on the whole study: those of a domain, and more."""

    kind: str
    n_predictions: int
    n_missing_score: int
    n_non_finite: int
    n_parse_failed: int
    human_accuracy_same_pairs_ci95: Interval | None  # single annotator, ties as half
    human_majority_accuracy_same_pairs: float | None  # panel majority verdict is chosen
    human_majority_accuracy_same_pairs_ci95: Interval | None
    agreement: float | None
    kappa: float | None
    mcnemar_p: float | None
    mcnemar: McNemar
    accuracy_where_humans_agree: Proportion
    accuracy_where_humans_disagree: Proportion
    margin_correlation: dict[str, Correlation] | None  # pointwise: per dimension
    position: dict[str, Proportion] | None  # pairwise: model accuracy by chosen side
    human_position: dict[str, Proportion] | None  # humans' accuracy by chosen side
    by_domain: dict[str, ModelDomain]


class AuditRow(TypedDict):
    pair_id: str
    domain: str
    human_majority: str
    n_annotators: int
    mean_rubric_diff: float
