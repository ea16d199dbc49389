"""Admin: plan the work (fixed plan), open the pool, reassign, and see the plan."""

from __future__ import annotations

from functools import partial
from typing import Any

import pandas as pd
import streamlit as st

from annotate.app.admin.admin_common import (
    act,
    actor_id,
    ask_confirmation,
    ask_settings_change,
    choose_study,
    draw_pending,
    fresh_for,
    link_base,
    notify,
    pool_order_select,
    show_notice,
)
from annotate.app.downloads import offer_download
from annotate.app.session import engine
from annotate.app.study_picker import page_title
from annotate.db.tables import Study
from annotate.domain.assignment import ASSIGNMENT_COLUMNS, PairSelection
from annotate.domain.exports.spreadsheet import spreadsheet_csv
from annotate.services.admin import data, people, plans, studies
from annotate.vocabulary import Role


def draw() -> None:
    name = choose_study()
    page_title("Assignments", name)
    draw_pending()
    show_notice()
    if name is None:
        return
    study_rows = act(lambda: studies.list_studies(engine(), actor_id())) or []
    study = next(s for s in study_rows if s.name == name)
    account_rows = act(lambda: people.list_accounts(engine(), actor_id())) or []
    annotators = [a.name for a in account_rows if a.active and a.role == Role.ANNOTATOR]
    inactive = {a.name for a in account_rows if not a.active}
    simulated = {a.name for a in account_rows if a.simulated}
    givers = [  # drop-outs are often inactive; an adjudicator's work is released, not handed on
        a.name for a in account_rows if a.role in (Role.ANNOTATOR, Role.ADJUDICATOR)
    ]
    plan_tab, pool_tab, reassign_tab, list_tab = st.tabs(
        ["Fixed plan", "Open pool", "Reassign", "The plan"]
    )
    with plan_tab:
        _draw_plan(study, annotators, simulated)
    with pool_tab:
        _draw_pool(study)
    with reassign_tab:
        _draw_reassign(study, givers, annotators, inactive)
    with list_tab:
        _draw_rows(study)


def _draw_plan(study: Study, annotators: list[str], simulated: set[str]) -> None:
    st.caption(
        "Every chosen pair goes to exactly k different annotators, and loads differ by at most "
        "one pair. Run it again to extend the plan: pairs that already have k annotators are "
        "left alone, new pairs go to the least-loaded people first, and finished work is never "
        "touched. Rebalancing also moves untouched pending pairs to people with fewer."
    )
    domains = act(lambda: data.study_domains(engine(), actor_id(), study.name)) or []
    plan_keys = ("plan_people", "plan_domains", "plan_n", "plan_k", "plan_rebalance")
    fresh_for("plan", (study.name, study.overlap), *plan_keys)
    with st.form("plan"):
        people = st.multiselect(
            "Annotators (choose them: none is preselected)",
            annotators,
            default=[],
            format_func=lambda n: f"{n} (simulated)" if n in simulated else n,
            key="plan_people",
        )
        chosen_domains = st.multiselect("Domains (none: all)", domains, key="plan_domains")
        left, middle = st.columns(2)
        sample = left.number_input(
            "Random sample per domain (0: every pair)", min_value=0, value=0, step=1, key="plan_n"
        )
        k = middle.number_input(
            "Annotators per pair (k)", min_value=1, value=study.overlap, step=1, key="plan_k"
        )
        rebalance = st.checkbox("Rebalance pending work onto newcomers", key="plan_rebalance")
        submitted = st.form_submit_button("Assign", type="primary", icon=":material/group_add:")
    if submitted:
        plan: dict[str, Any] = {
            "annotators": people,
            "selection": PairSelection(tuple(chosen_domains), int(sample) or None),
            "per_pair": int(k),
            "rebalance": rebalance,
        }
        if not people:
            st.error("Choose the annotators of the plan.")
        elif int(k) != study.overlap:
            change = {"overlap": (study.overlap, int(k))}
            ask_confirmation("plan", study.name, change, partial(_plan, study.name, plan))
        else:
            message = act(lambda: _plan(study.name, plan))
            if message is not None:
                notify(message)
                st.rerun()


def _plan(study: str, held: dict[str, Any]) -> str:
    """Make the plan; what to say about it."""
    result = plans.make_plan(engine(), actor_id(), study=study, **held)
    k = held["per_pair"]
    loads = list(result.loads.values())
    message = f"{result.total} new assignments"
    if result.moved:
        message += f" ({result.moved} moved by rebalancing)"
    if loads:
        message += f"; loads now {min(loads)}-{max(loads)} pairs per person"
    if result.short:
        message += f". {len(result.short)} pair(s) have fewer than {int(k)}: too few people"
    return message + "."


