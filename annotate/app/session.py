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

SESSION_TOKEN = "login_token"
# Left by the rating page for the next run, whichever page it draws (the login page too, when
# the link stopped being valid): "Pair 3 saved." and "Not saved: ..." are said before anything
# about the link.
NOTICE = "notice"
REFUSED = "refused_write"


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
    """The active account whose token is in the URL (or was, before a page change), or None."""
    token = login_token()
    if not token:
        return None
    with read_session(engine()) as session:
        account = find_account(session, token)
        if account is None:
            st.session_state.pop(SESSION_TOKEN, None)
            return None
        found = CurrentAccount(id=account.id, name=account.name, role=account.role)  # type: ignore[arg-type]
    st.session_state[SESSION_TOKEN] = token
    if st.query_params.get("token") != token:
        st.query_params["token"] = token  # a reload or a bookmark keeps working
    return found
