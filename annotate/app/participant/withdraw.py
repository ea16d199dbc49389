"""A crowd participant's way out (issue 24.2), on every page of the study link: withdraw at any
time, after a confirmation, with the choice to have everything they gave erased; then the
platform's way out (on Prolific: return the submission; no completion code is given).

`annotate.services.admin.erasure.withdraw_me` does the work with the page's login token; afterwards
the token leaves the URL and the session, so the page cannot act for the person again.

Only a crowd participant of the study, on their own study link (the study's key), sees the box
(`annotate.services.admin.erasure.may_withdraw`): an admin, researcher, adjudicator or annotator who
opens a study link never does. The choice to erase is offered only in the tab that enrolled:
it keeps the login token the enrolment gave it (`remember_enrolment`, in the session's memory
on the server, never in the address); a tab holding only the address's session value (a
reload, or someone who saw the address) may withdraw without erasure and is told how to erase.
"""

from __future__ import annotations

import streamlit as st

from annotate.app.safe_text import plain_lines
from annotate.app.session import SESSION_TOKEN, CurrentAccount, engine, login_token
from annotate.errors import PrbError
from annotate.services.admin.erasure import may_withdraw, withdraw_me

WITHDRAWN = "withdrawn_erased"
CONFIRM_KEY = "withdraw_confirm"
ERASE_KEY = "withdraw_erase"
BUTTON_KEY = "withdraw_button"
WITHDRAW_REFUSED = "withdraw_refused"  # why the last withdrawal was refused, shown once
ENROLMENT_TOKEN = "enrolment_token"  # (account id, login token) this tab enrolled with
ERASE_ELSEWHERE = (
    "To have everything you gave erased as well, open the study again from the platform and "
    "withdraw there: erasure is offered only in the tab where the study link was opened."
)
WITHDRAW_HINT = (
    "You may withdraw at any time, and have what you gave erased: open the side panel (») and "
    "choose *Withdraw from this study*."
)
WITHDRAW_LATER = (
    "Nothing about you is kept unless you agree. Once you take part, you may withdraw at any "
    "time and have what you gave erased: the side panel (») then holds *Withdraw from this "
    "study*."
)  # a visitor's consent page: the side panel comes with the account (issue 34.5)
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


def remember_enrolment(account_id: int, token: str) -> None:
    """Keep the login token this tab's enrolment received: only this tab can erase."""
    st.session_state[ENROLMENT_TOKEN] = (account_id, token)


def _own_token(account: CurrentAccount) -> str | None:
    held = st.session_state.get(ENROLMENT_TOKEN)
    return held[1] if held is not None and held[0] == account.id else None


def draw_withdrawal(account: CurrentAccount, study: str, key: str) -> None:
    """The sidebar's 'Withdraw from this study' box, for a participant of the study only. The
    sidebar starts collapsed, so the rating page keeps its full width (it had no sidebar
    before); its button opens it."""
    if not may_withdraw(engine(), account.id, study=study, key=key):
        return
    st.set_page_config(initial_sidebar_state="collapsed")
    own = _own_token(account)
    with st.sidebar.expander("Withdraw from this study"):
        st.markdown("You may stop taking part at any time, without giving a reason.")
        if own is not None:
            st.checkbox("Also erase everything I gave in this study", key=ERASE_KEY)
        else:
            st.caption(ERASE_ELSEWHERE)
        sure = st.checkbox("Yes, I want to withdraw", key=CONFIRM_KEY)
        st.button(
            "Withdraw",
            key=BUTTON_KEY,
            disabled=not sure,
            on_click=_withdraw,
            args=(account.id, study, key, own),
        )
        refused = st.session_state.pop(WITHDRAW_REFUSED, None)
        if refused:
            st.error(refused)


def _withdraw(account_id: int, study: str, key: str, own: str | None) -> None:
    """The Withdraw button's callback. It runs before the script, so the withdrawal holds even
    when another event (a component's, a second click) interrupts the run the click started: a
    button's value read in the script would be lost with that run."""
    erase = own is not None and bool(st.session_state.get(ERASE_KEY))
    token = own or login_token() or ""
    try:
        withdraw_me(engine(), account_id, study=study, key=key, token=token, erase_data=erase)
    except PrbError as error:
        st.session_state[WITHDRAW_REFUSED] = plain_lines(error)
        return
    st.session_state[WITHDRAWN] = erase
    st.session_state.pop(SESSION_TOKEN, None)
    st.session_state.pop(ENROLMENT_TOKEN, None)
    st.query_params.pop("token", None)
