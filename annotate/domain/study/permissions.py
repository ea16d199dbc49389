"""Who may do what: admin actions need the admin role, results the researcher or admin role.

The app hides pages a role may not open, and every admin action checks again, here, against the
database (the account may have been deactivated or demoted since the page was drawn). The actor
is an account id, or `SYSTEM`: the command line, whose user already holds the database (its URL
and credentials) and so may do anything the database allows; `SYSTEM` is never derived from
anything a browser sends.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sqlalchemy import func
from sqlmodel import Session, col, select

from annotate.db.tables import Annotator
from annotate.errors import Conflict, Forbidden
from annotate.vocabulary import SYSTEM as SYSTEM
from annotate.vocabulary import Actor as Actor
from annotate.vocabulary import Role
from annotate.vocabulary import SystemActor as SystemActor

ADMIN_ROLES = (Role.ADMIN,)
RESULTS_ROLES = (Role.RESEARCHER, Role.ADMIN)


class PermissionDenied(Forbidden):
    pass


class LastAdmin(Conflict):
    """The change would leave the database without an active admin account."""


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


def admins_left(session: Session, leaving: Iterable[int]) -> int:
    """How many active admin accounts remain once the accounts `leaving` (ids) are gone."""
    query = select(func.count()).where(
        col(Annotator.role) == Role.ADMIN,
        col(Annotator.active).is_(True),
        col(Annotator.id).not_in(list(leaving)),
    )
    return int(session.exec(query).one())


def keep_an_admin(session: Session, leaving: Sequence[Annotator], doing: str) -> None:
    """Refuse (LastAdmin) to withdraw, erase, deactivate or demote the last active admin: the
    one rule every path (pages, command line, retention, the crowd purge) calls."""
    ids = [int(a.id) for a in leaving if a.id is not None]
    holds = [a for a in leaving if a.role == Role.ADMIN and a.active]
    if holds and admins_left(session, ids) == 0:
        raise last_admin(holds[0].name, doing)


def last_admin(name: str, doing: str) -> LastAdmin:
    """The refusal to `doing` the account `name`, the last active admin."""
    return LastAdmin(
        f"cannot {doing} {name!r}: it is the last active admin account "
        "(give another account the admin role first)"
    )


def spare_last_admin(session: Session, found: Sequence[Annotator]) -> list[Annotator]:
    """`found` without its active admins when removing them all would leave no active admin:
    what a retention run or the crowd purge (which refuse nobody, they run on a schedule)
    leave alone."""
    try:
        keep_an_admin(session, found, "remove")
    except LastAdmin:
        return [a for a in found if not (a.role == Role.ADMIN and a.active)]
    return list(found)
