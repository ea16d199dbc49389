"""Erasure, withdrawal and retention (issue 24.2), one transaction each.

`erase_person` (admin, audited without the person: the entry holds counts only) and
`withdraw_me` (the participant, with their own login token) call
`annotate.domain.operations.erasure`; `retention` lists, and with `erase` forgets, what the
studies' retention periods say must go. The report and the card read the study's erasure log.
Once an erasure has committed, its bytes are made to leave the database's files
(`annotate.db.reclaim_erased`).

Withdrawal is a crowd participant's own act (issue 32.2): `may_withdraw` says whether the page
offers it, `withdraw_me` checks the same rule again. Withdrawing *with erasure* needs the login
token the participant's own tab received when it enrolled (`annotate.app.participant.withdraw`): a
session value, the `s` of the address, which anyone looking at the screen or the browser's history
can read, withdraws without erasure only.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from annotate.db import read_session, reclaim_erased, write_session
from annotate.db.tables import (
    Annotator,
    AspectMark,
    AspectMarkRevision,
    Assignment,
    AuditEntry,
    FlagResolution,
    Participation,
    PlatformAction,
    Rating,
    RatingRevision,
    Span,
    Study,
    Training,
    stored_id,
)
from annotate.domain.exports.pseudonyms import pseudonym, secret_key, study_members
from annotate.domain.operations import erasure
from annotate.domain.study import accounts
from annotate.domain.study.permissions import Actor, require_admin
from annotate.domain.study.studies import get_study, update_study
from annotate.errors import Forbidden, NotFound
from annotate.services.audited import admin_change

ERASED_TABLES = tuple(
    str(t.__tablename__)
    for t in (
        Annotator,
        Assignment,
        Rating,
        RatingRevision,
        AspectMark,
        AspectMarkRevision,
        Span,
        FlagResolution,
        Participation,
        Training,
        AuditEntry,
        PlatformAction,
    )
)
"""The tables an erasure deletes from or rewrites (the ones `reclaim_erased` compacts)."""
ERASE_NEEDS_OWN_TAB = (
    "Your data can be erased only from the browser tab where you opened the study link. "
    "Please open the study again from the platform (on Prolific: the study's link), then "
    "withdraw there with erasure; or withdraw here and ask the researchers, through the "
    "platform's messages, to erase your data."
)


def erase_person(engine: Engine, actor: Actor, name: str, study: str) -> erasure.Erased:
    """Erase everything `name` left in `study` (and the account when nothing else holds it)."""
    with admin_change(engine, actor, "annotator.erase", study) as change:
        account = accounts.get_account(change.session, name)
        assert change.study is not None
        key = secret_key(change.session)
        done = erasure.erase(change.session, account, change.study, key=key)
        change.after = {
            "scores_removed": done.n_scores,
            "pairs_removed": done.n_assignments,
            "account_removed": done.account_removed,
        }
    reclaim_erased(engine, ERASED_TABLES)
    return done


def may_withdraw(engine: Engine, actor_id: int, *, study: str, key: str) -> bool:
    """Whether the logged-in account may withdraw from `study` through the link with `key`
    (`erasure.withdrawal_refusal`): what decides whether the page draws the Withdraw box."""
    with read_session(engine) as session:
        account = session.get(Annotator, actor_id)
        target = session.exec(select(Study).where(col(Study.name) == study.strip())).first()
        if account is None or target is None or not account.active:
            return False
        return erasure.withdrawal_refusal(session, account, target, key) is None


def withdraw_me(
    engine: Engine, actor_id: int, *, study: str, key: str, token: str, erase_data: bool
) -> erasure.Erased:
    """The logged-in participant withdraws from `study`, through the study link with `key`
    (with `erase_data`: and is erased). Refused unless `token` is still this account's login,
    as a submit is, unless the account is a participant of the study (`may_withdraw`), and,
    with `erase_data`, unless `token` is the login token itself, not a session value."""
    with write_session(engine) as session:
        accounts.require_current_login(session, token, actor_id)
        account = session.get(Annotator, actor_id)
        if account is None:
            raise NotFound("this account no longer exists")
        target = get_study(session, study)
        refusal = erasure.withdrawal_refusal(session, account, target, key)
        if refusal is not None:
            raise Forbidden(refusal)
        if erase_data and token.strip().startswith(accounts.SESSION_PREFIX):
            raise Forbidden(ERASE_NEEDS_OWN_TAB)
        done = erasure.withdraw(
            session, account, target, erase_data=erase_data, key=secret_key(session)
        )
    if erase_data:
        reclaim_erased(engine, ERASED_TABLES)
    return done


@dataclass(frozen=True)
class RetentionLine:
    """A participant the study's retention period says to forget, named by pseudonym."""

    study: str
    annotator: str
    last_active: datetime
    retention_days: int


def _due(session: Session, study: str | None) -> list[tuple[Study, list[erasure.Due]]]:
    query = select(Study).where(col(Study.retention_days).is_not(None)).order_by(col(Study.name))
    targets = [get_study(session, study)] if study else list(session.exec(query).all())
    return [(t, erasure.retention_due(session, t)) for t in targets]


def _lines(session: Session, found: list[tuple[Study, list[erasure.Due]]]) -> list[RetentionLine]:
    key = secret_key(session)
    return [
        RetentionLine(
            t.name,
            pseudonym(key, stored_id(t), d.account_id),
            d.last_active,
            int(t.retention_days or 0),
        )
        for t, due in found
        for d in due
    ]


def retention(
    engine: Engine, actor: Actor, study: str | None = None, *, erase: bool = False
) -> list[RetentionLine]:
    """The participants whose platform ids and free text are older than their study's retention
    period (of one study, or of every study with a period); with `erase`, forgotten (audited
    with counts only)."""
    if not erase:
        with read_session(engine) as session:
            require_admin(session, actor)
            return _lines(session, _due(session, study))
    with admin_change(engine, actor, "retention.erase", study) as change:
        found = _due(change.session, study)
        lines = _lines(change.session, found)
        key = secret_key(change.session)
        for target, due in found:
            erasure.forget(change.session, target, due, key=key)
        change.after = {"participants_forgotten": len(lines)}
        change.changed = bool(lines)
    if lines:
        reclaim_erased(engine, ERASED_TABLES)
    return lines


def set_retention(engine: Engine, actor: Actor, study: str, days: int | None) -> None:
    """Set (or with None clear) the study's retention period in days (audited)."""
    with admin_change(engine, actor, "study.update", study) as change:
        assert change.study is not None
        change.before = {"retention_days": change.study.retention_days}
        update_study(change.session, study, retention_days=days)
        change.after = {"retention_days": days}


def study_people(engine: Engine, actor: Actor, study: str) -> list[str]:
    """The account names of everyone with data in `study` (whom `erase_person` can erase)."""
    with read_session(engine) as session:
        require_admin(session, actor)
        return sorted(
            name for _, name in study_members(session, stored_id(get_study(session, study)))
        )
