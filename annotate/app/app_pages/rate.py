"""The annotator's page: one blinded pair, scored on four dimensions per response."""

from __future__ import annotations

import time

import streamlit as st

from annotate.app.safe_text import inert_markdown
from annotate.app.session import engine
from annotate.db import read_session
from annotate.domain.queue import (
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
from annotate.domain.ratings import RatingError, missing_scores
from annotate.services.rating import skip_pair, submit_rating
from annotate.services.work import pull_for_annotator
from annotate.vocabulary import DIMENSIONS, SIDES

CURRENT = "current_assignment"
SHOWN_AT = "shown_at"
NOTICE = "notice"
SUBMIT_ERROR = "submit_error"
LONG_RESPONSE_WORDS = 400
LONG_RESPONSE_HEIGHT = 720  # pixels


def draw() -> None:
    account_id = st.session_state["account_id"]
    with read_session(engine()) as session:
        entries = queue(session, account_id)
    if next_open(entries) is None and pull_for_annotator(engine(), account_id) is not None:
        with read_session(engine()) as session:
            entries = queue(session, account_id)  # an open pool gave the next pair
    if not entries:
        st.info("No pairs have been assigned to you yet. Please come back later.")
        return
    current = _current_entry(entries)
    if current is None:
        _draw_notice()  # the last pair's "saved"
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
        reason = inert_markdown(view.skip_reason)  # typed by the annotator: text, not markup
        st.warning(f"You skipped this pair ({reason}). You can still rate it.")


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
            label, definition = scale.dimension_labels[dim], scale.dimension_definitions[dim]
            st.markdown(f"**{inert_markdown(label)}**: {inert_markdown(definition)}")
        anchors = " · ".join(f"{k} = {inert_markdown(v)}" for k, v in sorted(scale.anchors.items()))
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
    """All posts as one Markdown list: one element, not one per post (profiles run to 100+)."""
    if items:
        st.markdown(
            "\n".join(
                f"- *{inert_markdown(str(item.get('category', '')))}*: "
                # continuation lines stay inside their list item
                + inert_markdown(str(item.get("text", ""))).replace("\n", "\n  ")
                for item in items
            )
        )


def _score_key(dim: str, side: str, assignment_id: int) -> str:
    return f"{dim}_{side}_{assignment_id}"


def _draw_form(account_id: int, view: PairView, entries: list[QueueEntry]) -> None:
    scale = view.scale
    assert scale is not None
    options = list(range(scale.minimum, scale.maximum + 1))
    # A very long response scrolls inside its box, so the scores stay within reach and the
    # other box is not stretched into a tall empty frame.
    longest = max(len(text.split()) for text in view.responses.values())
    box_height = LONG_RESPONSE_HEIGHT if longest > LONG_RESPONSE_WORDS else "stretch"
    with st.form(f"pair_{view.assignment_id}", border=False):
        for side, column in zip(SIDES, st.columns(2, gap="large"), strict=True):
            with column, st.container(border=True, height=box_height):
                st.subheader(f"Response {side}")
                st.markdown(inert_markdown(view.responses[side]))
        st.markdown("#### Your scores")
        for dim in DIMENSIONS:
            for side, column in zip(SIDES, st.columns(2, gap="large"), strict=True):
                given = view.scores.get(side, {}).get(dim)
                column.radio(
                    f"Response {side}: {inert_markdown(scale.dimension_labels[dim])}",
                    options,
                    index=options.index(given) if given in options else None,
                    format_func=lambda v: f"{v} · {inert_markdown(scale.anchors.get(v, ''))}",
                    horizontal=True,
                    key=_score_key(dim, side, view.assignment_id),
                    help=inert_markdown(scale.dimension_definitions[dim]),
                )
        st.text_area("Comment (optional)", value=view.comment, key=f"comment_{view.assignment_id}")
        st.text_input(
            "Flag this pair: describe the problem (optional)",
            value=view.flag_reason,
            key=f"flag_{view.assignment_id}",
            help="For broken, offensive or impossible-to-judge pairs. Flagged pairs still count.",
        )
        # Saved in a callback, before the run that follows the click: that run draws the next
        # pair at once (no second run to draw the old pair and then rerun).
        st.form_submit_button(
            "Submit and go to the next pair",
            type="primary",
            # Not Ctrl+Enter: a focused radio (the score just clicked) swallows any Enter.
            # Ctrl+S (Cmd+S on a Mac) works from a radio, a text box or nowhere.
            shortcut="Ctrl+S",
            icon=":material/send:",
            on_click=_submit,
            args=(account_id, view, entries),
        )
    failed = st.session_state.pop(SUBMIT_ERROR, None)
    if failed and failed[0] == view.assignment_id:
        st.error(failed[1])


def _submit(account_id: int, view: PairView, entries: list[QueueEntry]) -> None:
    """Form callback: save the pair's scores, or leave an error for the page to show."""
    comment = st.session_state.get(f"comment_{view.assignment_id}") or ""
    flag_reason = st.session_state.get(f"flag_{view.assignment_id}") or ""
    scores = {
        side: {
            dim: st.session_state.get(_score_key(dim, side, view.assignment_id))
            for dim in DIMENSIONS
        }
        for side in SIDES
    }
    missing = missing_scores(scores)
    if missing:
        st.session_state[SUBMIT_ERROR] = (
            view.assignment_id,
            "Please give every score before submitting. Missing:\n"
            + "\n".join(f"- {name}" for name in missing),
        )
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
        st.session_state[SUBMIT_ERROR] = (view.assignment_id, str(error))
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


def _draw_navigation(account_id: int, view: PairView, entries: list[QueueEntry]) -> None:
    back, forward, skip, jump = st.columns([1, 1, 1, 3], vertical_alignment="bottom")
    previous_entry = step(entries, view.assignment_id, -1)
    next_entry = step(entries, view.assignment_id, +1)
    # Navigation moves in callbacks, so one run draws the pair navigated to.
    back.button(
        "Previous pair",
        icon=":material/arrow_back:",
        shortcut="Alt+P",
        disabled=previous_entry is None,
        key="nav_previous",
        on_click=_go_to,
        args=(previous_entry,),
    )
    forward.button(
        "Next pair",
        icon=":material/arrow_forward:",
        shortcut="Alt+N",
        disabled=next_entry is None,
        key="nav_next",
        on_click=_go_to,
        args=(next_entry,),
    )
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
    jump_key = f"nav_jump_{view.assignment_id}"
    jump.selectbox(
        "Go to pair",
        list(labels),
        index=view.number - 1,
        format_func=labels.get,
        key=jump_key,
        on_change=lambda: st.session_state.__setitem__(CURRENT, st.session_state[jump_key]),
    )


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
