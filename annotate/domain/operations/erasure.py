"""A participant's withdrawal and the erasure of a person's data (issue 24.2), and retention.

`erase` removes everything a person left in a study: their scores and the scores' revisions,
aspect marks and theirs, the direct preferences and rationales (on the assignments), comments,
flags and skip reasons, the admins' resolutions of their flags, their survey answers and
consent (participation), their training, and, when no other study holds anything of theirs,
the account (name, platform id, session hash, token hash). Audit entries that named them keep
their action with the name replaced by `ERASED`. The study's erasure log (`Erasure`) records
that a person's data went, when, why and how many scores, nothing about who: the report and the
card read it. A card published before and backups made before are not recalled.

`withdraw` is the participant's own way out: their unfinished pairs are released, the account
is deactivated (its link stops working) and the withdrawal time kept; with `erase_data` the
data go as above.

`retention_due` lists (and `forget` erases) what a study's retention period (days) says must go:
the platform ids (account name, external id, session hash) and free text of participants whose
last activity in the study is older than the period. Their scores stay, under the pseudonym.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, func, update
from sqlmodel import Session, col, select

from annotate.db.tables import (
    Annotator,
    AspectMark,
    AspectMarkRevision,
    Assignment,
    AuditEntry,
    Erasure,
    FlagResolution,
    Participation,
    Rating,
    RatingRevision,
    Study,
    Training,
    stored_id,
    utcnow,
)
from annotate.domain.assignment import as_utc
from annotate.domain.study import accounts
from annotate.errors import Invalid
from annotate.vocabulary import AssignmentStatus

ERASED = "[erased]"
REQUEST = "request"
WITHDRAWAL = "withdrawal"
RETENTION_PREFIX = "retained-"


@dataclass(frozen=True)
class Erased:
    """What an erasure removed (counts only)."""

    n_assignments: int
    n_scores: int
    account_removed: bool


def _ids(session: Session, query: Any) -> list[int]:
    return [int(i) for i in session.exec(query)]


def _in_study(session: Session, annotator_id: int, study_id: int) -> list[int]:
    return _ids(
        session,
        select(Assignment.id).where(
            col(Assignment.annotator_id) == annotator_id, col(Assignment.study_id) == study_id
        ),
    )


def _remove_work(session: Session, assignment_ids: Sequence[int]) -> int:
    """Delete the assignments and everything hanging from them; return the scores removed."""
    if not assignment_ids:
        return 0
    ratings = select(Rating.id).where(col(Rating.assignment_id).in_(assignment_ids))
    marks = select(AspectMark.id).where(col(AspectMark.assignment_id).in_(assignment_ids))
    n_scores = len(_ids(session, ratings))
    session.execute(delete(RatingRevision).where(col(RatingRevision.rating_id).in_(ratings)))
    session.execute(delete(Rating).where(col(Rating.assignment_id).in_(assignment_ids)))
    session.execute(delete(AspectMarkRevision).where(col(AspectMarkRevision.mark_id).in_(marks)))
    session.execute(delete(AspectMark).where(col(AspectMark.assignment_id).in_(assignment_ids)))
    session.execute(
        delete(FlagResolution).where(col(FlagResolution.assignment_id).in_(assignment_ids))
    )
    session.execute(delete(Assignment).where(col(Assignment.id).in_(assignment_ids)))
    return n_scores


def _holds_elsewhere(session: Session, annotator_id: int) -> bool:
    """Whether any study still holds an assignment, participation or training of the account."""
    for table in (Assignment, Participation, Training):
        query = select(func.count()).where(col(table.annotator_id) == annotator_id)
        if session.exec(query).one():
            return True
    return False


def _scrub(value: Any, words: Sequence[str]) -> Any:
    if isinstance(value, str):
        for word in words:
            value = value.replace(word, ERASED)
        return value
    if isinstance(value, dict):
        return {_scrub(k, words): _scrub(v, words) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub(v, words) for v in value]
    return value


def scrub_audit(session: Session, words: Iterable[str]) -> int:
    """Replace `words` (a person's name, platform id) wherever the audit log holds them; return
    the entries changed. The JSON columns are compared as text, so any nesting is found."""
    found = [w for w in words if w]
    changed = 0
    for entry in session.exec(select(AuditEntry)).all():
        text = json.dumps([entry.who, entry.before, entry.after])
        if not any(w in text or json.dumps(w)[1:-1] in text for w in found):
            continue
        entry.who = _scrub(entry.who, found)
        entry.before = _scrub(entry.before, found)
        entry.after = _scrub(entry.after, found)
        session.add(entry)
        changed += 1
    return changed


def _others_rated(session: Session, study_id: int, annotator_id: int) -> bool:
    query = (
        select(func.count())
        .select_from(Rating)
        .join(Assignment, col(Assignment.id) == col(Rating.assignment_id))
        .where(col(Assignment.study_id) == study_id, col(Assignment.annotator_id) != annotator_id)
    )
    return bool(session.exec(query).one())


def _mine(table: type[Participation] | type[Training], annotator_id: int, study_id: int) -> Any:
    """The WHERE clauses of one person's row of `table` in one study."""
    return (col(table.annotator_id) == annotator_id, col(table.study_id) == study_id)


def erase(session: Session, account: Annotator, study: Study, reason: str = REQUEST) -> Erased:
    """Remove everything `account` left in `study` (see the module), log it without the person."""
    study_id, annotator_id = stored_id(study), stored_id(account)
    work = _in_study(session, annotator_id, study_id)
    if not (work or _has_records(session, annotator_id, study_id)):
        raise Invalid(f"{account.name!r} has no data in study {study.name!r}: nothing to erase")
    after_ratings = _others_rated(session, study_id, annotator_id)
    n_scores = _remove_work(session, work)
    for table in (Participation, Training):
        session.execute(delete(table).where(*_mine(table, annotator_id, study_id)))
    words = [account.name, account.external_id or ""]
    removed = not _holds_elsewhere(session, annotator_id)
    if removed:
        scrub_audit(session, words)
        session.delete(account)
    session.add(
        Erasure(study_id=study_id, reason=reason, n_scores=n_scores, after_ratings=after_ratings)
    )
    session.flush()
    return Erased(len(work), n_scores, removed)


def _has_records(session: Session, annotator_id: int, study_id: int) -> bool:
    """Whether the person has a participation or a training row in the study."""
    return any(
        session.exec(select(table.id).where(*_mine(table, annotator_id, study_id))).first()
        for table in (Participation, Training)
    )


def withdraw(session: Session, account: Annotator, study: Study, *, erase_data: bool) -> Erased:
    """The participant leaves `study` now: unfinished pairs released, the account deactivated,
    the withdrawal kept; with `erase_data` everything of theirs erased (`erase`; someone who
    only opened the link has just the account, which goes, with nothing to log)."""
    study_id, annotator_id = stored_id(study), stored_id(account)
    in_study = bool(_in_study(session, annotator_id, study_id))
    if erase_data and (in_study or _has_records(session, annotator_id, study_id)):
        return erase(session, account, study, WITHDRAWAL)
    if erase_data and not _holds_elsewhere(session, annotator_id):
        scrub_audit(session, [account.name, account.external_id or ""])
        session.delete(account)
        session.flush()
        return Erased(0, 0, True)
    pending = _ids(
        session,
        select(Assignment.id).where(
            col(Assignment.annotator_id) == annotator_id,
            col(Assignment.study_id) == study_id,
            col(Assignment.status) == AssignmentStatus.PENDING,
        ),
    )
    released = _remove_work(session, pending)  # a pending pair has no scores saved with it
    record = session.exec(
        select(Participation).where(
            col(Participation.annotator_id) == annotator_id,
            col(Participation.study_id) == study_id,
        )
    ).first()
    if record is None:  # a study without a consent page: no participation row until now
        record = Participation(annotator_id=annotator_id, study_id=study_id, consent="not asked")
    record.withdrawn_at = utcnow()
    session.add(record)
    accounts.set_active(session, account.name, False)
    session.flush()
    return Erased(len(pending), released, False)


# ---------------------------------------------------------------- retention


@dataclass(frozen=True)
class Due:
    """A participant whose platform ids and free text the study's retention period says must go
    (named by their pseudonym by the caller; `account_id` stays in the database)."""

    account_id: int
    last_active: datetime


def _last_active(session: Session, annotator_id: int, study_id: int) -> datetime | None:
    times: list[datetime] = []
    for query in (
        select(func.max(Assignment.completed_at)).where(
            col(Assignment.annotator_id) == annotator_id, col(Assignment.study_id) == study_id
        ),
        select(func.max(Assignment.created_at)).where(
            col(Assignment.annotator_id) == annotator_id, col(Assignment.study_id) == study_id
        ),
        select(func.max(Participation.consent_at)).where(
            col(Participation.annotator_id) == annotator_id,
            col(Participation.study_id) == study_id,
        ),
    ):
        found = session.exec(query).one()
        if found is not None:
            times.append(as_utc(found))
    return max(times) if times else None


def retention_due(session: Session, study: Study, now: datetime | None = None) -> list[Due]:
    """The study's crowd participants not yet forgotten whose last activity is older than the
    study's retention period (none without a period)."""
    if study.retention_days is None:
        return []
    limit = as_utc(now or utcnow()) - timedelta(days=study.retention_days)
    study_id = stored_id(study)
    members = session.exec(
        select(Annotator)
        .join(Assignment, col(Assignment.annotator_id) == col(Annotator.id), isouter=True)
        .join(Participation, col(Participation.annotator_id) == col(Annotator.id), isouter=True)
        .where(
            (col(Assignment.study_id) == study_id) | (col(Participation.study_id) == study_id),
            col(Annotator.external_id).is_not(None),
        )
        .distinct()
    ).all()
    due = []
    for member in members:
        last = _last_active(session, stored_id(member), study_id)
        if last is not None and last < limit:
            due.append(Due(stored_id(member), last))
    return sorted(due, key=lambda d: d.last_active)


def forget(session: Session, study: Study, due: Sequence[Due]) -> int:
    """Erase the platform ids and free text of the `due` participants (`retention_due`): the
    account's name becomes `retained-<id>`, its platform id and session hash go, and so do the
    comments, flag and skip reasons, rationales (with their history) and survey answers; the
    scores stay. Returns how many participants were forgotten."""
    for item in due:
        account = session.get(Annotator, item.account_id)
        if account is None:
            continue
        words = [account.name, account.external_id or ""]
        account.name = f"{RETENTION_PREFIX}{item.account_id}"
        account.external_id = None
        account.enrolment_session_hash = None
        account.token_hash = accounts.hash_token(accounts.generate_token())  # link unknown to all
        account.active = False
        session.add(account)
        scrub_audit(session, words)
        _forget_texts(session, item.account_id, study)
    session.flush()
    return len(due)


def _forget_texts(session: Session, annotator_id: int, study: Study) -> None:
    study_id = stored_id(study)
    mine = (col(Assignment.annotator_id) == annotator_id) & (col(Assignment.study_id) == study_id)
    session.execute(
        update(Assignment)
        .where(mine)
        .values(comment=None, flag_reason=None, skip_reason=None, rationale=None)
    )
    for assignment in session.exec(select(Assignment).where(mine)).all():
        if assignment.preference_history:
            assignment.preference_history = [
                {**e, "rationale": None} for e in assignment.preference_history
            ]
            session.add(assignment)
    typed = {q["id"] for q in study.survey_questions if q.get("kind") == "text"}
    for record in session.exec(
        select(Participation).where(
            col(Participation.annotator_id) == annotator_id,
            col(Participation.study_id) == study_id,
        )
    ).all():
        if record.survey:  # choices stay (not free text), typed answers go
            record.survey = {k: v for k, v in record.survey.items() if k not in typed}
            session.add(record)
