"""Who a page's token or session value belongs to, and Log out: the app's login as services
(the pages open no session of their own; `annotate.app.session` keeps the tab's side)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy.engine import Engine
from sqlmodel import Session

from annotate.db import read_session, write_session
from annotate.db.tables import stored_id
from annotate.domain.assignment.release import release_held
from annotate.domain.study.accounts import (
    SESSION_PREFIX,
    end_sessions,
    find_account,
    session_value,
)
from annotate.domain.study.permissions import Actor, require_role


@dataclass(frozen=True)
class CurrentAccount:
    id: int
    name: str
    role: str


@dataclass(frozen=True)
class Login:
    """The active account a token names, and the session value the tab keeps for it."""

    account: CurrentAccount
    session_value: str


def log_in(engine: Engine, token: str, held: Sequence[str | None]) -> Login | None:
    """The active account whose token or session value is `token`, or None. The tab keeps a
    session value it already holds for that account (`held`: the address's, then the one it
    logged in with), else gets a new one (`annotate.domain.study.accounts.session_value`)."""
    with read_session(engine) as session:
        account = find_account(session, token)
        if account is None:
            return None
        found = CurrentAccount(id=stored_id(account), name=account.name, role=account.role)
        value = _kept_value(session, held, found.id) or session_value(account)
    return Login(found, value)


def _kept_value(session: Session, held: Sequence[str | None], account_id: int) -> str | None:
    for value in held:
        if value and value.startswith(SESSION_PREFIX):
            shown = find_account(session, value)
            if shown is not None and shown.id == account_id:
                return value
    return None


def log_out(engine: Engine, account_id: int) -> None:
    """Every session value issued so far for the account stops working, in every tab; the pairs
    held behind the ones being rated go back to the pool (`release.release_held`)."""
    with write_session(engine) as session:
        end_sessions(session, account_id)
        release_held(session, account_id)


def require_roles(engine: Engine, actor: Actor, *roles: str) -> None:
    """Raise `annotate.errors.Forbidden` unless the actor holds one of `roles` (a page that is
    not the annotator's checks this before it draws anything)."""
    with read_session(engine) as session:
        require_role(session, actor, *roles)
