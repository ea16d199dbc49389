"""Who may do what: admin actions need the admin role, results the researcher or admin role.

The app hides pages a role may not open, and every admin action checks again, here, against the
database (the account may have been deactivated or demoted since the page was drawn). The actor
is an account id, or `SYSTEM`: the command line, whose user already holds the database (its URL
and credentials) and so may do anything the database allows; `SYSTEM` is never derived from
anything a browser sends.
"""

from __future__ import annotations

import enum
from typing import Literal

from sqlmodel import Session

from annotate.db.tables import Annotator
from annotate.errors import Forbidden
from annotate.vocabulary import Role

ADMIN_ROLES = (Role.ADMIN,)
RESULTS_ROLES = (Role.RESEARCHER, Role.ADMIN)


class SystemActor(enum.Enum):
    """The operator at the command line (the one value is `SYSTEM`)."""

    SYSTEM = "system"


SYSTEM: Literal[SystemActor.SYSTEM] = SystemActor.SYSTEM
Actor = int | SystemActor | None
"""Who asks: a logged-in account's id, `SYSTEM` (the command line) or None (nobody)."""


class PermissionDenied(Forbidden):
    pass


def may_administer(role: str) -> bool:
    return role in ADMIN_ROLES


def may_see_results(role: str) -> bool:
    return role in RESULTS_ROLES


def require_role(session: Session, actor: Actor, *roles: str) -> Annotator | None:
    """The acting account, if it is active and has one of `roles` (None for `SYSTEM`, which
    passes every check); else PermissionDenied."""
    if actor is SYSTEM:
        return None
    is_id = isinstance(actor, int) and not isinstance(actor, bool)
    account = session.get(Annotator, actor) if is_id else None
    if account is None or not account.active:
        raise PermissionDenied("you are not logged in with an active account")
    if account.role not in roles:
        raise PermissionDenied(
            f"this needs the {' or '.join(roles)} role; your account has the {account.role} role"
        )
    return account


def require_admin(session: Session, actor: Actor) -> Annotator | None:
    return require_role(session, actor, *ADMIN_ROLES)
