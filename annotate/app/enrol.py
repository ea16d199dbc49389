"""The crowd link in the app: `?study=...&PROLIFIC_PID=...` logs the participant in.

`annotate.services.enrolment` does the work; this puts the new token in the URL so that reloads (and
the participant's later visits from this tab) keep working without enrolling again. A participant
new to the study sees a Start page first: no pair is reserved for anyone who has not pressed Start.
A study may put a consent page and a short survey before Start (`annotate.services.consent`);
declining ends with the study's screen-out code. Its training (`annotate.app.training`) comes
after them, before Start; not passing it ends the same way.
"""

from __future__ import annotations

from typing import NoReturn

import streamlit as st

from annotate.app.exit_link import draw_exit
from annotate.app.safe_text import inert_markdown
from annotate.app.session import CurrentAccount, current_account, engine
from annotate.app.training import training_before_start
from annotate.app.withdraw import WITHDRAW_HINT, draw_withdrawal, stop_if_withdrawn
from annotate.config import enrolment_limits
from annotate.domain.crowd.consent import MAX_ANSWER_CHARS, ConsentError
from annotate.domain.crowd.enrolment import (
    KEY_PARAM,
    PARTICIPANT_PARAM,
    SESSION_PARAM,
    STUDY_PARAM,
    EnrolmentError,
)
from annotate.services.consent import Step, answer_survey, decide, participant_step
from annotate.services.enrolment import enrol, has_started, start

START_KEY = "crowd_start"
ACCEPT_KEY = "consent_accept"
DECLINE_KEY = "consent_decline"
SURVEY_ERROR = "survey_error"
DECLINED = (
    "You chose not to take part in this study. Nothing more is needed from you; thank you for "
    "your time."
)
NOTHING_LEFT = "Every pair of this study has all the ratings it needs. Thank you for your interest."


def is_enrolment_link() -> bool:
    return bool(st.query_params.get(PARTICIPANT_PARAM) and st.query_params.get(STUDY_PARAM))


def enrol_from_link(account: CurrentAccount | None) -> CurrentAccount | None:
    """Enrol (or find again) the participant named in the URL unless `account` is logged in
    already; stop with a message if refused, and with the Start page until they start. Every
    page of the link offers the way out (`annotate.app.withdraw`)."""
    stop_if_withdrawn()
    if account is None:
        try:
            result = enrol(
                engine(),
                study=st.query_params.get(STUDY_PARAM, ""),
                key=st.query_params.get(KEY_PARAM, ""),
                participant_id=st.query_params.get(PARTICIPANT_PARAM, ""),
                session_id=st.query_params.get(SESSION_PARAM, ""),
            )
        except EnrolmentError as error:
            _stop_with(str(error))
        st.query_params["token"] = result.token
        account = current_account()
    if account is not None:
        draw_withdrawal(account, st.query_params.get(STUDY_PARAM, ""))
    if account is not None and not has_started(
        engine(), account.id, st.query_params.get(STUDY_PARAM, "")
    ):
        _draw_before_start(account)
        _draw_start(account)
    return account


def _link() -> dict[str, str]:
    return {
        "study": st.query_params.get(STUDY_PARAM, ""),
        "key": st.query_params.get(KEY_PARAM, ""),
    }


def _draw_before_start(account: CurrentAccount) -> None:
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


def _draw_consent(account: CurrentAccount, step: Step) -> None:
    st.title("Before you start")
    with st.container(key="consent_text", border=True):
        st.markdown(inert_markdown(step.consent_text))
    with st.container(horizontal=True, gap="small"):
        agreed = st.button("I agree to take part", type="primary", key=ACCEPT_KEY)
        declined = st.button("I do not agree", key=DECLINE_KEY)
    st.caption(WITHDRAW_HINT)
    if agreed or declined:
        try:
            decide(engine(), account.id, accept=agreed, **_link())
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
            st.error(str(error))
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
    st.error(message, icon=":material/error:")
    st.stop()


def _draw_start(account: CurrentAccount) -> None:
    """The study's first step: nothing is reserved until the participant presses Start."""
    st.title("Welcome")
    minutes = enrolment_limits().first_reservation_minutes
    st.markdown(
        "You will read a question, what its asker expects of an answer, and two answers, and "
        "score each answer on four questions. When you press **Start**, your first pair is "
        f"kept for you for up to {minutes} minutes; once you have rated it, the next ones come "
        "one at a time."
    )
    st.caption(WITHDRAW_HINT)
    if st.button("Start", type="primary", key=START_KEY, icon=":material/play_arrow:"):
        try:
            pulled = start(
                engine(),
                account.id,
                study=st.query_params.get(STUDY_PARAM, ""),
                key=st.query_params.get(KEY_PARAM, ""),
            )
        except EnrolmentError as error:
            _stop_with(str(error))
        if pulled is None:
            st.info(NOTHING_LEFT, icon=":material/info:")
            st.stop()
        st.rerun()
    st.stop()
