"""Accounts and their login links, with the admin check in the same transaction."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy.engine import Engine

from annotate.db import read_session
from annotate.db.tables import Annotator, stored_id
from annotate.domain.assignment import as_utc
from annotate.domain.crowd import purge
from annotate.domain.operations import adjudication
from annotate.domain.study import accounts
from annotate.domain.study.permissions import (
    Actor,
    admins_left,
    keep_an_admin,
    last_admin,
    require_admin,
)
from annotate.services.audited import admin_change
from annotate.vocabulary import Role


@dataclass(frozen=True)
class AccountRow:
    name: str
    role: str
    active: bool
    external_id: str | None
    simulated: bool  # made-up ratings (`Annotator.simulated`), not a person


@dataclass(frozen=True)
class NewLink:
    """A login link, shown once: only a hash of its token is stored."""

    name: str
    role: str
    link: str


def list_accounts(engine: Engine, actor: Actor) -> list[AccountRow]:
    with read_session(engine) as session:
        require_admin(session, actor)
        return [
            AccountRow(a.name, a.role, a.active, a.external_id, a.simulated)
            for a in accounts.list_accounts(session)
        ]


def create_accounts(
    engine: Engine,
    actor: Actor,
    names: Sequence[str],
    role: str = Role.ANNOTATOR,
    base_url: str | None = None,
) -> list[NewLink]:
    """Create accounts (all or none); return each one's login link: the only time it is seen."""
    with admin_change(engine, actor, "accounts.create") as change:
        created = [
            accounts.create_account(change.session, n, role=role) for n in names if n.strip()
        ]
        change.after = {"accounts": [a.name for a, _ in created], "role": role}
    return [NewLink(a.name, a.role, accounts.login_link(token, base_url)) for a, token in created]


def rotate_account(engine: Engine, actor: Actor, name: str, base_url: str | None = None) -> str:
    """A new login link for the account; the old one stops working."""
    with admin_change(engine, actor, "accounts.new_link") as change:
        change.after = {"account": name}
        return accounts.login_link(accounts.rotate_token(change.session, name), base_url)


def set_accounts_active(engine: Engine, actor: Actor, names: Sequence[str], active: bool) -> None:
    """Let the accounts log in, or stop them (all or none); nobody deactivates themselves. A
    deactivated adjudicator's unfinished adjudications are released, so their pairs can go to
    another adjudicator."""
    with admin_change(engine, actor, "accounts.active") as change:
        if not active and _is(change.account, names):
            raise accounts.AccountError("you cannot deactivate your own account")
        if not active:
            found = [accounts.get_account(change.session, n) for n in names]
            keep_an_admin(change.session, found, "deactivate")
        released: list[int] = []
        for name in names:
            account = accounts.set_active(change.session, name, active)
            if not active:
                released += adjudication.release_adjudications(change.session, stored_id(account))
        change.after = {"accounts": list(names), "active": active}
        if released:
            change.after["released_adjudications"] = released


def set_account_role(engine: Engine, actor: Actor, name: str, role: str) -> None:
    with admin_change(engine, actor, "accounts.role") as change:
        if role != Role.ADMIN and _is(change.account, [name]):
            raise accounts.AccountError("you cannot take the admin role from your own account")
        account = accounts.get_account(change.session, name)
        change.before = {"account": name, "role": account.role}
        was_admin = account.role == Role.ADMIN and account.active
        accounts.set_role(change.session, name, role)  # its own refusals come first
        if (
            was_admin
            and role != Role.ADMIN
            and not admins_left(change.session, [stored_id(account)])
        ):
            raise last_admin(name, "take the admin role from")
        change.after = {"account": name, "role": role}


def _is(acting: Annotator | None, names: Sequence[str]) -> bool:
    """Whether the acting account (None: the command line) is one of `names`."""
    return acting is not None and acting.name in names


def purge_unstarted(engine: Engine, actor: Actor, study: str) -> int:
    """Remove the study's crowd accounts that never started and have expired
    (`annotate.domain.crowd.purge`); audited with their number, not their platform ids."""
    with admin_change(engine, actor, "crowd.purge", study) as change:
        target = change.study
        assert target is not None
        purged = purge.purge_unstarted(change.session, target, as_utc())
        change.after = {"purged_accounts": purged, "expired_after_hours": purge.UNSTARTED_HOURS}
        return purged
