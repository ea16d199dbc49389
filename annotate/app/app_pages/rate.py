"""The annotator's page: one blinded pair, scored on four dimensions per response."""

from __future__ import annotations

import time

import streamlit as st

from annotate.app.session import engine
from annotate.db import read_session
from annotate.dimensions import DIMENSIONS, SIDES
from annotate.queue import (
    PROFILE_PREVIEW,
    PairView,
    QueueEntry,
    completion_codes,
    next_open,
    next_open_after,
    pair_view,
    queue,
    step,
)
from annotate.ratings import RatingError, missing_scores, skip_pair, submit_rating
from annotate.safe_text import inert_markdown

CURRENT = "current_assignment"
SHOWN_AT = "shown_at"
NOTICE = "notice"


def draw() -> None:
    account_id = st.session_state["account_id"]
    with read_session(engine()) as session:
        entries = queue(session, account_id)
    if not entries:
        st.info("No pairs have been assigned to you yet. Please come back later.")
        return
    current = _current_entry(entries)
    if current is None:
        _draw_done(account_id, entries)
        return
    with read_session(engine()) as session:
        view = pair_view(session, account_id, current.assignment_id)
    st.session_state.setdefault(SHOWN_AT, {}).setdefault(view.assignment_id, time.time())
    _draw_progress(view)
    _draw_notice()
    _draw_guidelines(view)
    _draw_context(view)
    _draw_form(account_id, view, entries)
    _draw_navigation(account_id, view, entries)


def _current_entry(entries: list[QueueEntry]) -> QueueEntry | None:
    """The pair being looked at: the one navigated to, else where the annotator left off."""
    wanted = st.session_state.get(CURRENT)
    chosen = next((e for e in entries if e.assignment_id == wanted), None)
    return chosen or next_open(entries)


def _go_to(entry: QueueEntry | None) -> None:
    st.session_state[CURRENT] = entry.assignment_id if entry else None


def _draw_notice() -> None:
    notice = st.session_state.pop(NOTICE, None)
    if notice:
        st.success(notice, icon=":material/check_circle:")


def _draw_progress(view: PairView) -> None:
    st.markdown(f"**Pair {view.number} of {view.total}** · {view.done} rated")
    st.progress(view.done / view.total if view.total else 0.0)
    if view.status == "done":
        st.info("You have rated this pair already. Change any score and submit to revise it.")
    elif view.status == "skipped":
        st.warning(f"You skipped this pair ({view.skip_reason}). You can still rate it.")


def _draw_guidelines(view: PairView) -> None:
    scale = view.scale
    assert scale is not None
    with st.expander("Guidelines: how to rate", icon=":material/menu_book:"):
        if scale.guidelines:
            st.markdown(inert_markdown(scale.guidelines))
        st.markdown(
            "Read the user's question, profile, narrative and rubric, then score **each** "
            "response on each dimension. Judge the two responses independently; they may "
            "deserve the same score."
        )
        for dim in DIMENSIONS:
            st.markdown(f"**{scale.dimension_labels[dim]}**: {scale.dimension_definitions[dim]}")
        anchors = " · ".join(f"{k} = {v}" for k, v in sorted(scale.anchors.items()))
        st.markdown(f"Scale: {anchors}")


def _draw_context(view: PairView) -> None:
    st.caption(f"Forum category: {inert_markdown(view.category)}")
    st.subheader("The user's question")
    st.markdown(inert_markdown(view.question))
    left, right = st.columns(2, gap="large")
    with left:
        st.markdown("**What the user told us** (their own explanation)")
        st.markdown(inert_markdown(view.narrative))
        st.markdown(f"**What this user expects** (rubric, {len(view.rubric_aspects)} aspects)")
        for number, aspect in enumerate(view.rubric_aspects, 1):
            st.markdown(
                f"{number}. **{inert_markdown(aspect.get('aspect', ''))}**  \n"
                f"   *Evidence:* {inert_markdown(aspect.get('evidence', ''))}  \n"
                f"   *Why it matters:* {inert_markdown(aspect.get('reason', ''))}"
            )
    with right:
        st.markdown(f"**The user's earlier posts** ({len(view.profile)})")
        with st.container(height=420):
            _draw_profile_items(view.profile[:PROFILE_PREVIEW])
            if len(view.profile) > PROFILE_PREVIEW:
                with st.expander(f"Show {len(view.profile) - PROFILE_PREVIEW} more posts"):
                    _draw_profile_items(view.profile[PROFILE_PREVIEW:])


def _draw_profile_items(items: list[dict]) -> None:
    for item in items:
        st.markdown(
            f"- *{inert_markdown(str(item.get('category', '')))}*: "
            f"{inert_markdown(str(item.get('text', '')))}"
        )


def _score_key(dim: str, side: str, assignment_id: int) -> str:
    return f"{dim}_{side}_{assignment_id}"


