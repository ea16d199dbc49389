"""Accounts: annotators, adjudicators, admins and researchers, who log in with a personal token.

Tokens are random (192 bits), shown once, and stored only as a SHA-256 hash; a token is
high-entropy, so a plain hash is enough and lookups stay an index hit.

The adjudicator role (issue 22.5) is given only to a person's own account that cannot have seen
the labels or the disputes from the inside: never to a simulated account (`is_simulated`), a
crowd participant (an account with a platform id), an admin or a researcher (they see the
labels), nor to an account still holding ordinary work (reassign it first).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from urllib.parse import urlencode

from sqlmodel import Session, col, select

from annotate.config import app_url
from annotate.db.tables import Annotator, Assignment
from annotate.errors import Forbidden, Invalid
from annotate.vocabulary import ROLES, AssignmentStatus, Purpose, Role

TOKEN_BYTES = 24
SIMULATED_PREFIX = "sim-"


class AccountError(Invalid):
    pass


class LoginNoLongerValid(Forbidden):
    """The page's login token was replaced or its account deactivated since the page opened."""


def generate_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def login_link(token: str, base_url: str | None = None) -> str:
    return f"{(base_url or app_url()).rstrip('/')}/?{urlencode({'token': token})}"


def _check_role(role: str) -> None:
    if role not in ROLES:
        raise AccountError(f"unknown role {role!r}; expected one of {', '.join(ROLES)}")


def is_simulated(name: str) -> bool:
    """Whether an account name is one the simulated annotators get (`sim-01`, ...): made-up
    ratings, not a person."""
    number = name.removeprefix(SIMULATED_PREFIX)
    return number != name and number.isdigit()


def adjudicator_refusal(session: Session, account: Annotator) -> str | None:
    """Why this account may not be an adjudicator (None: it may)."""
    if is_simulated(account.name):
        return f"{account.name} is a simulated account, not a person"
    if account.external_id is not None:
        return f"{account.name} is a crowd participant"
    if account.role in (Role.ADMIN, Role.RESEARCHER):
        return f"{account.name} is {account.role} and can see the benchmark's labels"
    holding = session.exec(
        select(Assignment.id).where(
            Assignment.annotator_id == account.id,
            Assignment.purpose == Purpose.RATING,
            col(Assignment.status).in_((AssignmentStatus.PENDING, AssignmentStatus.SKIPPED)),
        )
    ).first()
    if holding is not None:
        return f"{account.name} still holds ordinary pairs to rate; reassign them first"
    return None


def create_account(
    session: Session, name: str, *, role: str = Role.ANNOTATOR
) -> tuple[Annotator, str]:
    """Create an account; return it with its token (the only time the token is seen)."""
    _check_role(role)
    name = name.strip()
    if not name:
        raise AccountError("an account needs a non-empty name")
    if account_named(session, name) is not None:
        raise AccountError(f"an account named {name!r} already exists")
    if role == Role.ADJUDICATOR and is_simulated(name):
        raise AccountError(f"an adjudicator cannot have a simulated account's name ({name!r})")
    token = generate_token()
    account = Annotator(name=name, role=role, token_hash=hash_token(token))
    session.add(account)
    session.flush()
    return account, token


def find_account(session: Session, token: str | None) -> Annotator | None:
    """The active account that owns this token, or None."""
    if not token:
        return None
    wanted = hash_token(token.strip())
    account = session.exec(select(Annotator).where(Annotator.token_hash == wanted)).first()
    if account is None or not hmac.compare_digest(account.token_hash, wanted):
        return None
    return account if account.active else None


def require_current_login(session: Session, token: str | None, account_id: int) -> None:
    """Refuse a write from a page whose token is no longer this active account's."""
    account = find_account(session, token)
    if account is None or account.id != account_id:
        raise LoginNoLongerValid(
            "Not saved: this login link is no longer valid (it was replaced or deactivated). "
            "Your entries are still on the page; please ask the study organisers for a new link."
        )


def account_named(session: Session, name: str) -> Annotator | None:
    return session.exec(select(Annotator).where(Annotator.name == name)).first()


def get_account(session: Session, name: str) -> Annotator:
    account = account_named(session, name)
    if account is None:
        raise AccountError(f"no account named {name!r}")
    return account


def list_accounts(session: Session) -> list[Annotator]:
    return list(session.exec(select(Annotator).order_by(col(Annotator.id))).all())


def rotate_token(session: Session, name: str) -> str:
    """Give the account a new token; the old one stops working at once."""
    account = get_account(session, name)
    token = generate_token()
    account.token_hash = hash_token(token)
    session.add(account)
    return token


def set_active(session: Session, name: str, active: bool) -> Annotator:
    account = get_account(session, name)
    account.active = active
    session.add(account)
    return account


def set_role(session: Session, name: str, role: str) -> Annotator:
    _check_role(role)
    account = get_account(session, name)
    if role == Role.ADJUDICATOR and account.role != Role.ADJUDICATOR:
        refusal = adjudicator_refusal(session, account)
        if refusal is not None:
            raise AccountError(f"not an adjudicator: {refusal}")
    account.role = role
    session.add(account)
    return account
