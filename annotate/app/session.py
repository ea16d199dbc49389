"""What every page needs: the cached engine and the logged-in account.

The account is re-identified from the `token` query parameter on every run, so it survives a
reload and works on any app server; session state only caches its id. Moving to another page in
the sidebar drops the query parameters: the session's last good token is put back in the URL
(and checked again, like any token).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import streamlit as st
from sqlalchemy.engine import Engine

from annotate.config import DATABASE_ENV
from annotate.db import make_engine, read_session
from annotate.domain.study.accounts import find_account
from annotate.errors import Unavailable

SESSION_TOKEN = "login_token"
# Left by the rating page for the next run, whichever page it draws (the login page too, when
# the link stopped being valid): "Pair 3 saved." and "Not saved: ..." are said before anything
# about the link.
NOTICE = "notice"
REFUSED = "refused_write"
KNOWN_ACCOUNT = "known_account"  # (token, CurrentAccount) last found for this session


@dataclass(frozen=True)
class CurrentAccount:
    id: int
    name: str
    role: str


@st.cache_resource(show_spinner=False)
def _engine_for(url: str | None) -> Engine:
    return make_engine(url)


def engine() -> Engine:
    return _engine_for(os.environ.get(DATABASE_ENV))


def login_token() -> str | None:
    """The token this page logged in with (the URL's, else the session's last good one)."""
    return st.query_params.get("token") or st.session_state.get(SESSION_TOKEN)


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
        with read_session(engine()) as session:
            account = find_account(session, token)
            if account is None:
                st.session_state.pop(SESSION_TOKEN, None)
                st.session_state.pop(KNOWN_ACCOUNT, None)
                return None
            found = CurrentAccount(id=account.id, name=account.name, role=account.role)  # type: ignore[arg-type]
    except Unavailable:
        known = st.session_state.get(KNOWN_ACCOUNT)
        if known is None or known[0] != token:
            raise
        return known[1]
    st.session_state[KNOWN_ACCOUNT] = (token, found)
    st.session_state[SESSION_TOKEN] = token
    if st.query_params.get("token") != token:
        st.query_params["token"] = token  # a reload or a bookmark keeps working
    return found
