"""The analysis plan's settings and changes in words, for every layer that says them (the
report's note, its tables, the methods paragraph)."""

from __future__ import annotations

from collections.abc import Mapping

from analysis.schema.report_types import PlanChange

WORDS = {
    "margin": "equivalence margin",
    "unit": "margin unit",
    "margin_unit": "margin unit",
    "smallest_effect": "smallest effect of interest",
    "alpha": "alpha",
    "planned_pairs": "planned pairs",
    "stopping_rule": "stopping rule",
    "exclusion_rules": "exclusion rules",
}


def value_words(value: object) -> str:
    if value is None or value == "":
        return "not set"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, Mapping):
        return "; ".join(f"{k} = {v}" for k, v in value.items()) or "none"
    return str(value)


def change_words(change: PlanChange) -> str:
    """'equivalence margin 0.3 -> 0.6 on 2026-12-01T10:00:00+00:00'."""
    name = WORDS.get(change["setting"], change["setting"])
    before, after = value_words(change["before"]), value_words(change["after"])
    return f"{name} {before} -> {after} on {change['at'] or 'an unknown date'}"
