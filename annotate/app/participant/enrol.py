"""The crowd link in the app: `?study=...&PROLIFIC_PID=...` logs the participant in.

`annotate.services.participant.enrolment` does the work; this puts the new token in the URL so that
reloads (and
the participant's later visits from this tab) keep working without enrolling again. A participant
new to the study sees a Start page first: no pair is reserved for anyone who has not pressed Start.
A study may put a consent page and a short survey before Start
(`annotate.services.participant.consent`);
declining ends with the study's screen-out code. Its training (`annotate.app.participant.training`)
comes after them, before Start; not passing it ends the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NoReturn

import streamlit as st

from annotate.app.participant.exit_link import draw_exit
from annotate.app.participant.training import training_before_start
from annotate.app.participant.withdraw import (
    WITHDRAW_HINT,
    WITHDRAW_LATER,
    draw_withdrawal,
    remember_enrolment,
    stop_if_withdrawn,
)
from annotate.app.safe_text import inert_markdown, plain_lines
from annotate.app.session import CurrentAccount, current_account, engine
from annotate.config import enrolment_limits
from annotate.domain.crowd.consent import MAX_ANSWER_CHARS, ConsentError
from annotate.domain.crowd.enrolment import (
    KEY_PARAM,
    PARTICIPANT_PARAM,
    SESSION_PARAM,
    STUDY_PARAM,
    EnrolmentError,
    Visit,
)
from annotate.services.participant.consent import Step, answer_survey, decide, participant_step
from annotate.services.participant.enrolment import enrol, has_started, start, visit

START_KEY = "crowd_start"
BEGIN_KEY = "crowd_begin"
BEGIN_TEXT = (
    "Before the real work, this study asks a few questions or shows practice pairs. Press "
    "**Begin** when you are ready."
)
ACCEPT_KEY = "consent_accept"
DECLINE_KEY = "consent_decline"
SURVEY_ERROR = "survey_error"
DECLINED = (
    "You chose not to take part in this study. Nothing more is needed from you; thank you for "
    "your time."
)
ENDED_HERE = "Your participation in this study has ended. Please contact the researchers."
NOTHING_LEFT = "Every pair of this study has all the ratings it needs. Thank you for your interest."


def is_enrolment_link() -> bool:
    return bool(st.query_params.get(PARTICIPANT_PARAM) and st.query_params.get(STUDY_PARAM))


def enrol_from_link(account: CurrentAccount | None) -> CurrentAccount | None:
    """Enrol (or find again) the participant named in the URL unless `account` is logged in
    already; stop with a message if refused, and with the Start page until they start. Every
    page of the link offers the way out (`annotate.app.participant.withdraw`)."""
    stop_if_withdrawn()
    if account is None:
        try:
            seen = visit(engine(), **_link(), **_platform_ids())
        except EnrolmentError as error:
            _stop_with(str(error))
        if not seen.returning:
            _draw_visitor(seen)  # nothing is written until they act
        account = _enrol()
    if account is not None:
        draw_withdrawal(account, **_link())
    if account is not None and not has_started(
        engine(), account.id, st.query_params.get(STUDY_PARAM, "")
    ):
        step = _draw_before_start(account)
        _draw_start(account, step)
    return account


def _platform_ids() -> dict[str, str]:
    return {
        "participant_id": st.query_params.get(PARTICIPANT_PARAM, ""),
        "session_id": st.query_params.get(SESSION_PARAM, ""),
    }


def _enrol() -> CurrentAccount:
    """Create or find the participant's account (a deliberate action, or a returning one)."""
    try:
        result = enrol(engine(), **_link(), **_platform_ids())
    except EnrolmentError as error:
        _stop_with(str(error))
    st.query_params["token"] = result.token
    remember_enrolment(result.annotator_id, result.token)
    account = current_account()
    if account is None:
        _stop_with(ENDED_HERE)
    return account


def _draw_visitor(seen: Visit) -> NoReturn:
    """A visitor's first page (consent, or Start); their click creates the account."""
    if seen.consent_text:
        _consent_page(
            seen.consent_text,
            lambda accept: decide(engine(), _enrol().id, accept=accept, **_link()),
            WITHDRAW_LATER,  # no account yet, so no side panel
        )
    if not seen.straight_to_work:  # a survey or practice first: Begin creates the account
        st.title("Welcome")
        st.markdown(BEGIN_TEXT)
        if st.button("Begin", type="primary", key=BEGIN_KEY, icon=":material/play_arrow:"):
            _enrol()
            st.rerun()
        st.stop()
    _welcome(seen.task)
    if st.button("Start", type="primary", key=START_KEY, icon=":material/play_arrow:"):
        _reserve_first(_enrol())
        st.rerun()
    st.stop()


