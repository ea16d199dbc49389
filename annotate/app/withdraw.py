"""A crowd participant's way out (issue 24.2), on every page of the study link: withdraw at any
time, after a confirmation, with the choice to have everything they gave erased; then the
platform's way out (on Prolific: return the submission; no completion code is given).

`annotate.services.erasure.withdraw_me` does the work with the page's login token; afterwards
the token leaves the URL and the session, so the page cannot act for the person again.
"""

from __future__ import annotations

import streamlit as st

from annotate.app.safe_text import plain_lines
from annotate.app.session import SESSION_TOKEN, CurrentAccount, engine, login_token
from annotate.errors import PrbError
from annotate.services.erasure import withdraw_me

WITHDRAWN = "withdrawn_erased"
CONFIRM_KEY = "withdraw_confirm"
ERASE_KEY = "withdraw_erase"
BUTTON_KEY = "withdraw_button"
WITHDRAW_HINT = (
    "You may withdraw at any time, and have what you gave erased: open the side panel (») and "
    "choose *Withdraw from this study*."
)
RETURN_ON_PROLIFIC = (
    "No completion code is given. On Prolific, please **return your submission** (in Prolific, "
    "open *Submissions*, find this study and choose *Return*), so that leaving does not count "
    "against you."
)


def stop_if_withdrawn() -> None:
    """After a withdrawal in this session: the closing page, nothing else."""
    if WITHDRAWN not in st.session_state:
        return
    st.title("You have withdrawn from this study")
    erased = st.session_state[WITHDRAWN]
    st.markdown(
        "Everything you gave in this study has been erased."
        if erased
        else "Your work so far is kept as part of the study; you will not be asked for more."
    )
    st.markdown(RETURN_ON_PROLIFIC)
    st.stop()


def draw_withdrawal(account: CurrentAccount, study: str) -> None:
    """The sidebar's 'Withdraw from this study' box. The sidebar starts collapsed, so the
    rating page keeps its full width (it had no sidebar before); its button opens it."""
    st.set_page_config(initial_sidebar_state="collapsed")
    with st.sidebar.expander("Withdraw from this study"):
        st.markdown("You may stop taking part at any time, without giving a reason.")
        erase = st.checkbox("Also erase everything I gave in this study", key=ERASE_KEY)
        sure = st.checkbox("Yes, I want to withdraw", key=CONFIRM_KEY)
        if st.button("Withdraw", key=BUTTON_KEY, disabled=not sure):
            try:
                withdraw_me(
                    engine(), account.id, study=study, token=login_token(), erase_data=erase
                )
            except PrbError as error:
                st.error(plain_lines(error))
                return
            st.session_state[WITHDRAWN] = erase
            st.session_state.pop(SESSION_TOKEN, None)
            st.query_params.pop("token", None)
            st.rerun()
