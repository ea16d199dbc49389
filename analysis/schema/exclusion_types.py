"""The report's `exclusion_rules` key (analysis/designs/exclusion_rules.py): typed dicts with
exactly the JSON keys; None where a figure is undefined."""

from __future__ import annotations

from typing import TypedDict


class RulesRecord(TypedDict):
    """When the rules were set (the margin record's shape,
    analysis.inference.margins.margin_record)."""

    set_at: str | None
    history: list[dict[str, object]]  # earlier rules: {rules, set_at}
    first_rating_at: str | None
    changed_after_data: bool
    note: str


class AnnotatorFacts(TypedDict):
    """What the rules read about one annotator (computed where the data are: gold pairs are
    not in the ratings export). Times are seconds per pair; shares are 0..1."""

    annotator: str
    pairs_rated: int  # done pairs, gold pairs included
    gold_answered: int
    gold_failed: int
    gold_accuracy: float | None  # None: no gold pair answered
    straightlining_share: float | None  # pairs with all 8 scores equal
    median_seconds: float | None


class AnnotatorUnderRules(AnnotatorFacts):
    excluded_by: list[str]  # the rules that exclude this annotator (empty: kept)
    reasons: list[str]  # each rule's reason, with the annotator's figure and the threshold
    in_ratings: bool  # has ratings in the analysed data (not only gold pairs)


class RuleResult(TypedDict):
    rule: str
    threshold: float
    description: str
    excluded: list[str]  # annotators this rule alone excludes


class DimensionHeadline(TypedDict):
    mean_diff: float | None
    verdict: str


class Headline(TypedDict):
    """The headline figures of the analysis under one set of rules."""

    variant: str  # "no rule", "<rule> only", "all rules"
    rules: list[str]
    excluded: list[str]  # annotators left out (those with ratings)
    n_annotators: int
    n_pair_ratings: int
    n_pairs: int
    dimensions: dict[str, DimensionHeadline]
    human_accuracy: float | None  # the headline: a single annotator, ties as half
    rubric_alpha: float | None  # ordinal
    validated: bool


class ExclusionReport(TypedDict):
    rules: list[RuleResult]
    record: RulesRecord  # when the rules were set; its note says whether after the data
    excluded: list[str]  # annotators the primary analysis leaves out (all rules)
    annotators: list[AnnotatorUnderRules]
    sensitivity: list[Headline]
    note: str
