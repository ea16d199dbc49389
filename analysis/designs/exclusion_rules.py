"""Pre-registered exclusion rules applied in the analysis: the annotators each rule excludes
(with their figure and the threshold), the primary analysis without the annotators any rule
excludes, and a sensitivity table of the headline figures with no rule, each rule alone and all
rules.

The rules and the per-annotator facts they read (gold pairs answered and failed, the share of
straight-lined pairs, the median seconds per pair) come as plain data: gold pairs are not in the
ratings export, so the facts are computed where the data are (`annotate.domain.rating.quality`). A
rule whose figure is undefined for an annotator (no gold pair answered) does not exclude them.

Each variant of the sensitivity table is the validation report itself (``build``, normally
:func:`analysis.report.build_report` without bootstrap) on the ratings minus the excluded
annotators; variants excluding the same annotators are computed once.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Literal, NamedTuple, cast

import pandas as pd

from analysis.inference.margins import margin_record
from analysis.schema.exclusion_types import (
    AnnotatorFacts,
    AnnotatorUnderRules,
    ExclusionReport,
    Headline,
    RulesRecord,
)
from analysis.schema.jsonable import to_jsonable
from analysis.schema.questions import question_keys, target_key_of
from analysis.schema.report_types import Report

EPSILON = 1e-9  # a figure equal to its threshold (up to rounding) passes


class Rule(NamedTuple):
    fact: str  # the AnnotatorFacts key it reads
    excludes_when: Literal["below", "above"]
    description: str


RULES: dict[str, Rule] = {
    "min_gold_accuracy": Rule("gold_accuracy", "below", "gold accuracy below"),
    "max_gold_failures": Rule("gold_failed", "above", "more gold pairs failed than"),
    "max_straightlining_share": Rule(
        "straightlining_share", "above", "share of straight-lined pairs above"
    ),
    "min_median_seconds": Rule("median_seconds", "below", "median seconds per pair below"),
}
"""The rules, in the order the report lists them (the study's `ExclusionRules` fields)."""

ALL_RULES, NO_RULE = "all rules", "no rule"
Builder = Callable[[pd.DataFrame], Report]


def check_rules(rules: Mapping[str, object]) -> dict[str, float]:
    """The rules as numbers; ValueError naming an unknown rule or a value that is not one."""
    out = {}
    for name, value in rules.items():
        if name not in RULES:
            raise ValueError(f"exclusion rules: unknown rule {name!r}; expected {', '.join(RULES)}")
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"exclusion rules: {name} must be a number, got {value!r}")
        out[name] = float(value)
    return {name: out[name] for name in RULES if name in out}


def reason(rule: str, threshold: float, facts: AnnotatorFacts) -> str | None:
    """Why `rule` excludes this annotator (their figure against the threshold), or None."""
    spec = RULES[rule]
    value = cast(float | None, cast(Mapping[str, object], facts)[spec.fact])
    if value is None:
        return None
    if spec.excludes_when == "below" and not value < threshold - EPSILON:
        return None
    if spec.excludes_when == "above" and not value > threshold + EPSILON:
        return None
    sign = "<" if spec.excludes_when == "below" else ">"
    return f"{rule}: {_figure(spec.fact, value)} {sign} {_figure(spec.fact, threshold)}"


def _figure(fact: str, value: float) -> str:
    if fact in ("gold_accuracy", "straightlining_share"):
        return f"{100 * value:.1f}%"
    if fact == "gold_failed":
        return f"{value:g} failed"
    return f"{value:g} s"


def _threshold(rule: str, threshold: float) -> str:
    fact = RULES[rule].fact
    return f"{threshold:g}" if fact == "gold_failed" else _figure(fact, threshold)


def excluded_by(
    rules: Mapping[str, float], facts: Sequence[AnnotatorFacts]
) -> dict[str, list[str]]:
    """Annotator -> the rules that exclude them (only annotators some rule excludes)."""
    out: dict[str, list[str]] = {}
    for person in facts:
        hits = [rule for rule, threshold in rules.items() if reason(rule, threshold, person)]
        if hits:
            out[person["annotator"]] = hits
    return out


EXCLUDED_COLUMN = "annotator_excluded"


def mark_excluded(
    ratings: pd.DataFrame, rules: Mapping[str, object], facts: Sequence[AnnotatorFacts]
) -> pd.DataFrame:
    """The ratings with `annotator_excluded`: why a pre-registered rule excludes the row's
    annotator (each rule with their figure against its threshold, '; '-joined), else ''."""
    checked = check_rules(rules)
    why = {
        person["annotator"]: "; ".join(
            found
            for rule, threshold in checked.items()
            if (found := reason(rule, threshold, person))
        )
        for person in facts
    }
    marked = ratings.copy()
    # not Series.map(why): with no annotator facts (only skip rows) it gives floats, not text
    reasons = [why.get(name, "") for name in marked["annotator"].astype(str)]
    marked[EXCLUDED_COLUMN] = pd.Series(reasons, index=marked.index, dtype=object).astype(str)
    return marked


def without(ratings: pd.DataFrame, annotators: Collection[str]) -> pd.DataFrame:
    """The ratings minus those of `annotators`."""
    if not annotators:
        return ratings
    keep = ~ratings["annotator"].astype(str).isin(set(annotators))
    return ratings[keep].reset_index(drop=True)


