"""The annotator's page: one blinded pair, each response answered on the study's questions.

Why 843 lines: one page's shared widget state and both views of the pair (Streamlit's
widgets, our component); the issue-36 component replaces most.

One pair, one set of values: every field a person fills in (scores, aspect marks, preference,
rationale, comment, flag, skip reason) has a widget key of its own for each pair (`field_key`),
so nothing typed or picked on one pair can appear on or be saved with another, whichever way the
pair is left (issue 22, item 1: with keys shared by every pair, the browser kept a focused text
box's words when the next pair opened and sent them with it). Each field sits in a container
whose key is the same for every pair (`.st-key-factuality_A`, `.st-key-rationale`): the page
script, the style and the tests find a question by it. A new pair's fields get its saved values
(or none) before they are drawn (`_reset_widgets`).

Speed: the pair and its form are one fragment (a submit redraws only them). A hidden widget in
the form holds the pair the browser shows (`PAIR_TOKEN`): a submit sent by a page still showing
an earlier pair (a double click) is recognised and ignored, never saved to the new pair. Another
hidden field of the pair (`SIGNALS`) carries what the page script counted while the pair was
shown (focus losses, pastes into the rationale: `annotate.domain.rating.signals`); it is sent
with the submit, so it costs no run of its own.

By default ($PRB_RATING_VIEW=component) the pair (context, responses, questions, aspect
checklist, preference, comment, flag, skip, Submit) is drawn by our own component instead
(`annotate.app.participant.pair_view`, issue 36), saved by the same `_save`; the rest of the
page is the same, but for its order: the progress line above the pair and the page script are
drawn after the pair, so the pair goes out ahead of them (issue 36.2). $PRB_RATING_VIEW=streamlit
keeps the widgets above (the fallback).

Between two pairs a crowd participant may be asked an instructed-response check
(`annotate.domain.crowd.checks`): the first wrong answer is warned, the second ends their work
with "failed checks" and no completion code (its stored outcome, drawn by the done page).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from contextlib import nullcontext
from typing import Any, TypeVar

import streamlit as st

from annotate.app.keyboard import inject_keyboard, shortcuts_help
from annotate.app.participant import aspect_checklist, pair_context, pair_view
from annotate.app.participant.chat import draw_conversation
from annotate.app.participant.exit_link import draw_exit
from annotate.app.participant.pair_view import Entered
from annotate.app.participant.score_widgets import (
    draw_response,
    field_key,
    preference_question,
    question_radio,
)
from annotate.app.participant.training import training_gate
from annotate.app.safe_text import inert_markdown, plain_lines
from annotate.app.session import NOTICE, REFUSED, current_account, engine, login_token
from annotate.config import rating_view
from annotate.domain.crowd.checks import WARNING, DueCheck
from annotate.domain.crowd.finish import EndingNote
from annotate.domain.crowd.outcomes import COMPLETED, FAILED_CHECKS, PLATFORM
from annotate.domain.rating import preference
from annotate.domain.rating.queue import (
    PROFILE_PREVIEW,
    PairView,
    QueueEntry,
    next_open,
    next_open_after,
    step,
)
from annotate.domain.rating.ratings import RatingError, missing_scores
from annotate.domain.rating.signals import read_signals
from annotate.domain.study.accounts import LoginNoLongerValid
from annotate.errors import PrbError, Unavailable
from annotate.questionnaire import DEFAULT_QUESTIONNAIRE, Questionnaire
from annotate.services.participant.checks import answer_check
from annotate.services.participant.enrolment import finish_offers, finish_study
from annotate.services.participant.rating import skip_pair, submit_rating
from annotate.services.participant.work import (
    annotator_queue,
    endings,
    hold_next,
    pull_for_annotator,
    shown_pair,
)
from annotate.vocabulary import DIMENSIONS, SIDES

_T = TypeVar("_T")
CURRENT = "current_assignment"
LAST_SHOWN = "last_shown"  # (queue, pair view) drawn last: drawn again if the database is down
SHOWN_AT = "shown_at"
SUBMIT_ERROR = "submit_error"
SKIP_ERROR = "skip_error"
CONFIRMED = "confirmed_entry"  # {pair, key} of the component's entry stored last (issue 36.4)
ERRORS_SHOWN = "errors_shown"  # a new number for every error: the page script scrolls to it
SCALE_SHOWN = "scale_shown"  # the scale of the pair shown, for the list of keys
CHECK_ERROR = "check_error"  # an instructed-response check's answer refused
CHECK_WARNING = "check_warning"  # said above the next pair after a first failed check

# Keys the same for every pair: the hidden pair token and the navigation.
PAIR_TOKEN = "pair_token"
JUMP = "nav_jump"
# The pair's fields: a container with this key holds the widget `field_key(name, pair)`.
COMMENT = "comment"
FLAG = "flag"
SKIP_REASON = "skip_reason"
SKIP_POPOVER = "skip_popover"
SIGNALS = "pair_signals"  # hidden: '<pair>:<focus losses>:<pastes>', filled by the page script
PREFERENCE = "preference"  # by side only: -2 A much better .. +2 B much better
RATIONALE = "rationale"
NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


def task_line(questionnaire: Questionnaire, has_rubric: bool) -> str:
    """What to do with a pair, in one line: read, then answer the study's questions for both
    responses (this benchmark's four dimensions are called so)."""
    count = len(questionnaire.questions)
    if questionnaire.keys == DIMENSIONS:
        asked = "on all four dimensions"
    elif count == 1:
        asked = f"on “{inert_markdown(questionnaire.questions[0].label)}”"
    else:
        asked = f"on all {NUMBER_WORDS[count] if count < len(NUMBER_WORDS) else count} questions"
    read = "the question and what this user expects" if has_rubric else "the question"
    return (
        f"Read {read}, then answer for **both** responses {asked} (each on its own; they may "
        "deserve the same answer)."
    )


def score_key(dim: str, side: str) -> str:
    return f"{dim}_{side}"


def _keys(view: PairView) -> tuple[str, ...]:
    """The keys of the questions the pair's study asks."""
    assert view.scale is not None
    return view.scale.questionnaire.keys


def draw() -> None:
    account_id = st.session_state["account_id"]
    try:
        training = training_gate(account_id)
    except Unavailable:  # the pair shown last is drawn again below, if there is one
        training = False
    if training:
        # a study of this annotator's asks for training first (annotate/app/participant/training.py)
        return
    component = rating_view() == "component"
    if not component:
        inject_keyboard()
    _pair_page(account_id)
    if component:  # after the pair: its 12 KB went ahead of the pair on the websocket (36.2)
        inject_keyboard()
    scale = st.session_state.get(SCALE_SHOWN)
    if scale:  # (outside the fragment: not redrawn at each submit)
        with st.container(key="shortcuts"):
            st.caption(shortcuts_help(*scale))


@st.fragment
def _pair_page(account_id: int) -> None:
    st.session_state.pop(SCALE_SHOWN, None)
    component = rating_view() == "component"
    # The component's view: whatever comes and goes above the pair in one container, so the
    # component keeps its place (a new place would be a new element, its entries lost). The
    # progress line is written into it after the pair is drawn: the pair's delta goes out
    # first (issue 36.2: the next pair is shown as soon as it arrives).
    top = st.container(key="pair_top") if component else None
    with top if top is not None else nullcontext():
        _draw_notice()  # a save is confirmed before anything else is said
        try:
            loaded = _load(account_id)
        except Unavailable:
            logging.getLogger(__name__).warning("the database did not answer", exc_info=True)
            loaded = _last_shown()
        if loaded is not None and top is None:
            _draw_progress(loaded[1])
    if loaded is None:
        return
    entries, view = loaded
    st.session_state.setdefault(SHOWN_AT, {}).setdefault(view.assignment_id, time.time())
    _reset_widgets(view)
    if component and pair_view.supported(view):
        _draw_component(account_id, view, entries)
    else:
        component = False
        _draw_context(view)
        _draw_form(account_id, view, entries)
    if top is not None:
        with top:
            _draw_progress(view)
    _draw_navigation(account_id, view, entries, skip=not component)
    _draw_finish(account_id)
    if component:
        _draw_held(account_id, view, entries)
    scale = view.scale
    assert scale is not None
    low, high = scale.questionnaire.scale
    spans = len(scale.questionnaire.span_labels) if component else 0  # marked in the component
    shown = (low, high, scale.ask_preference, scale.aspect_checklist, spans)
    st.session_state[SCALE_SHOWN] = shown


def _load(account_id: int) -> tuple[list[QueueEntry], PairView] | None:
    """The annotator's queue and the pair to draw; None when something else was drawn (a link
    no longer valid, no pairs, the done page). Raises `Unavailable` before drawing anything."""
    # (A fragment run does not pass through the entry script.) A write just refused for the
    # link is said next to the form, with the annotator's entries kept on the page; any other
    # click after the login ended (a Log out in another tab, a replaced link) draws the login
    # page, which says why (issue 32.4).
    if current_account() is None and REFUSED not in st.session_state:
        st.rerun()  # the whole app: the entry script finds no account
    entries, due = annotator_queue(engine(), account_id)
    if due is not None:
        _draw_check(account_id, due)
        return None
    if next_open(entries) is None and pull_for_annotator(engine(), account_id) is not None:
        entries, _ = annotator_queue(engine(), account_id)  # an open pool gave the next pair
    if not entries:
        st.info("No pairs have been assigned to you yet. Please come back later.")
        return None
    current = _current_entry(entries)
    if current is None:
        _draw_done(account_id, entries)
        st.session_state.pop(LAST_SHOWN, None)
        return None
    view = shown_pair(engine(), account_id, current.assignment_id)
    st.session_state[LAST_SHOWN] = (entries, view)
    return entries, view


OFFLINE = (
    "Not saved: the database did not answer. Your entries are still here; please try again "
    "in a moment."
)


def _last_shown() -> tuple[list[QueueEntry], PairView] | None:
    """The database did not answer (issue 24.5): the pair drawn last, drawn again with the
    annotator's entries (its fields keep their values only if they are drawn), and the
    message; with no pair drawn yet, the message and a button to try again."""
    shown: tuple[list[QueueEntry], PairView] | None = st.session_state.get(LAST_SHOWN)
    failed = st.session_state.get(SUBMIT_ERROR) or st.session_state.get(SKIP_ERROR)
    if shown is None or failed is None or failed[0] != shown[1].assignment_id:
        st.error(OFFLINE, icon=":material/cloud_off:")  # (else said next to the form)
    if shown is None:
        st.button("Try again", key="retry", icon=":material/refresh:")
    return shown


def _current_entry(entries: list[QueueEntry]) -> QueueEntry | None:
    """The pair being looked at: the one navigated to, else where the annotator left off."""
    wanted = st.session_state.get(CURRENT)
    chosen = next((e for e in entries if e.assignment_id == wanted), None)
    return chosen or next_open(entries)


def _go_to(entry: QueueEntry | None) -> None:
    st.session_state[CURRENT] = entry.assignment_id if entry else None


def _reset_widgets(view: PairView) -> None:
    """A pair the browser does not show yet: its saved values (or none) in its own fields."""
    state = st.session_state
    if state.get(PAIR_TOKEN) == str(view.assignment_id):
        return  # the same pair again (a refused submit, a navigation error): entries kept
    key = view.assignment_id
    for side in SIDES:
        for dim in _keys(view):
            state[field_key(score_key(dim, side), key)] = view.scores.get(side, {}).get(dim)
    state[field_key(COMMENT, key)] = view.comment
    state[field_key(FLAG, key)] = view.flag_reason
    state[field_key(SKIP_REASON, key)] = ""
    state[field_key(SIGNALS, key)] = ""
    if view.scale is not None and view.scale.ask_preference:
        state[field_key(PREFERENCE, key)] = view.side_preference
        state[field_key(RATIONALE, key)] = view.rationale
    aspect_checklist.reset(view)
    state[JUMP] = view.assignment_id
    state[PAIR_TOKEN] = str(view.assignment_id)


def _draw_notice() -> None:
    notice = st.session_state.pop(NOTICE, None)
    if notice:
        st.success(notice, icon=":material/check_circle:")
    warning = st.session_state.pop(CHECK_WARNING, None)
    if warning:
        st.warning(warning, icon=":material/warning:")


def _draw_progress(view: PairView) -> None:
    with st.container(key="task_line", horizontal=True, gap="small"):
        st.markdown(f"**Pair {view.number} of {view.total}** · {view.done} rated", width="content")
        asked = view.scale.questionnaire if view.scale else DEFAULT_QUESTIONNAIRE
        st.markdown(task_line(asked, bool(view.rubric_aspects)), width="stretch")
    if view.status == "done":
        st.info("You have rated this pair already. Change any score and submit to revise it.")
    elif view.status == "skipped" and view.flag_reason:
        reason = inert_markdown(view.flag_reason)  # typed by the annotator: text, not markup
        st.warning(f"You flagged this pair without scores ({reason}). You can still rate it.")
    elif view.status == "skipped":
        reason = inert_markdown(view.skip_reason)  # typed by the annotator: text, not markup
        st.warning(f"You skipped this pair ({reason}). You can still rate it.")


def _draw_context(view: PairView) -> None:
    """The question (or the conversation, for a pair with several turns), then tabs for what
    the pair has of the user's rubric, narrative and earlier posts, and the guidelines. A
    dataset without profiles (a plain preference set) shows no empty tabs."""
    if view.conversation:
        draw_conversation(view.conversation)
    else:
        with st.container(key="question", border=True):
            category = f" · *{inert_markdown(view.category)}*" if view.category else ""
            st.markdown(f"**The user's question**{category}\n\n" + inert_markdown(view.question))
    sections: list[tuple[str, Callable[[], object]]] = []
    if view.rubric_aspects:
        sections.append(
            (
                pair_context.rubric_title(view.rubric_aspects),
                lambda: st.markdown(pair_context.rubric_markdown(view.rubric_aspects)),
            )
        )
    if view.narrative:
        sections.append(
            ("What the user told us", lambda: st.markdown(inert_markdown(view.narrative)))
        )
    if view.profile:
        sections.append((f"Their earlier posts ({len(view.profile)})", lambda: _draw_posts(view)))
    sections.append(("How to rate", lambda: st.markdown(_guidelines_markdown(view))))
    with st.container(key="context"):
        for tab, (_, draw_section) in zip(
            st.tabs([title for title, _ in sections]), sections, strict=True
        ):
            with tab:
                draw_section()


def _draw_posts(view: PairView) -> None:
    _draw_profile_items(view.profile[:PROFILE_PREVIEW])
    if len(view.profile) > PROFILE_PREVIEW:
        with st.expander(f"Show {len(view.profile) - PROFILE_PREVIEW} more posts"):
            _draw_profile_items(view.profile[PROFILE_PREVIEW:])


def _guidelines_markdown(view: PairView) -> str:
    scale = view.scale
    assert scale is not None
    parts = [inert_markdown(scale.guidelines)] if scale.guidelines else []
    parts.append(
        f"Read {_what_to_read(view)}, then answer **each** "
        "question for each response. Judge the two responses independently; they may "
        "deserve the same score."
    )
    questions = scale.questionnaire.questions
    parts += [f"**{inert_markdown(q.label)}**: {inert_markdown(q.text)}" for q in questions]
    scales = {tuple(sorted(q.anchors.items())) for q in questions if q.is_scale and q.anchors}
    if len(scales) == 1:  # one scale for every question (the default): said once
        (anchors,) = scales
        parts.append("Scale: " + " · ".join(f"{k} = {inert_markdown(v)}" for k, v in anchors))
    return "\n\n".join(parts)


def _what_to_read(view: PairView) -> str:
    """'the user's question, profile, narrative and rubric', naming only what the pair has."""
    parts = ["the conversation" if view.conversation else "the user's question"]
    parts += [
        name
        for name, present in (
            ("profile", view.profile),
            ("narrative", view.narrative),
            ("rubric", view.rubric_aspects),
        )
        if present
    ]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _draw_profile_items(items: list[dict[str, Any]]) -> None:
    if items:
        st.markdown(pair_context.profile_markdown(items))


def _draw_form(account_id: int, view: PairView, entries: list[QueueEntry]) -> None:
    scale = view.scale
    assert scale is not None
    with st.form("pair", border=False, enter_to_submit=False):
        for side, column in zip(SIDES, st.columns(2, gap="medium"), strict=True):
            with column:
                draw_response(side, view.responses[side], f"response_{side}")
                with st.container(key=f"scores_{side}"):
                    for question in scale.questionnaire.questions:  # values: `_reset_widgets`
                        name = score_key(question.key, side)
                        with st.container(key=name):
                            key = field_key(name, view.assignment_id)
                            question_radio(side, question, key)
        aspect_checklist.draw(view)
        if scale.ask_preference:
            pair = view.assignment_id
            preference_question(
                scale.rationale, field_key(PREFERENCE, pair), field_key(RATIONALE, pair)
            )
        comment, flag = st.columns(2, gap="medium")
        with comment.container(key=COMMENT):
            st.text_area(
                "Comment (optional)", key=field_key(COMMENT, view.assignment_id), height=68
            )
        flag.container(key=FLAG).text_input(
            "Flag this pair: describe the problem (optional)",
            key=field_key(FLAG, view.assignment_id),
            help="For broken, offensive or impossible-to-judge pairs. With every answer given, "
            "the pair counts as rated; with answers left out, it is sent to the organisers "
            "without scores and set aside like a skipped pair.",
        )
        # Saved in a callback, before the run that follows the click: that run draws the next
        # pair at once (no second run to draw the old pair and then rerun).
        st.form_submit_button(
            "Submit and go to the next pair",
            type="primary",
            key="submit",
            # Ctrl+S (Cmd+S on a Mac) works from a radio, a text box or nowhere; Ctrl+Enter is
            # handled by the page script (a focused radio swallows Enter).
            shortcut="Ctrl+S",
            icon=":material/send:",
            on_click=_submit,
            args=(account_id, view, entries),
        )
        _draw_error(SUBMIT_ERROR, view)
        st.text_input("pair", key=PAIR_TOKEN, label_visibility="collapsed")  # hidden by CSS
        st.container(key=SIGNALS).text_input(  # hidden by CSS; rate.js fills it
            "signals", key=field_key(SIGNALS, view.assignment_id), label_visibility="collapsed"
        )


def _take_error(view: PairView, *names: str) -> str:
    """The message a refused save of this pair left (popped), else ''."""
    failed = [st.session_state.pop(name, None) for name in names]
    st.session_state.pop(REFUSED, None)  # said here, not again on the login page
    found = [f[1] for f in failed if f and f[0] == view.assignment_id]
    if found:
        st.session_state[ERRORS_SHOWN] = st.session_state.get(ERRORS_SHOWN, 0) + 1
    return found[0] if found else ""


def _draw_error(name: str, view: PairView) -> None:
    message = _take_error(view, name)
    if message:
        with st.container(key=f"submit_error_{st.session_state[ERRORS_SHOWN]}"):
            st.error(message)


def _draw_component(account_id: int, view: PairView, entries: list[QueueEntry]) -> None:
    """The pair, its questions, comment, flag, skip and Submit drawn by our own component
    (`annotate.app.participant.pair_view`), saved through the same callbacks as the form's."""
    error = _take_error(view, SUBMIT_ERROR, SKIP_ERROR)
    pair_view.draw(
        view,
        _context_sections(view),
        error=error,
        attempt=st.session_state.get(ERRORS_SHOWN, 0),
        on_submit=lambda entered: _save(account_id, view, entries, entered),
        on_skip=lambda reason, key: _set_aside(
            account_id, view, entries, reason, flag=False, entry_key=key
        ),
        outage=error == OFFLINE,
        confirmed=st.session_state.get(CONFIRMED),
    )


def _draw_held(account_id: int, view: PairView, entries: list[QueueEntry]) -> None:
    """The pair the component holds behind this one (issue 36.2), last in the run: the pair
    drawn is on its way to the browser meanwhile."""
    try:
        found = pair_view.held_id(
            entries, view, lambda: hold_next(engine(), account_id, view.assignment_id)
        )
        held = shown_pair(engine(), account_id, found) if found is not None else None
    except (Unavailable, PermissionError):  # (a pair released meanwhile is not held)
        held = None
    pair_view.draw_held(held, _context_sections(held) if held else [])


def _context_sections(view: PairView) -> list[tuple[str, str]]:
    """The context's parts under the question, as (title, Markdown), for the component."""
    return pair_context.context_sections(
        rubric=view.rubric_aspects,
        narrative=view.narrative,
        profile=view.profile,
        how_to_rate=_guidelines_markdown(view),
    )


def _submit(account_id: int, view: PairView, entries: list[QueueEntry]) -> None:
    """Form callback: save the pair's entries (`_save`), unless the form was sent by a page
    still showing an earlier pair (a double click): not this pair's."""
    state = st.session_state
    if state.get(PAIR_TOKEN) != str(view.assignment_id):
        return

    def value(name: str) -> Any:
        return state.get(field_key(name, view.assignment_id))

    asked = view.scale is not None and view.scale.ask_preference
    entered = Entered(
        scores={side: {d: value(score_key(d, side)) for d in _keys(view)} for side in SIDES},
        comment=(value(COMMENT) or "").strip(),
        flag_reason=(value(FLAG) or "").strip(),
        side_preference=value(PREFERENCE) if asked else None,
        rationale=(value(RATIONALE) or "").strip() if asked else None,
        aspect_marks=aspect_checklist.marks(view),
        signals=value(SIGNALS) or "",
    )
    _save(account_id, view, entries, entered)


def _save(account_id: int, view: PairView, entries: list[QueueEntry], entered: Entered) -> None:
    """Save the pair's scores, or leave an error for the page to show. A flag with answers
    missing is a flag without scores: the pair is set aside as a skip is."""
    state = st.session_state
    scores = entered.scores
    scale = view.scale
    assert scale is not None
    asked = scale.ask_preference
    side_preference, rationale = entered.side_preference, entered.rationale
    flag_reason = entered.flag_reason
    missing = missing_scores(scores, scale.questionnaire)
    missing += preference.missing(asked, scale.rationale, side_preference, rationale)
    missing += aspect_checklist.missing(view, entered.aspect_marks)
    if missing and flag_reason:
        _set_aside(account_id, view, entries, flag_reason, flag=True, entry_key=entered.entry_key)
        return
    if missing:
        state[SUBMIT_ERROR] = (
            view.assignment_id,
            "Please give every score before submitting. Missing:\n"
            + "\n".join(f"- {name}" for name in missing)
            + "\n\nA broken or offensive pair can be sent without scores: describe the "
            'problem under "Flag this pair".',
        )
        return
    seconds = time.time() - state[SHOWN_AT].get(view.assignment_id, time.time())
    result = _attempt(
        SUBMIT_ERROR,
        view,
        lambda: submit_rating(
            engine(),
            annotator_id=account_id,
            assignment_id=view.assignment_id,
            scores=scores,
            seconds=round(seconds, 3),
            comment=entered.comment,
            flag_reason=flag_reason,
            token=login_token() or "",
            side_preference=side_preference,
            rationale=rationale,
            aspect_marks=entered.aspect_marks,
            signals=read_signals(entered.signals, view.assignment_id),
            spans=entered.spans,
            entry_key=entered.entry_key,
        ),
    )
    if result is None:
        return
    _confirm(view, entered.entry_key)
    state[SHOWN_AT].pop(view.assignment_id, None)
    state[NOTICE] = {
        "saved": f"Pair {view.number} saved.",
        "revised": f"Pair {view.number} revised; your earlier scores are kept in its history.",
        "unchanged": f"Pair {view.number} was already saved with these scores.",
    }[result.status]
    _go_to(next_open_after(_with_status(entries, view.assignment_id, "done"), view.assignment_id))


def _attempt(error_key: str, view: PairView, save: Callable[[], _T]) -> _T | None:
    """Run a save; on a refusal, leave its message for the page (None): the entries stay."""
    try:
        return save()
    except LoginNoLongerValid as error:
        st.session_state[error_key] = (view.assignment_id, str(error))
        st.session_state[REFUSED] = str(error)  # for the login page, if the next run draws it
    except RatingError as error:
        st.session_state[error_key] = (view.assignment_id, str(error))
    except Unavailable:
        st.session_state[error_key] = (view.assignment_id, OFFLINE)
    return None


def _with_status(entries: list[QueueEntry], assignment_id: int, status: str) -> list[QueueEntry]:
    return [
        e if e.assignment_id != assignment_id else QueueEntry(e.assignment_id, e.number, status)
        for e in entries
    ]


def _skip(account_id: int, view: PairView, entries: list[QueueEntry]) -> None:
    """Skip button callback: mark the pair skipped with the reason typed, then move on."""
    reason = st.session_state.get(field_key(SKIP_REASON, view.assignment_id)) or ""
    _set_aside(account_id, view, entries, reason, flag=False)


def _confirm(view: PairView, entry_key: str | None) -> None:
    """The component's entry just stored: said to its script with the next data."""
    if entry_key is not None:
        st.session_state[CONFIRMED] = {"pair": str(view.assignment_id), "key": entry_key}


def _set_aside(
    account_id: int,
    view: PairView,
    entries: list[QueueEntry],
    reason: str,
    *,
    flag: bool,
    entry_key: str | None = None,
) -> None:
    """Skip the pair, or flag it without scores; then move on."""

    def save() -> bool:
        skip_pair(
            engine(),
            annotator_id=account_id,
            assignment_id=view.assignment_id,
            reason=reason,
            token=login_token() or "",
            flag=flag,
            entry_key=entry_key,
        )
        return True

    if _attempt(SUBMIT_ERROR if flag else SKIP_ERROR, view, save) is None:
        return
    _confirm(view, entry_key)
    st.session_state[NOTICE] = (
        f"Pair {view.number} flagged without scores; thank you for reporting it."
        if flag
        else f"Pair {view.number} skipped."
    )
    skipped = _with_status(entries, view.assignment_id, "skipped")
    _go_to(next_open_after(skipped, view.assignment_id))


def _draw_navigation(
    account_id: int, view: PairView, entries: list[QueueEntry], *, skip: bool = True
) -> None:
    """Previous, Next, Skip (unless the pair's component draws its own), Go to pair."""
    back, forward, skip_column, jump = st.columns([1, 1, 1, 3], vertical_alignment="bottom")
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
    if skip:
        _draw_skip(skip_column, account_id, view, entries)
    if next_open(entries) is None:  # reviewing after the last pair: the way back to the end
        st.button(
            "Back to the end",
            icon=":material/flag:",
            key="nav_end",
            on_click=_go_to,
            args=(None,),
        )
    labels = {e.assignment_id: f"Pair {e.number} ({_STATUS_WORDS[e.status]})" for e in entries}
    jump.selectbox(
        "Go to pair",
        list(labels),
        index=None,  # the value comes from `_reset_widgets`
        required=True,  # (no "clear" button)
        format_func=labels.__getitem__,
        key=JUMP,
        on_change=lambda: st.session_state.__setitem__(CURRENT, st.session_state[JUMP]),
    )


_STATUS_WORDS = {"pending": "to do", "done": "rated", "skipped": "skipped"}


def _draw_skip(column: Any, account_id: int, view: PairView, entries: list[QueueEntry]) -> None:
    """The Skip popover: a reason, then Skip."""
    with column.popover(
        "Skip this pair",
        icon=":material/skip_next:",
        disabled=view.status == "done",
        key=field_key(SKIP_POPOVER, view.assignment_id),
    ):
        # A form of its own (issue 22.9): typing, Tab or a click elsewhere runs nothing (a run
        # would close the popover); Enter in the box skips, like the Skip button.
        with st.form("skip_form", border=False, enter_to_submit=True):
            st.container(key=SKIP_REASON).text_input(
                "Why do you skip it?", key=field_key(SKIP_REASON, view.assignment_id)
            )
            st.form_submit_button(
                "Skip", key="skip", on_click=_skip, args=(account_id, view, entries)
            )
        failed = st.session_state.pop(SKIP_ERROR, None)
        st.session_state.pop(REFUSED, None)  # said here, not again on the login page
        if failed and failed[0] == view.assignment_id:
            st.error(failed[1])


def _draw_finish(account_id: int) -> None:
    """A crowd participant who has rated the study's minimum may finish (issue 22.4): their
    open pair goes back to the pool and the done page gives the completion code. While the
    database does not answer, the box waits (the pair and its entries are drawn all the same)."""
    try:
        offers = finish_offers(engine(), account_id)
    except Unavailable:
        return
    for number, offer in enumerate(offers):
        with st.container(border=True, key=f"finish_box_{number}"):
            quota = f" (at most {offer.quota})" if offer.quota else ""
            st.markdown(
                f"You have rated **{offer.rated}** pairs; {offer.minimum} were asked{quota}. "
                "You may stop here and get your completion code, or go on."
            )
            if st.button("Finish and get my completion code", key=f"finish_{number}"):
                try:
                    finish_study(engine(), account_id, study=offer.study, token=login_token())
                except PrbError as error:
                    st.error(plain_lines(error))
                    return
                st.session_state.pop(CURRENT, None)
                st.rerun()


def _draw_check(account_id: int, due: DueCheck) -> None:
    """An instructed-response check between two pairs: one question, its options, Continue."""
    key = f"check_answer_{due.check.index}"
    with st.form("instructed_check", border=True, enter_to_submit=False):
        st.markdown("**Before the next pair, one question.**")
        st.radio(
            inert_markdown(due.check.text),
            due.check.options,
            index=None,
            format_func=inert_markdown,
            key=key,
        )
        st.form_submit_button(
            "Continue",
            type="primary",
            key="check_submit",
            on_click=_answer_check,
            args=(account_id, due, key),
        )
    failed = st.session_state.pop(CHECK_ERROR, None)
    st.session_state.pop(REFUSED, None)  # said here, not again on the login page
    if failed:
        st.error(failed)


def _answer_check(account_id: int, due: DueCheck, key: str) -> None:
    """Check form callback: store and act on the answer; a first failure leaves the warning
    for the next pair, a second ends the work (the done page says so)."""
    state = st.session_state
    answer = state.get(key)
    if answer is None:
        state[CHECK_ERROR] = "Please pick one of the options."
        return
    try:
        result = answer_check(
            engine(),
            account_id,
            study=due.study,
            index=due.check.index,
            answer=str(answer),
            token=login_token() or "",
        )
    except LoginNoLongerValid as error:
        state[CHECK_ERROR] = state[REFUSED] = str(error)
        return
    except Unavailable:
        state[CHECK_ERROR] = OFFLINE
        return
    except PrbError as error:
        state[CHECK_ERROR] = str(error)
        return
    if result.ended:
        state.pop(CURRENT, None)
    elif not result.passed:
        state[CHECK_WARNING] = WARNING


def _draw_done(account_id: int, entries: list[QueueEntry]) -> None:
    """The end of the queue: what the participant did and, for each study that has ended for
    them, its stored outcome (`finish.ending_notes`): the code and the way back to the platform
    only when the outcome carries a code, the reason when there is one."""
    notes = endings(engine(), account_id)  # read before anything is drawn
    st.title("All done, thank you!" if all(n.paid for n in notes) else "Thank you")
    done = sum(e.status == "done" for e in entries)
    skipped = sum(e.status == "skipped" for e in entries)
    pairs = "pair" if done == 1 else "pairs"
    st.markdown(f"You rated **{done}** {pairs}" + (f" and skipped {skipped}." if skipped else "."))
    for note in notes:
        _draw_note(note)
    st.caption("You can look through your ratings and change any of them before you leave.")
    st.button(
        "Review my ratings",
        icon=":material/history:",
        key="review",
        on_click=_go_to,
        args=(entries[0],),
    )


def _draw_note(note: EndingNote) -> None:
    """One study's outcome: its reason (once: a completed participant's count is the page's own
    first line), then its code, or why there is none."""
    if note.reason and not note.paid:
        st.warning(note.reason)
    elif note.reason and note.status != COMPLETED:
        st.markdown(note.reason)
    if note.paid and note.code:
        draw_exit(note.code, note.link)  # they may review first: no redirect
    elif note.code:
        draw_exit(note.code, note.link, label="Your screen-out code")
    elif note.status not in PLATFORM and note.status != FAILED_CHECKS:
        # (the platform knows already; failed checks: the reason says there is no code, and
        # returning the submission is not what the study's rules ask of them)
        st.markdown(NO_CODE)


NO_CODE = (
    "No completion code is given. On the study platform, please **return your submission**, "
    "so that leaving does not count against you."
)
