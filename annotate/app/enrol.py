"""The crowd link in the app: `?study=...&PROLIFIC_PID=...` logs the participant in.

`annotate.services.enrolment` does the work; this puts the new token in the URL so that reloads (and
the participant's later visits from this tab) keep working without enrolling again. A participant
new to the study sees a Start page first: no pair is reserved for anyone who has not pressed Start.
"""

from __future__ import annotations

from typing import NoReturn

import streamlit as st

from annotate.app.session import CurrentAccount, current_account, engine
from annotate.config import enrolment_limits
from annotate.domain.enrolment import (
    KEY_PARAM,
    PARTICIPANT_PARAM,
    SESSION_PARAM,
    STUDY_PARAM,
    EnrolmentError,
)
from annotate.services.enrolment import enrol, has_started, start

START_KEY = "crowd_start"
NOTHING_LEFT = "Every pair of this study has all the ratings it needs. Thank you for your interest."


def is_enrolment_link() -> bool:
    return bool(st.query_params.get(PARTICIPANT_PARAM) and st.query_params.get(STUDY_PARAM))


def enrol_from_link(account: CurrentAccount | None) -> CurrentAccount | None:
    """Enrol (or find again) the participant named in the URL unless `account` is logged in
    already; stop with a message if refused, and with the Start page until they start."""
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
    if account is not None and not has_started(
        engine(), account.id, st.query_params.get(STUDY_PARAM, "")
    ):
        _draw_start(account)
    return account


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
