"""What every page needs: the cached engine and the logged-in account.

The account is re-identified on every run from the URL, so it survives a reload and works on
any app server; session state only caches its credential. A login link's `token` leaves the
address bar at once: the page replaces it with a session value (`s`, see
`annotate.domain.study.accounts.session_value`: it lasts a day and stops with the link), so the
token is not in the browser's history, a bookmark or a shared screenshot, and a reload still
works. Each tab carries its own, so two accounts in one browser do not mix. Moving to another
page in the sidebar drops the query parameters: the session value the tab kept is put back in
the URL. A tab keeps the session value, never the token (issue 32.4), so logging out
(`log_out`) ends the account's sessions in every tab: the next click or reload of another tab
draws the login page; the link logs in again.
"""

from __future__ import annotations

import os

import streamlit as st
from sqlalchemy.engine import Engine

from annotate.config import DATABASE_ENV
from annotate.errors import Unavailable
from annotate.services.database import open_database
from annotate.services.login import CurrentAccount, log_in
from annotate.services.login import log_out as end_account_sessions

SESSION_TOKEN = "login_token"
TOKEN_PARAM = "token"
SESSION_PARAM = "s"
# Left by the rating page for the next run, whichever page it draws (the login page too, when
# the link stopped being valid): "Pair 3 saved." and "Not saved: ..." are said before anything
# about the link.
NOTICE = "notice"
REFUSED = "refused_write"
KNOWN_ACCOUNT = "known_account"  # (token, CurrentAccount) last found for this session


@st.cache_resource(show_spinner=False)
def _engine_for(url: str | None) -> Engine:
    return open_database(url)


def engine() -> Engine:
    return _engine_for(os.environ.get(DATABASE_ENV))


def login_token() -> str | None:
    """What this page logged in with: the URL's token or session value, else the session's
    last good one (checked again on every write)."""
    return (
        st.query_params.get(TOKEN_PARAM)
        or st.query_params.get(SESSION_PARAM)
        or st.session_state.get(SESSION_TOKEN)
    )


def current_account() -> CurrentAccount | None:
    """The active account whose token is in the URL (or was, before a page change), or None.

    When the database does not answer (`Unavailable`), the account this session last found
    with the same token stands in, so the page that was open is drawn again with its entries
    (issue 24.5); every write checks the token again inside its own transaction. A session
    that never found one raises.
    """
    token = login_token()
    if not token:
        return None
    try:
        login = log_in(engine(), token, (st.query_params.get(SESSION_PARAM), token))
    except Unavailable:
        known = st.session_state.get(KNOWN_ACCOUNT)
        if known is None or known[0] != token:
            raise
        return known[1]
    if login is None:
        st.session_state.pop(SESSION_TOKEN, None)
        st.session_state.pop(KNOWN_ACCOUNT, None)
        return None
    _keep(login.session_value, login.account)
    return login.account


def _keep(value: str, found: CurrentAccount) -> None:
    """The tab keeps the session value, never the link's token (issue 32.4): after a Log out
    elsewhere, a page change or a reload here finds no account."""
    st.session_state[KNOWN_ACCOUNT] = (value, found)
    st.session_state[SESSION_TOKEN] = value
    if TOKEN_PARAM in st.query_params:
        del st.query_params[TOKEN_PARAM]  # the token leaves the address bar
    if st.query_params.get(SESSION_PARAM) != value:
        st.query_params[SESSION_PARAM] = value  # a reload keeps working


LOGGED_OUT = (
    "You are logged out: the address this browser kept no longer logs in. Your personal login "
    "link (or the study's link you came by) still does."
)


def log_out() -> None:
    """The Log out button's callback: every session value of the account stops working (in
    every tab and in the browser's history), and this tab forgets the account; the next run
    draws the login page, saying so. When the database does not answer, nothing changes and a
    message says to try again."""
    account_id = st.session_state.get("account_id")
    if account_id is not None:
        try:
            end_account_sessions(engine(), account_id)
        except Unavailable:
            st.toast("Not logged out: the database did not answer. Please try again.")
            return
    st.session_state.clear()
    st.query_params.clear()
    st.session_state[NOTICE] = LOGGED_OUT
