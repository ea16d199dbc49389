"""The admin Studies page's part for the study's pre-registered exclusion rules (issue 15
item 4): shown with when they were set, and changed through
`annotate.services.admin.exclusion_rules`
(audited, admin only). Once the study has ratings a change needs the force box: the rules are
then no longer pre-registered, and the report says they changed after data arrived."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import streamlit as st

from annotate.app.safe_text import plain_text
from annotate.app.session import engine
from annotate.services.admin import exclusion_rules

Act = Callable[[Callable[[], Any]], Any]  # admin_common.act: runs an action, shows a refusal

RULE_INPUTS: tuple[tuple[str, str, dict[str, Any]], ...] = (
    (
        "min_gold_accuracy",
        "Minimum gold accuracy (0-1)",
        {"min_value": 0.0, "max_value": 1.0, "step": 0.05},
    ),
    (
        "max_gold_failures",
        "Most gold pairs failed (fail 2 of 3 -> excluded: 1)",
        {"min_value": 0, "step": 1},
    ),
    (
        "max_straightlining_share",
        "Most straight-lined share (0-1)",
        {"min_value": 0.0, "max_value": 1.0, "step": 0.05},
    ),
    ("min_median_seconds", "Minimum median seconds per pair", {"min_value": 0.0, "step": 1.0}),
)


RULE_WORDS = {
    "min_gold_accuracy": "least gold accuracy",
    "max_gold_failures": "most gold failures",
    "max_straightlining_share": "most straight-lined share",
    "min_median_seconds": "least median seconds per pair",
}
"""Each rule in words, for the status line and the confirmation tables."""


def draw_rules(study: str, actor: int, act: Act, notify: Callable[[str], None]) -> None:
    """The rules' section of the study's settings; the page passes the acting admin and its
    `act` and `notify` (`admin_common`: refusals shown in one place, a notice after rerun)."""
    record = act(lambda: exclusion_rules.study_rules(engine(), actor, study))
    if record is None:
        return
    st.markdown("##### Pre-registered exclusion rules")
    st.caption(_status(record))
    key = f"rules_{study}"
    with st.form(key):
        columns = st.columns(len(RULE_INPUTS))
        rules = {
            name: column.number_input(
                label, value=_current(record, name), key=f"{key}_{name}", **options
            )
            for column, (name, label, options) in zip(columns, RULE_INPUTS, strict=True)
        }
        force = False
        if record["first_rating_at"] is not None:
            force = st.checkbox(
                "The study has ratings: set the rules anyway (not pre-registered; audited, and "
                "the report says they changed after data arrived)",
                key=f"{key}_force",
            )
        saved = st.form_submit_button("Save rules")
    if saved:
        given = {k: v for k, v in rules.items() if v is not None}
        if act(lambda: exclusion_rules.set_study_rules(engine(), actor, study, given, force=force)):
            notify(f"Exclusion rules of {plain_text(study)} saved.")
            st.rerun()


def _current(record: dict[str, Any], name: str) -> int | float | None:
    """The rule's stored value in its input's type (a count is whole, the others decimal)."""
    value = record["rules"].get(name)
    if value is None:
        return None
    return int(value) if name == "max_gold_failures" else float(value)


def _minute(iso: str) -> str:
    """An ISO time as the page shows it: '2026-12-04 18:32 UTC'."""
    return datetime.fromisoformat(iso).astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def _status(record: dict[str, Any]) -> str:
    shown = [f"{RULE_WORDS.get(k, k)} {v:g}" for k, v in record["rules"].items()]
    rules = ", ".join(shown) or "none"
    when = f"set {_minute(record['set_at'])}" if record["set_at"] else "never set"
    first = record["first_rating_at"]
    late = first is not None and record["set_at"] is not None and record["set_at"] > first
    status = (
        "set after the first rating: not pre-registered"
        if late
        else ("no rating yet" if first is None else f"before the first rating, {_minute(first)}")
    )
    return (
        f"Rules: {rules} ({when}; {status}). An empty box is no rule. Annotators a rule "
        "excludes are left out of the report's primary analysis; its sensitivity table shows "
        "the figures with and without each rule."
    )