def _draw_pool(study: Study) -> None:
    st.caption(
        "In an open pool, annotators of the study (and crowd participants, when enrolment is "
        "open) pull one pair at a time: a pair that still needs ratings, reserved for them for "
        "a while. A pair is never rated by more than k people; reservations that run out go "
        "back to the pool."
    )
    stored = (
        study.pool_open,
        study.enrolment_open,
        study.reservation_minutes,
        study.pool_quota,
        study.pool_order,
    )
    pool_keys = ("pool_open", "pool_enrol", "pool_min", "pool_quota", "pool_order")
    fresh_for("pool", (study.name, stored), *pool_keys)
    with st.form("pool"):
        left, middle, right = st.columns(3)
        pool = left.toggle("Open pool", value=study.pool_open, key="pool_open")
        enrolment = left.toggle("Crowd enrolment", value=study.enrolment_open, key="pool_enrol")
        minutes = middle.number_input(
            "Reservation (minutes)", min_value=1, value=study.reservation_minutes, key="pool_min"
        )
        quota = right.number_input(
            "Pairs per person (0: no limit)",
            min_value=0,
            value=study.pool_quota or 0,
            key="pool_quota",
        )
        order = pool_order_select(middle, study, "pool_order")
        saved = st.form_submit_button("Save pool settings", type="primary")
    if saved:
        changes = {
            "pool_open": pool,
            "enrolment_open": enrolment,
            "reservation_minutes": int(minutes),
            "pool_quota": int(quota) or None,
            "pool_order": order,
        }
        ask_settings_change("pool", study.name, changes, "Pool settings saved.")
    if study.enrolment_open:
        st.markdown("**Crowd enrolment link:**")
        st.code(
            studies.study_enrolment_link(engine(), actor_id(), study.name, link_base()),
            language=None,
        )


def _draw_reassign(
    study: Study, givers: list[str], annotators: list[str], inactive: set[str]
) -> None:
    st.caption(
        "Take an annotator's unfinished pairs (pending or skipped) and give them to others, "
        "least-loaded first, never to someone who already had the pair. Finished work stays."
    )
    with st.form("reassign"):
        giver = st.selectbox(
            "From",
            givers,
            format_func=lambda n: f"{n} (deactivated)" if n in inactive else n,
            key="reassign_from",
        )
        receivers = st.multiselect(
            "To (none: everyone else in the study; in an open pool: back to the pool)",
            annotators,
            key="reassign_to",
        )
        submitted = st.form_submit_button("Reassign", type="primary", icon=":material/swap_horiz:")
    if not submitted or giver is None:
        return
    result = act(
        lambda: plans.reassign_work(
            engine(), actor_id(), study=study.name, giver=giver, receivers=receivers or None
        )
    )
    if result is None:
        return
    handed = ", ".join(f"{n} to {name}" for name, n in sorted(result.handed.items()))
    message = f"Released {result.released} unfinished pair(s) of {giver}"
    message += f": {handed}" if handed else ""
    if result.returned_to_pool:
        message += f"; {result.returned_to_pool} back to the pool"
    if result.unplaced:
        message += f"; no one could take {len(result.unplaced)}"
    notify(message + ".")
    st.rerun()


def _draw_rows(study: Study) -> None:
    rows = act(lambda: plans.assignment_rows(engine(), actor_id(), study.name)) or []
    frame = pd.DataFrame([r.values() for r in rows], columns=list(ASSIGNMENT_COLUMNS))
    offer_download(
        st,
        "assignments",
        "Download as CSV",
        partial(spreadsheet_csv, frame),
        file_name=f"{study.name}_assignments.csv",
        mime="text/csv",
        key="rows_download",
    )
    counts = frame["status"].value_counts()
    st.caption(
        f"{len(frame)} assignments: "
        + ", ".join(f"{counts.get(s, 0)} {s}" for s in ("pending", "done", "skipped", "released"))
    )
    status = st.segmented_control(
        "Show", ["all", "pending", "done", "skipped", "released"], default="all", key="rows_status"
    )
    if status and status != "all":
        frame = frame[frame["status"] == status]
    st.dataframe(frame, hide_index=True, width="stretch", height=420)


if __name__ == "__main__":
    draw()
