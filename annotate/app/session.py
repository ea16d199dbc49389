"""What every page needs: the cached engine and the logged-in account.

The account is re-identified from the `token` query parameter on every run, so it survives a
reload and works on any app server; session state only caches its id.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import streamlit as st
from sqlalchemy.engine import Engine

from annotate.accounts import find_account
from annotate.config import DATABASE_ENV
from annotate.db import make_engine, read_session


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


def current_account() -> CurrentAccount | None:
    """The active account whose token is in the URL, or None."""
    token = st.query_params.get("token")
    if not token:
        return None
    with read_session(engine()) as session:
        account = find_account(session, token)
        if account is None:
            return None
        return CurrentAccount(id=account.id, name=account.name, role=account.role)  # type: ignore[arg-type]
