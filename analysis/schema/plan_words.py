"""The analysis plan's settings and changes in words, for every layer that says them (the
report's note, its tables, the methods paragraph)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime

from analysis.schema.report_types import AnalysisPlan, PlanChange

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


def time_words(iso: str | None, missing: str = "an unknown time") -> str:
    """An ISO time as people read it: '2026-12-01 10:00 UTC' (to the minute, in UTC; `missing`
    for none); text that is not an ISO time is shown as it is."""
    if not iso:
        return missing
    try:
        moment = datetime.fromisoformat(iso)
    except ValueError:
        return iso
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def change_words(change: PlanChange) -> str:
    """'equivalence margin 0.3 -> 0.6 on 2026-12-01 10:00 UTC'."""
    name = WORDS.get(change["setting"], change["setting"])
    before, after = value_words(change["before"]), value_words(change["after"])
    return f"{name} {before} -> {after} on {time_words(change['at'])}"


def interim_words(plan: AnalysisPlan) -> str:
    """Why a verdict is interim: the group-sequential look ('look 1 of 4 (30 of 120 pairs):
    boundary p < ...; continue') or '30 of 120 planned pairs analysed'."""
    look = plan.get("sequential")
    if look is not None:
        return f"group-sequential {look['words']}"
    return f"{plan['n_pairs_analysed']} of {plan['planned_pairs']} planned pairs analysed"
