"""The report's `preference` key (analysis/designs/preference.py): typed dicts with exactly the JSON
keys; None where a figure is undefined."""

from __future__ import annotations

from typing import TypedDict

Interval = list[float]


class Share(TypedDict):
    value: float | None
    ci95: Interval | None
    n: int


class ForcedChoice(TypedDict):
    strict: Share
    with_ties: Share
    n_judgements: int
    n_chosen: int
    n_ties: int
    n_rejected: int


class ScoreAgreement(TypedDict):
    agreement: float | None
    kappa: float | None
    n_judgements: int
    table: dict[str, dict[str, int]]  # direct preference -> score-implied preference -> count


class PreferenceSummary(TypedDict):
    forced_choice: ForcedChoice
    with_scores: ScoreAgreement
    alpha_ordinal: float | None
    n_pairs: int
    n_annotators: int


class AttributeGroup(TypedDict):
    """The annotators who gave one answer to a survey question (analysis/designs/attributes.py)."""

    n_annotators: int
    rubric_accuracy: Share  # per judgement: chosen scored above rejected on the rubric
    forced_choice: ForcedChoice | None  # from the direct preference, when asked
