"""The Studies page's pre-registered analysis plan (issue 23 item 3): the smallest effect of
interest, alpha, the planned size and stopping rule beside the margin, the plan's standing
(when it was set, every change since) and, once the study has ratings, the force box without
which a change of the plan is refused (`annotate.domain.study.plan`)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from annotate.app.safe_text import inert_markdown
from annotate.db.tables import Study
from annotate.domain.study.plan import LABELS


def plan_inputs(study: Study, key: str, plan: dict[str, Any]) -> dict[str, Any]:
    """The plan's inputs beside the margin, with its standing below them."""
    cols = st.columns(4)
    sesoi = cols[0].number_input(
        "Smallest effect of interest (empty: the margin)",
        value=study.smallest_effect,
        min_value=0.0,
        step=0.1,
        key=f"{key}_sesoi",
        help="In the margin's unit: rubric alignment must exceed it to diverge.",
    )
    alpha = cols[1].number_input(
        "Alpha",
        value=float(study.alpha),
        min_value=0.001,
        max_value=0.499,
        step=0.01,
        format="%.3f",
        key=f"{key}_alpha",
    )
    planned = cols[2].number_input(
        "Planned pairs (0: none)",
        value=study.planned_pairs or 0,
        min_value=0,
        step=10,
        key=f"{key}_planned_pairs",
        help="A verdict shown before this many pairs are analysed is labelled interim.",
    )
    counted = cols[3].toggle(
        "Count simulated ratings",
        value=study.count_simulated,
        key=f"{key}_count_simulated",
        help="Off: made-up ratings (prb-annotate synth ratings) stay out of the verdict and "
        "the card.",
    )
    rule = st.text_input(
        "Stopping rule (in words; empty: none)", value=study.stopping_rule, key=f"{key}_stop"
    )
    st.caption(plan_status(plan))
    return {
        "smallest_effect": None if sesoi is None else float(sesoi),
        "alpha": float(alpha),
        "planned_pairs": int(planned) or None,
        "stopping_rule": rule,
        "count_simulated": counted,
    }


def force_box(key: str, plan: dict[str, Any]) -> bool:
    """Once the study has ratings: the box that forces a change of the plan (else False)."""
    if not plan.get("first_rating_at"):
        return False
    return st.checkbox(
        "The study has ratings: change the analysis plan anyway (margin, unit, smallest "
        "effect, alpha, planned size; not pre-registered: audited, and the report and the "
        "card say what changed)",
        key=f"{key}_force_plan",
    )


def plan_status(plan: dict[str, Any]) -> str:
    """When the plan was set, whether ratings came after, and each change (inert text)."""
    if not plan:
        return ""
    first = plan.get("first_rating_at")
    text = f"Analysis plan set {_minute(plan.get('set_at'))}; " + (
        f"first rating {_minute(first)}: the plan is locked." if first else "no rating yet."
    )
    for change in plan.get("changes", []):
        name = LABELS.get(change["setting"], change["setting"])
        late = " (after data)" if change["after_data"] else ""
        text += (
            f" Changed {_minute(change['at'])}{late}: {name} "
            f"{inert_markdown(str(change['before']))} -> {inert_markdown(str(change['after']))}."
        )
    return text


def _minute(iso: object) -> str:
    return "at an unknown time" if not iso else str(iso)[:16].replace("T", " ") + " UTC"
