"""Accounts: annotators, adjudicators, admins and researchers, who log in with a personal token.

Tokens are random (192 bits), shown once, and stored only as a SHA-256 hash; a token is
high-entropy, so a plain hash is enough and lookups stay an index hit.

The adjudicator role (issue 22.5) is given only to a person's own account that cannot have seen
the labels or the disputes from the inside: never to a simulated account (`is_simulated`), a
crowd participant (an account with a platform id), an admin or a researcher (they see the
labels), nor to an account still holding ordinary work (reassign it first).

After login the pages keep a *session value* in the address bar instead of the token (issue 24,
item 4): `s2.<account id>.<expiry>.<MAC>`. The MAC is keyed by the server's secret
(`annotate.config.session_secret`, never stored in the database, so a database or backup reader
cannot make one, issue 32.1) over the account id, the expiry, the account's stored token hash and
its session epoch. So a value works on any app server holding the same secret, with no table; it
lasts SESSION_HOURS, and the server refuses one claiming a later expiry than it would issue; it
stops working when the account's link is replaced or the account deactivated, when the person
logs out (`end_sessions`: the epoch goes up; the link itself keeps working), and for everyone when
the secret changes. `find_account` takes a token or a session value.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from urllib.parse import urlencode

from sqlmodel import Session, col, select

from annotate.config import app_url, session_secret
from annotate.db.tables import Annotator, Assignment
from annotate.errors import Forbidden, Invalid
from annotate.vocabulary import ROLES, AssignmentStatus, Purpose, Role

TOKEN_BYTES = 24
SIMULATED_PREFIX = "sim-"
SESSION_PREFIX = "s2."  # tokens (URL-safe base64) never hold a "."; s1 was keyed by the hash
SESSION_HOURS = 24
CLOCK_SKEW_S = 60  # app servers' clocks may differ a little


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
    """Whether an account name is one the simulated annotators get (`sim-01`, ...). A name
    only: whether an account *is* simulated is its `Annotator.simulated` flag (a person may
    have been given such a name before the simulation ran)."""
    number = name.removeprefix(SIMULATED_PREFIX)
    return number != name and number.isdigit()


def adjudicator_refusal(session: Session, account: Annotator) -> str | None:
    """Why this account may not be an adjudicator (None: it may)."""
    if account.simulated or is_simulated(account.name):
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
            col(Assignment.released_at).is_(None),  # a skip given back to the pool holds nothing
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


def session_value(account: Annotator, now: float | None = None) -> str:
    """A value the pages put in the URL in place of the token: it identifies the account for
    SESSION_HOURS, until its link is replaced (see the module's docstring)."""
    expiry = int(time.time() if now is None else now) + SESSION_HOURS * 3600
    mac = _session_mac(account, expiry)
    return f"{SESSION_PREFIX}{account.id}.{expiry}.{mac}"


def _session_mac(account: Annotator, expiry: int) -> str:
    """The MAC of a session value: keyed by the server's secret alone; the account's token hash
    and session epoch are in the message, so a new link or a logout ends the values."""
    message = f"{account.id}.{expiry}.{account.session_epoch}.{account.token_hash}".encode()
    return hmac.new(session_secret().encode(), message, hashlib.sha256).hexdigest()[:32]


def end_sessions(session: Session, account_id: int) -> None:
    """Log out: every session value issued so far for this account stops working, in every tab
    and in the browser's history. The login link does not: it is the person's own."""
    account = session.get(Annotator, account_id)
    if account is not None:
        account.session_epoch += 1
        session.add(account)


def _session_account(session: Session, value: str, now: float | None) -> Annotator | None:
    parts = value[len(SESSION_PREFIX) :].split(".")
    if len(parts) != 3 or not all(p.isascii() and p.isalnum() for p in parts):
        return None
    if not all(p.isdigit() and len(p) <= 18 for p in parts[:2]):
        return None
    account_id, expiry = int(parts[0]), int(parts[1])
    moment = time.time() if now is None else now
    # Never longer than the server issues, whatever the value claims (issue 32.1).
    if not moment <= expiry <= moment + SESSION_HOURS * 3600 + CLOCK_SKEW_S:
        return None
    account = session.get(Annotator, account_id)
    if account is None or not account.active:
        return None
    wanted = _session_mac(account, expiry)
    return account if hmac.compare_digest(wanted, parts[2]) else None


def find_account(session: Session, token: str | None, now: float | None = None) -> Annotator | None:
    """The active account that owns this token (or session value, `session_value`), or None."""
    if not token:
        return None
    if token.startswith(SESSION_PREFIX):
        return _session_account(session, token.strip(), now)
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