def _draw_form(account_id: int, view: PairView, entries: list[QueueEntry]) -> None:
    scale = view.scale
    assert scale is not None
    options = list(range(scale.minimum, scale.maximum + 1))
    with st.form(f"pair_{view.assignment_id}", border=False):
        for side, column in zip(SIDES, st.columns(2, gap="large"), strict=True):
            with column, st.container(border=True, height="stretch"):
                st.subheader(f"Response {side}")
                st.markdown(inert_markdown(view.responses[side]))
        st.markdown("#### Your scores")
        for dim in DIMENSIONS:
            for side, column in zip(SIDES, st.columns(2, gap="large"), strict=True):
                given = view.scores.get(side, {}).get(dim)
                column.radio(
                    f"Response {side}: {scale.dimension_labels[dim]}",
                    options,
                    index=options.index(given) if given in options else None,
                    format_func=lambda v: f"{v} · {scale.anchors.get(v, '')}",
                    horizontal=True,
                    key=_score_key(dim, side, view.assignment_id),
                    help=scale.dimension_definitions[dim],
                )
        comment = st.text_area(
            "Comment (optional)", value=view.comment, key=f"comment_{view.assignment_id}"
        )
        flag_reason = st.text_input(
            "Flag this pair: describe the problem (optional)",
            value=view.flag_reason,
            key=f"flag_{view.assignment_id}",
            help="For broken, offensive or impossible-to-judge pairs. Flagged pairs still count.",
        )
        submitted = st.form_submit_button(
            "Submit and go to the next pair",
            type="primary",
            shortcut="Ctrl+Enter",
            icon=":material/send:",
        )
    if submitted:
        _submit(account_id, view, entries, comment, flag_reason)


def _submit(
    account_id: int, view: PairView, entries: list[QueueEntry], comment: str, flag_reason: str
) -> None:
    scores = {
        side: {
            dim: st.session_state.get(_score_key(dim, side, view.assignment_id))
            for dim in DIMENSIONS
        }
        for side in SIDES
    }
    missing = missing_scores(scores)
    if missing:
        st.error("Please give every score before submitting. Missing: " + "; ".join(missing))
        return
    seconds = time.time() - st.session_state[SHOWN_AT].get(view.assignment_id, time.time())
    try:
        result = submit_rating(
            engine(),
            annotator_id=account_id,
            assignment_id=view.assignment_id,
            scores=scores,
            seconds=round(seconds, 3),
            comment=comment.strip(),
            flag_reason=flag_reason.strip(),
        )
    except RatingError as error:
        st.error(str(error))
        return
    st.session_state[SHOWN_AT].pop(view.assignment_id, None)
    st.session_state[NOTICE] = {
        "saved": f"Pair {view.number} saved.",
        "revised": f"Pair {view.number} revised; your earlier scores are kept in its history.",
        "unchanged": f"Pair {view.number} was already saved with these scores.",
    }[result.status]
    refreshed = [
        e
        if e.assignment_id != view.assignment_id
        else QueueEntry(e.assignment_id, e.number, "done")
        for e in entries
    ]
    _go_to(next_open_after(refreshed, view.assignment_id))
    st.rerun()


def _draw_navigation(account_id: int, view: PairView, entries: list[QueueEntry]) -> None:
    back, forward, skip, jump = st.columns([1, 1, 1, 3], vertical_alignment="bottom")
    previous_entry = step(entries, view.assignment_id, -1)
    next_entry = step(entries, view.assignment_id, +1)
    if back.button(
        "Previous pair",
        icon=":material/arrow_back:",
        shortcut="Alt+P",
        disabled=previous_entry is None,
        key="nav_previous",
    ):
        _go_to(previous_entry)
        st.rerun()
    if forward.button(
        "Next pair",
        icon=":material/arrow_forward:",
        shortcut="Alt+N",
        disabled=next_entry is None,
        key="nav_next",
    ):
        _go_to(next_entry)
        st.rerun()
    with skip.popover(
        "Skip this pair", icon=":material/skip_next:", disabled=view.status == "done"
    ):
        reason = st.text_input("Why do you skip it?", key=f"skip_reason_{view.assignment_id}")
        if st.button("Skip", key=f"skip_{view.assignment_id}"):
            try:
                skip_pair(
                    engine(),
                    annotator_id=account_id,
                    assignment_id=view.assignment_id,
                    reason=reason,
                )
            except RatingError as error:
                st.error(str(error))
            else:
                st.session_state[NOTICE] = f"Pair {view.number} skipped."
                skipped = [
                    e
                    if e.assignment_id != view.assignment_id
                    else QueueEntry(e.assignment_id, e.number, "skipped")
                    for e in entries
                ]
                _go_to(next_open_after(skipped, view.assignment_id))
                st.rerun()
    labels = {e.assignment_id: f"Pair {e.number} ({_STATUS_WORDS[e.status]})" for e in entries}
    target = jump.selectbox(
        "Go to pair",
        list(labels),
        index=view.number - 1,
        format_func=labels.get,
        key=f"nav_jump_{view.assignment_id}",
    )
    if target != view.assignment_id:
        _go_to(next(e for e in entries if e.assignment_id == target))
        st.rerun()


_STATUS_WORDS = {"pending": "to do", "done": "rated", "skipped": "skipped"}


def _draw_done(account_id: int, entries: list[QueueEntry]) -> None:
    st.title("All done, thank you!")
    done = sum(e.status == "done" for e in entries)
    skipped = sum(e.status == "skipped" for e in entries)
    st.markdown(f"You rated **{done}** pairs" + (f" and skipped {skipped}." if skipped else "."))
    with read_session(engine()) as session:
        codes = completion_codes(session, account_id)
    for code in codes:
        st.success(f"Your completion code: **{code}**")
        st.code(code, language=None)
    if st.button("Review my ratings", icon=":material/history:"):
        _go_to(entries[0])
        st.rerun()