def _link() -> dict[str, str]:
    return {
        "study": st.query_params.get(STUDY_PARAM, ""),
        "key": st.query_params.get(KEY_PARAM, ""),
    }


def _draw_before_start(account: CurrentAccount) -> Step:
    """Consent, then the survey, when the study has them (else nothing is drawn)."""
    try:
        step = participant_step(engine(), account.id, **_link())
    except EnrolmentError as error:
        _stop_with(str(error))
    if step.step == "consent":
        _draw_consent(account, step)
    elif step.step == "survey":
        _draw_survey(account, step)
    elif step.step == "declined":
        _draw_declined(step)
    elif training_before_start(account.id, _link()["study"]):  # the study's training
        st.stop()
    return step


def _draw_consent(account: CurrentAccount, step: Step) -> None:
    _consent_page(
        step.consent_text,
        lambda accept: decide(engine(), account.id, accept=accept, **_link()),
        WITHDRAW_HINT,
    )


def _consent_page(text: str, record: Callable[[bool], object], hint: str) -> NoReturn:
    st.title("Before you start")
    with st.container(key="consent_text", border=True):
        st.markdown(inert_markdown(text))
    with st.container(horizontal=True, gap="small"):
        agreed = st.button("I agree to take part", type="primary", key=ACCEPT_KEY)
        declined = st.button("I do not agree", key=DECLINE_KEY)
    st.caption(hint)
    if agreed or declined:
        try:
            record(agreed)
        except EnrolmentError as error:
            _stop_with(str(error))
        st.rerun()
    st.stop()


def _draw_survey(account: CurrentAccount, step: Step) -> None:
    st.title("A few questions about you")
    with st.form("survey"):
        answers: dict[str, str | None] = {}
        for question in step.questions:
            label = inert_markdown(str(question["text"]))
            key = f"survey_{question['id']}"
            if question["kind"] == "choice":
                answers[question["id"]] = st.radio(
                    label, question["options"], index=None, key=key, format_func=_inert
                )
            else:
                answers[question["id"]] = st.text_input(
                    f"{label} (optional)", key=key, max_chars=MAX_ANSWER_CHARS
                )
        sent = st.form_submit_button("Continue", type="primary")
    if sent:
        try:
            answer_survey(engine(), account.id, answers=answers, **_link())
        except EnrolmentError as error:
            _stop_with(str(error))
        except ConsentError as error:
            st.error(plain_lines(error))
            st.stop()
        st.rerun()
    st.stop()


def _inert(option: object) -> str:
    return inert_markdown(str(option))


def _draw_declined(step: Step) -> None:
    st.title("Thank you")
    st.markdown(DECLINED)
    if step.screenout_code:
        draw_exit(step.screenout_code, step.screenout_link, label="Your code for the platform")
    st.stop()


def _stop_with(message: str) -> NoReturn:
    st.title("prb-annotate")
    st.error(plain_lines(message), icon=":material/error:")
    st.stop()


def _draw_start(account: CurrentAccount, step: Step) -> None:
    """The study's first step: nothing is reserved until the participant presses Start."""
    _welcome(step.task)
    st.caption(WITHDRAW_HINT)
    if st.button("Start", type="primary", key=START_KEY, icon=":material/play_arrow:"):
        _reserve_first(account)
        st.rerun()
    st.stop()


def _welcome(task: str) -> None:
    st.title("Welcome")
    minutes = enrolment_limits().first_reservation_minutes
    st.markdown(
        f"{task} When you press **Start**, your first pair is kept for you for up to "
        f"{minutes} minutes; once you have rated it, the next ones come one at a time."
    )


def _reserve_first(account: CurrentAccount) -> None:
    """The participant's Start: their first pair (stops with why when refused or none)."""
    try:
        link = _link()
        pulled = start(engine(), account.id, study=link["study"], key=link["key"])
    except EnrolmentError as error:
        _stop_with(str(error))
    if pulled is None:
        st.info(NOTHING_LEFT, icon=":material/info:")
        st.stop()
