"""Admin: flagged and skipped pairs handled. The queue (each item with the annotator's reason,
comment and scores), the pair's text, and the actions: resolve with a note, send to
adjudication, leave the pair out of the analysis with a reason, take it back."""

from __future__ import annotations

from typing import Any

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
    wide_table,
)
from annotate.app.participant.chat import draw_conversation
from annotate.app.safe_text import inert_markdown, plain_text
from annotate.app.session import engine
from annotate.app.study_picker import page_title
from annotate.domain.operations.flags import UNHANDLED, FlagItem
from annotate.services.admin import flags
from annotate.vocabulary import FlagAction

ACTIONS = {
    "Resolve (keep the ratings)": FlagAction.RESOLVED,
    "Send to adjudication": FlagAction.ADJUDICATION,
}


def draw() -> None:
    study = choose_study()
    page_title("Flags and skips", study)
    draw_pending()
    show_notice()
    if study is None:
        return
    open_only = st.toggle("Only items nobody has handled yet", value=True, key="flags_open")
    items = act(lambda: flags.flag_queue(engine(), actor_id(), study, open_only)) or []
    if not items:
        st.info("No flagged or skipped pair to handle.", icon=":material/task_alt:")
    else:
        wide_table(
            _queue_table(items),
            pinned="item",
            texts=("reason", "comment", "scores chosen/rejected"),
            narrow=("domain",),
        )
        labels = {i.assignment_id: _label(i) for i in items}
        chosen = st.selectbox(
            "Open an item", list(labels), format_func=labels.__getitem__, key="flags_item"
        )
        item = next((i for i in items if i.assignment_id == chosen), None)
        if item is not None:
            _draw_item(study, item)
    _draw_exclusions(study)


def _label(item: FlagItem) -> str:
    return f"#{item.assignment_id} · pair {item.record_id} · {item.kind} by {item.annotator}"


def _score_text(scores: dict[str, dict[str, int]]) -> str:
    if not scores:
        return ""
    chosen, rejected = scores.get("chosen", {}), scores.get("rejected", {})
    asked = {**chosen, **rejected}  # the study's question keys, in the order stored
    return " · ".join(f"{d[:4]} {chosen.get(d, '-')}/{rejected.get(d, '-')}" for d in asked)


def _queue_table(items: list[FlagItem]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "item": i.assignment_id,
                "pair": i.record_id,
                "annotator": i.annotator,
                "kind": i.kind,
                "handled": i.resolution.action if i.resolution else "",
                "excluded": i.excluded,
                "reason": i.reason,
                "comment": i.comment,
                "scores chosen/rejected": _score_text(i.scores),
                "domain": i.domain,
            }
            for i in items
        ]
    )


def _draw_item(study: str, item: FlagItem) -> None:
    text = act(lambda: flags.pair_text(engine(), actor_id(), study, item.record_id))
    if text is None:
        return
    with st.container(border=True):
        st.markdown(f"**{item.kind.title()} by {plain_text(item.annotator)}**: ")
        st.text(item.reason or "(no reason given)")
        if item.comment:
            st.caption("Comment")
            st.text(item.comment)
        if item.resolution:
            st.caption(
                f"Handled: {item.resolution.action} by {item.resolution.by}, "
                f"{item.resolution.at:%Y-%m-%d %H:%M}"
            )
            st.text(item.resolution.note)
            if item.resolution.action == FlagAction.ADJUDICATION:
                st.page_link(
                    "admin/admin_adjudication.py",
                    label="In the adjudication queue: send it to an adjudicator there",
                    icon=":material/gavel:",
                )
        if text.conversation:
            draw_conversation(text.conversation)
        else:
            st.markdown("**Question**")
            st.markdown(inert_markdown(text.question))
        left, right = st.columns(2)
        left.markdown("**Chosen** (the benchmark's label)")
        left.markdown(inert_markdown(text.chosen))
        right.markdown("**Rejected**")
        right.markdown(inert_markdown(text.rejected))
        _draw_spans(left, item, "chosen", text.chosen)
        _draw_spans(right, item, "rejected", text.rejected)
        if text.narrative or text.profile:  # a plain preference set has neither
            with st.expander("Narrative and profile"):
                st.markdown(inert_markdown(text.narrative))
                st.json(text.profile, expanded=False)
        _draw_actions(study, item)


def _draw_spans(column: Any, item: FlagItem, response: str, stored: str) -> None:
    """The spans the annotator marked in one response: each label's words and the stored
    text it covers, as plain text."""
    marks = [m for m in item.spans if m.response == response]
    if not marks:
        return
    with column.container(border=True, key=f"flag_spans_{response}"):
        st.caption(f"Spans marked by the annotator ({len(marks)})")
        for mark in marks:
            st.text(f"{mark.label}: “{stored[mark.start : mark.end]}”")


def _draw_actions(study: str, item: FlagItem) -> None:
    fresh_for("flag", (study, item.assignment_id), "flag_action", "flag_note", "exclude_why")
    actions = [str(a) for a in ACTIONS.values()]
    current = actions.index(item.resolution.action) if item.resolution else 0
    with st.form(f"flag_action_{item.assignment_id}"):
        action = st.radio(
            "Action", list(ACTIONS), index=current, horizontal=True, key="flag_action"
        )
        note = st.text_area("Note (what was decided, and why)", key="flag_note", height=68)
        saved = st.form_submit_button("Save", type="primary", icon=":material/check:")
    if saved:
        done(
            lambda: flags.resolve_flag(
                engine(),
                actor_id(),
                study=study,
                assignment_id=item.assignment_id,
                action=ACTIONS[action],
                note=note,
                replaces=item.resolution.action if item.resolution else UNHANDLED,
            ),
            message=f"Item #{item.assignment_id}: {ACTIONS[action]}.",
        )
    if item.excluded:
        return
    with st.form(f"exclude_{item.record_id}"):
        reason = st.text_input("Reason to leave the pair out of the analysis", key="exclude_why")
        out = st.form_submit_button("Exclude the pair", icon=":material/block:")
    if out:
        done(
            lambda: flags.exclude_pair(
                engine(), actor_id(), study=study, record_id=item.record_id, reason=reason
            ),
            message=f"Pair {item.record_id} is left out of the analysis.",
        )


def _draw_exclusions(study: str) -> None:
    rows = act(lambda: flags.exclusions(engine(), actor_id(), study)) or []
    st.subheader(f"Pairs left out of the analysis ({len(rows)})")
    if not rows:
        st.caption("None: every pair counts.")
        return
    st.dataframe(
        pd.DataFrame(
            [{"pair": e.record_id, "reason": e.reason, "by": e.by, "when": e.at} for e in rows]
        ),
        hide_index=True,
        width="stretch",
    )
    left, right = st.columns([2, 1])
    pair = left.selectbox("Take back into the analysis", [e.record_id for e in rows], key="restore")
    if right.button("Restore", icon=":material/undo:", key="restore_button") and pair:
        done(
            lambda: flags.restore_pair(engine(), actor_id(), study=study, record_id=pair),
            message=f"Pair {pair} is back in the analysis.",
        )


if __name__ == "__main__":
    draw()
