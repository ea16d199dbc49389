"""The crowd link in the app: `?study=...&PROLIFIC_PID=...` logs the participant in.

`annotate.services.enrolment` does the work; this puts the new token in the URL so that reloads (and
the participant's later visits from this tab) keep working without enrolling again.
"""

from __future__ import annotations

import streamlit as st

from annotate.app.session import CurrentAccount, current_account, engine
from annotate.domain.enrolment import (
    KEY_PARAM,
    PARTICIPANT_PARAM,
    SESSION_PARAM,
    STUDY_PARAM,
    EnrolmentError,
)
from annotate.services.enrolment import enrol


def is_enrolment_link() -> bool:
    return bool(st.query_params.get(PARTICIPANT_PARAM) and st.query_params.get(STUDY_PARAM))


def enrol_from_link() -> CurrentAccount | None:
    """Enrol (or find again) the participant named in the URL; stop with a message if refused."""
    try:
        result = enrol(
            engine(),
            study=st.query_params.get(STUDY_PARAM, ""),
            key=st.query_params.get(KEY_PARAM, ""),
            participant_id=st.query_params.get(PARTICIPANT_PARAM, ""),
            session_id=st.query_params.get(SESSION_PARAM, ""),
        )
    except EnrolmentError as error:
        st.title("prb-annotate")
        st.error(str(error), icon=":material/error:")
        st.stop()
    st.query_params["token"] = result.token
    return current_account()
