"""Who may do what: admin actions need the admin role, results the researcher or admin role.

The app hides pages a role may not open, and every admin action checks again, here, against the
database (the account may have been deactivated or demoted since the page was drawn).
"""

from __future__ import annotations

from sqlmodel import Session

from annotate.db.tables import Annotator
from annotate.errors import Forbidden

ADMIN_ROLES = ("admin",)
RESULTS_ROLES = ("researcher", "admin")


class PermissionDenied(Forbidden):
    pass


def may_administer(role: str) -> bool:
    return role in ADMIN_ROLES


def may_see_results(role: str) -> bool:
    return role in RESULTS_ROLES


def require_role(session: Session, actor_id: int | None, *roles: str) -> Annotator:
    """The acting account, if it is active and has one of `roles`; else PermissionDenied."""
    actor = session.get(Annotator, actor_id) if actor_id is not None else None
    if actor is None or not actor.active:
        raise PermissionDenied("you are not logged in with an active account")
    if actor.role not in roles:
        raise PermissionDenied(
            f"this needs the {' or '.join(roles)} role; your account has the {actor.role} role"
        )
    return actor


def require_admin(session: Session, actor_id: int | None) -> Annotator:
    return require_role(session, actor_id, *ADMIN_ROLES)
