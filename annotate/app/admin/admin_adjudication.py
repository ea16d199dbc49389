"""Admin: the adjudication queue. The study's disagreement threshold, the pairs beyond it or
flagged for adjudication (why, the annotators' rubric differences, their adjudicators), and
sending a pair to an adjudicator who never had it; the adjudicator rates it blind on the
ordinary rating page."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from annotate.app.admin.admin_common import (
    act,
    actor_id,
    choose_study,
    done,
    draw_pending,
    fresh_for,
    show_notice,
)
from annotate.app.safe_text import inert_markdown
from annotate.app.session import engine
from annotate.app.study_picker import page_title
from annotate.domain.operations.adjudication import Candidate
from annotate.services.admin import adjudication
from annotate.vocabulary import AssignmentStatus

RELEASED = AssignmentStatus.RELEASED
STATUS_WORDS = {"pending": "to do", "done": "rated", "skipped": "skipped"}


def draw() -> None:
    study = choose_study()
    page_title("Adjudication", study)
    draw_pending()
    show_notice()
    if study is None:
        return
    found = act(lambda: adjudication.queue(engine(), actor_id(), study))
    if found is None:
        return
    threshold, queue = found
    _draw_threshold(study, threshold)
    st.subheader(f"Pairs to adjudicate ({len(queue)})")
    if not queue:
        st.info("No pair to adjudicate.", icon=":material/task_alt:")
        return
    st.dataframe(_queue_table(queue), hide_index=True, width="stretch")
    _draw_send(study, queue)


def _draw_threshold(study: str, threshold: float | None) -> None:
    fresh_for("threshold", (study, threshold), "adj_threshold_on", "adj_threshold")
    with st.form("adjudication_threshold"):
        st.caption(
            "A pair goes to adjudication when the spread (largest minus smallest) of its "
            "annotators' chosen − rejected rubric-alignment differences reaches the threshold; "
            "pairs whose flag was sent to adjudication are always in the queue."
        )
        left, right = st.columns([1, 2])
        on = left.toggle("Threshold on", value=threshold is not None, key="adj_threshold_on")
        value = right.number_input(
            "Threshold (spread of rubric differences)",
            min_value=0.0,
            value=2.0 if threshold is None else float(threshold),
            step=1.0,
            key="adj_threshold",
        )
        saved = st.form_submit_button("Save threshold", icon=":material/check:")
    if saved:
        chosen = float(value) if on else None
        shown = "off (flags only)" if chosen is None else f"{chosen:g}"
        done(
            lambda: adjudication.set_threshold(engine(), actor_id(), study=study, threshold=chosen),
            message=f"Adjudication threshold: {shown}.",
        )


def _queue_table(queue: list[Candidate]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "pair": c.record_id,
                "domain": c.domain,
                "rubric differences": " ".join(f"{d:+d}" for d in c.differences),
                "spread": c.spread,
                "why": c.reasons,
                "adjudicators": ", ".join(f"{a.name} ({a.status})" for a in c.adjudicators),
                "excluded": c.excluded,
            }
            for c in queue
        ]
    )


def _candidate(queue: list[Candidate], pair: str) -> Candidate:
    return next(c for c in queue if c.record_id == pair)


def _draw_send(study: str, queue: list[Candidate]) -> None:
    st.subheader("Send a pair to an adjudicator")
    left, right = st.columns(2)
    pair = left.selectbox("Pair", [c.record_id for c in queue], key="adj_pair")
    if pair is None:
        return
    live = [a for a in _candidate(queue, pair).adjudicators if a.status != RELEASED]
    if live:  # one adjudication per pair at a time (issue 34.5: it said nobody could take it)
        names = ", ".join(
            f"{inert_markdown(a.name)} ({STATUS_WORDS.get(a.status, a.status)})" for a in live
        )
        right.info(
            f"Pair {inert_markdown(pair)} has its adjudicator: {names}. A pair goes to one "
            "adjudicator at a time.",
            icon=":material/gavel:",
        )
        return
    people = act(lambda: adjudication.eligible(engine(), actor_id(), study, pair)) or []
    if not people:
        right.info(
            "No adjudicator can take this pair: give the adjudicator role to an expert's "
            "account on the Annotators page (an adjudicator must never have had the pair)."
        )
        return
    fresh_for("adjudicator", (study, pair), "adj_who")
    who = right.selectbox(
        "Adjudicator (adjudicator role, never had this pair)", people, key="adj_who"
    )
    if st.button("Send to the adjudicator", type="primary", icon=":material/gavel:") and who:
        done(
            lambda: adjudication.send(
                engine(), actor_id(), study=study, record_id=pair, adjudicator=who
            ),
            message=f"Pair {inert_markdown(pair)} sent to {inert_markdown(who)}: it is at the "
            "end of their queue.",
        )


if __name__ == "__main__":
    draw()