def primary_ratings(
    ratings: pd.DataFrame, rules: Mapping[str, object], facts: Sequence[AnnotatorFacts]
) -> pd.DataFrame:
    """What the primary analysis uses: the ratings minus every annotator a rule excludes."""
    kept = without(ratings, set(excluded_by(check_rules(rules), facts)))
    if kept.empty and not ratings.empty:
        raise ValueError("the exclusion rules exclude every annotator: no ratings left")
    return kept


def exclusion_report(
    ratings: pd.DataFrame,
    record: Mapping[str, object],
    facts: Sequence[AnnotatorFacts],
    build: Builder,
    primary: Report,
) -> ExclusionReport:
    """The rules, the annotators they exclude, and the sensitivity table.

    ``ratings`` are all the ratings (no annotator excluded); ``record`` is the study's rules
    record ``{"rules", "set_at", "history", "first_rating_at"}``; ``primary`` is the report
    built on :func:`primary_ratings` (reused as the "all rules" row)."""
    rules = check_rules(cast(Mapping[str, object], record.get("rules") or {}))
    hits = excluded_by(rules, facts)
    rated = set(ratings["annotator"].astype(str))
    cache: dict[frozenset[str], Report] = {frozenset(hits) & rated: primary}
    rows = []
    for variant, applied in _variants(rules):
        key = frozenset(a for a, by in hits.items() if set(by) & set(applied)) & rated
        if key not in cache:
            cache[key] = build(without(ratings, key))
        rows.append(headline(variant, applied, sorted(key), cache[key]))
    result: ExclusionReport = {
        "rules": [
            {
                "rule": rule,
                "threshold": threshold,
                "description": f"{RULES[rule].description} {_threshold(rule, threshold)}",
                "excluded": sorted(a for a, by in hits.items() if rule in by),
            }
            for rule, threshold in rules.items()
        ],
        "record": rules_record(record),
        "excluded": sorted(hits),
        "annotators": [_under_rules(person, rules, rated) for person in facts],
        "sensitivity": rows,
        "note": _note(rules),
    }
    return cast(ExclusionReport, to_jsonable(result))


def _variants(rules: Mapping[str, float]) -> list[tuple[str, list[str]]]:
    """(variant, rules applied): no rule, each rule alone, all rules (the primary analysis)."""
    out: list[tuple[str, list[str]]] = [(NO_RULE, [])]
    if not rules:
        return out
    out += [(f"{rule} only", [rule]) for rule in rules] if len(rules) > 1 else []
    return [*out, (ALL_RULES, list(rules))]


def headline(variant: str, rules: list[str], excluded: list[str], report: Report) -> Headline:
    """The headline figures of one variant's report."""
    return {
        "variant": variant,
        "rules": rules,
        "excluded": excluded,
        "n_annotators": report["n_annotators"],
        "n_pair_ratings": report["n_pair_ratings"],
        "n_pairs": report["n_pairs"],
        "dimensions": {
            d: {
                "mean_diff": report["dimensions"][d]["mean_diff"],
                "verdict": report["dimensions"][d]["verdict"],
            }
            for d in question_keys(report)
        },
        "human_accuracy": report["human_accuracy"]["accuracy"],
        "rubric_alpha": report["dimensions"][target_key_of(report)]["alpha_ordinal"],
        "validated": report["checks"]["validated"],
    }


def _under_rules(
    person: AnnotatorFacts, rules: Mapping[str, float], rated: set[str]
) -> AnnotatorUnderRules:
    reasons = [r for rule, t in rules.items() if (r := reason(rule, t, person)) is not None]
    return {
        **person,
        "excluded_by": [r.split(":", 1)[0] for r in reasons],
        "reasons": reasons,
        "in_ratings": person["annotator"] in rated,
    }


def rules_record(record: Mapping[str, object]) -> RulesRecord:
    """When the rules were set, their earlier values, and whether they were set (or changed)
    after the first rating (the margin record's check,
    `analysis.inference.margins.margin_record`)."""
    first = record.get("first_rating_at")
    checked = margin_record(
        {"set_at": record.get("set_at"), "history": record.get("history") or []},
        [] if first is None else [str(first)],
    )
    assert checked is not None  # a record was given
    late = checked["changed_after_data"]
    if late:
        note = "rules set or changed after data arrived"
    elif checked["set_at"] is None:
        note = "no exclusion rules were set"
    else:
        note = "rules set before data"
    return {**checked, "note": note}


def _note(rules: Mapping[str, float]) -> str:
    if not rules:
        return "No exclusion rules were pre-registered: every annotator is analysed."
    return (
        "The primary analysis (every figure of this report) leaves out the annotators any "
        "pre-registered rule excludes; the sensitivity table repeats the headline figures with "
        "no rule, each rule alone and all rules (without bootstrap). A rule whose figure is "
        "undefined for an annotator (no gold pair answered) does not exclude them."
    )


def attach_exclusion_rules(
    report: Report,
    ratings: pd.DataFrame,
    record: Mapping[str, object],
    facts: Sequence[AnnotatorFacts],
    build: Builder,
) -> Report:
    """The report (built on :func:`primary_ratings`) with its `exclusion_rules` key and the
    methods entry saying how the rules were applied."""
    found = exclusion_report(ratings, record, facts, build, report)
    methods = {**report["methods"], "exclusion_rules": found["note"]}
    return cast(Report, {**report, "exclusion_rules": found, "methods": methods})
