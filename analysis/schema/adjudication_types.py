"""The report's `adjudication` key (analysis/designs/adjudication.py): typed dicts with exactly the
JSON keys; None where a figure is undefined."""

from __future__ import annotations

from typing import TypedDict

Interval = list[float]


class Stage(TypedDict):
    """The headline figures at one stage (before or after adjudication)."""

    n_pairs: int
    strict_accuracy: float | None
    accuracy_ci95: Interval | None
    mean_rubric_diff: float | None
    rubric_ci95: Interval | None
    superiority_p: float | None
    rubric_verdict: str
    verdicts: dict[str, int]  # majority verdict -> pairs


class ChangedPair(TypedDict):
    pair_id: str
    domain: str
    before: str
    after: str
    rubric_diff_before: float | None
    rubric_diff_after: float
    n_annotators: int
    n_adjudicators: int


class AdjudicationSummary(TypedDict):
    rule: str
    n_adjudicated_pairs: int
    n_adjudicators: int
    before: Stage
    after: Stage
    changed: list[ChangedPair]
