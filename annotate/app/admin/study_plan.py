"""The Studies page's pre-registered analysis plan (issue 23 item 3): the smallest effect of
interest, alpha, the planned size and stopping rule beside the margin, the group-sequential
plan and the internal pilot (first stage, tie alpha), the plan's standing
(when it was set, every change since) and, once the study has ratings, the force box without
which a change of the plan is refused (`annotate.domain.study.plan`)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from annotate.app.admin.settings_inputs import help_text, label, setting_input
from annotate.app.safe_text import inert_markdown
from annotate.db.tables import Study
from annotate.domain.study.plan import LABELS
from annotate.vocabulary import (
    DEFAULT_TIE_ALPHA,
    LOOK_UNITS,
    OBRIEN_FLEMING,
    SPENDING_FAMILIES,
)


def plan_inputs(study: Study, key: str, plan: dict[str, Any]) -> dict[str, Any]:
    """The plan's inputs beside the margin, with its standing below them."""
    cols = st.columns(4)
    changes = {
        "smallest_effect": setting_input(cols[0], study, "smallest_effect", f"{key}_sesoi",
                                         min_value=0.0, step=0.1),
        "alpha": setting_input(cols[1], study, "alpha", f"{key}_alpha", min_value=0.001,
                               max_value=0.499, step=0.01, format="%.3f"),
        "planned_pairs": setting_input(cols[2], study, "planned_pairs", f"{key}_planned_pairs",
                                       none_as=0, min_value=0, step=10),
        "count_simulated": setting_input(cols[3], study, "count_simulated",
                                         f"{key}_count_simulated"),
    }  # fmt: skip
    rule = st.text_input(
        label("stopping_rule"),
        value=study.stopping_rule,
        key=f"{key}_stop",
        help=help_text("stopping_rule"),
    )
    sequential = sequential_inputs(study, key)
    internal = internal_pilot_inputs(study, key)
    st.caption(plan_status(plan))
    return changes | {"stopping_rule": rule, "sequential": sequential, "internal_pilot": internal}


def sequential_inputs(study: Study, key: str) -> dict[str, Any] | None:
    """The group-sequential plan: looks, unit, alpha spending, optional futility (checked by
    the service with `check_sequential_plan`, which names a bad field)."""
    now = study.sequential or {}
    cols = st.columns([3, 1, 2, 2, 1, 1])
    looks = cols[0].text_input(
        "Group-sequential looks (cumulative, e.g. 30, 60, 90, 120; empty: none)",
        value=", ".join(str(n) for n in now.get("looks", [])),
        key=f"{key}_looks",
        help="At each look the verdict is read against Lan-DeMets boundaries; validated only "
        "where every boundary is crossed.",
    )
    unit = cols[1].selectbox(
        "Looks by", LOOK_UNITS, index=LOOK_UNITS.index(now.get("unit", "pairs")), key=f"{key}_unit"
    )
    spending = cols[2].selectbox(
        "Alpha spending",
        SPENDING_FAMILIES,
        index=SPENDING_FAMILIES.index(now.get("alpha_spending", OBRIEN_FLEMING)),
        key=f"{key}_spending",
    )
    choices = ("none", *SPENDING_FAMILIES)
    futility = cols[3].selectbox(
        "Futility (beta spending)",
        choices,
        index=choices.index(now.get("futility") or "none"),
        key=f"{key}_futility",
    )
    beta = cols[4].number_input(
        "Beta", value=float(now.get("beta", 0.2)), min_value=0.01, max_value=0.49,
        step=0.05, key=f"{key}_beta",
    )  # fmt: skip
    binding = cols[5].toggle("Binding", value=bool(now.get("binding")), key=f"{key}_binding")
    if not looks.strip():
        return None
    return {
        "looks": [int(n) if n.strip().isdigit() else n.strip() for n in looks.split(",")],
        "unit": unit,
        "alpha_spending": spending,
        "futility": None if futility == "none" else futility,
        "beta": float(beta),
        "binding": bool(binding),
    }


def internal_pilot_inputs(study: Study, key: str) -> dict[str, Any] | None:
    """The internal pilot: the first stage's pairs (0: none) and the tie questions' TOST level
    after the look (checked by the service with `check_internal_pilot`)."""
    now = study.internal_pilot or {}
    cols = st.columns(2)
    first = cols[0].number_input(
        "Internal pilot: first-stage pairs (0: none)",
        value=int(now.get("first_stage_pairs") or 0),
        min_value=0,
        step=10,
        key=f"{key}_first_stage",
        help="A first stage, then one sample-size re-estimation look (`python -m analysis size "
        "PILOT --first-stage ...`).",
    )
    tie_alpha = cols[1].number_input(
        "Tie questions' TOST level after the look",
        value=float(now.get("tie_alpha", DEFAULT_TIE_ALPHA)),
        min_value=0.001,
        max_value=0.499,
        step=0.01,
        format="%.3f",
        key=f"{key}_tie_alpha",
        help="Re-estimating the size can raise an equivalence test's level (Friede & Kieser, "
        "2003); the superiority test keeps alpha.",
    )
    if not first:
        return None
    return {"first_stage_pairs": int(first), "tie_alpha": float(tie_alpha)}


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
