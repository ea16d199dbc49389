"""Erasure, withdrawal and retention (issue 24.2), one transaction each.

`erase_person` (admin, audited without the person: the entry holds counts only) and
`withdraw_me` (the participant, with their own login token) call
`annotate.domain.operations.erasure`; `retention` lists, and with `erase` forgets, what the
studies' retention periods say must go. The report and the card read the study's erasure log.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from annotate.db import read_session, write_session
from annotate.db.tables import Annotator, Study, stored_id
from annotate.domain.exports.pseudonyms import pseudonym, secret_key, study_members
from annotate.domain.operations import erasure
from annotate.domain.study import accounts
from annotate.domain.study.permissions import Actor, require_admin
from annotate.domain.study.studies import get_study, update_study
from annotate.errors import NotFound
from annotate.services.audited import admin_change


def erase_person(engine: Engine, actor: Actor, name: str, study: str) -> erasure.Erased:
    """Erase everything `name` left in `study` (and the account when nothing else holds it)."""
    with admin_change(engine, actor, "annotator.erase", study) as change:
        account = accounts.get_account(change.session, name)
        assert change.study is not None
        done = erasure.erase(change.session, account, change.study)
        change.after = {
            "scores_removed": done.n_scores,
            "pairs_removed": done.n_assignments,
            "account_removed": done.account_removed,
        }
        return done


def withdraw_me(
    engine: Engine, actor_id: int, *, study: str, token: str | None, erase_data: bool
) -> erasure.Erased:
    """The logged-in participant withdraws from `study` (with `erase_data`: and is erased). With
    `token`, refused unless it is still this account's login, as a submit is."""
    with write_session(engine) as session:
        if token is not None:
            accounts.require_current_login(session, token, actor_id)
        account = session.get(Annotator, actor_id)
        if account is None:
            raise NotFound("this account no longer exists")
        return erasure.withdraw(session, account, get_study(session, study), erase_data=erase_data)


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
        for target, due in found:
            erasure.forget(change.session, target, due)
        change.after = {"participants_forgotten": len(lines)}
        change.changed = bool(lines)
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
