"""A participant's withdrawal and the erasure of a person's data (issue 24.2), and retention.

`erase` removes everything a person left in a study: their scores and the scores' revisions,
aspect marks and theirs, the direct preferences and rationales (on the assignments), comments,
flags and skip reasons, the admins' resolutions of their flags, their survey answers and consent
(participation), their training, their answers to instructed-response checks, and, when no other
study holds anything of theirs, the account (name, platform id, session hash, token hash). Audit
entries that named them keep their action with the name (or platform id), where it is a whole
value, replaced by one alias of the account (`annotate.domain.study.audit.erased_alias`); every
other entry is left as it was.
The last active admin is never erased, withdrawn or forgotten (`permissions.keep_an_admin`).
The study's erasure log (`Erasure`) records that a person's data went, when, why and how many
scores, nothing about who: the report and the card read it. A
card published before and backups made before are not recalled.

`withdraw` is the participant's own way out: their unfinished pairs are released (skipped and
flagged ones keep their record but give their slot back), the outcome `withdrawn` stored, the
account is deactivated (its link stops working) and the withdrawal time kept; with `erase_data` the
data go as above.

`retention_due` lists (and `forget` erases) what a study's retention period (days) says must go:
the platform ids (account name, external id, session hash) and free text of participants whose
last activity in the study is older than the period. Their scores stay, under the pseudonym.
"""

from __future__ import annotations

import hmac
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
    CheckAnswer,
    Erasure,
    FlagResolution,
    Participation,
    PlatformAction,
    Rating,
    RatingRevision,
    Span,
    Study,
    Training,
    stored_id,
    utcnow,
)
from annotate.domain.assignment import as_utc
from annotate.domain.crowd import outcomes
from annotate.domain.study import accounts
from annotate.domain.study.audit import erased_alias
from annotate.domain.study.permissions import keep_an_admin, spare_last_admin
from annotate.errors import Invalid
from annotate.vocabulary import AssignmentStatus, Role

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
    session.execute(delete(Span).where(col(Span.assignment_id).in_(assignment_ids)))
    session.execute(
        delete(FlagResolution).where(col(FlagResolution.assignment_id).in_(assignment_ids))
    )
    session.execute(delete(Assignment).where(col(Assignment.id).in_(assignment_ids)))
    return n_scores


def _holds_elsewhere(session: Session, annotator_id: int) -> bool:
    """Whether any study still holds an assignment, participation or training of the account."""
    for table in (Assignment, *RECORDS):
        query = select(func.count()).where(col(table.annotator_id) == annotator_id)
        if session.exec(query).one():
            return True
    return False


def _scrub(value: Any, words: frozenset[str], alias: str) -> Any:
    """`value` with every string equal to one of `words` (a whole value, never a part of
    one) replaced by `alias`, at any depth of a JSON value; dictionary keys are kept."""
    if isinstance(value, str):
        return alias if value in words else value
    if isinstance(value, dict):
        return {k: _scrub(v, words, alias) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub(v, words, alias) for v in value]
    return value


def scrub_audit(session: Session, words: Iterable[str], alias: str) -> int:
    """Replace `words` (a person's name, platform id) by `alias` (`audit.erased_alias`) where
    the audit log holds them as a whole value: the `who` column, or a string of the JSON
    columns equal to one of them. A name that is part of a longer text (`on` in
    `dimension_labels`) is left alone, and so is every entry that holds none: those rows are
    not written at all. Returns the entries changed."""
    found = frozenset(w for w in words if w)
    changed = 0
    for entry in session.exec(select(AuditEntry)).all():
        scrubbed = [_scrub(v, found, alias) for v in (entry.who, entry.before, entry.after)]
        if scrubbed == [entry.who, entry.before, entry.after]:
            continue
        entry.who, entry.before, entry.after = scrubbed
        session.add(entry)
        changed += 1
    return changed


ERASED_ACTION = "erased"


def scrub_platform_actions(
    session: Session, study_id: int, annotator_id: int, words: Iterable[str], alias: str
) -> int:
    """The person's traces in the study's platform ledger (issue 34.3) go: their own actions
    keep what was done and paid but lose the account, the submission id and the platform id
    (an action not sent yet is never sent: `erased`), and a bulk bonus names them by `alias`.
    Returns the actions changed."""
    found = frozenset(w for w in words if w)
    changed = 0
    rows = session.exec(select(PlatformAction).where(col(PlatformAction.study_id) == study_id))
    for row in rows.all():
        mine = row.annotator_id == annotator_id
        payload = _scrub(_unset_up(row, found), found, alias)
        if not mine and payload == row.payload:
            continue
        row.payload = payload
        if mine:
            row.annotator_id, row.submission_id = None, None
            row.key = f"{ERASED_ACTION}:{row.id}"
            if row.state != "sent":
                row.state = ERASED_ACTION
        session.add(row)
        changed += 1
    return changed


NOT_SET_UP = ("planned", "creating", "failed")
"""A bulk bonus in these states is not on the platform yet: an erased person's line leaves it
(one already set up keeps it, by alias here: the platform's copy is what gets paid)."""


def _unset_up(row: PlatformAction, words: frozenset[str]) -> dict[str, Any]:
    """The action's payload, without the person's lines of a bulk bonus not set up yet (the
    amount follows; with no line left the bonus is `erased`)."""
    entries = row.payload.get("entries")
    if row.kind != "bonus" or row.state not in NOT_SET_UP or not entries:
        return dict(row.payload)
    kept = [e for e in entries if str(e[0]) not in words]
    if len(kept) == len(entries):
        return dict(row.payload)
    row.amount = sum(int(e[1]) for e in kept)
    if not kept:
        row.state = ERASED_ACTION
    return {**row.payload, "entries": kept}


def _person_words(account: Annotator) -> list[str]:
    """What names the person: the account's name, the stored platform id and the bare id."""
    external = account.external_id or ""
    return [account.name, external, external.partition(":")[2]]


def _others_rated(session: Session, study_id: int, annotator_id: int) -> bool:
    query = (
        select(func.count())
        .select_from(Rating)
        .join(Assignment, col(Assignment.id) == col(Rating.assignment_id))
        .where(col(Assignment.study_id) == study_id, col(Assignment.annotator_id) != annotator_id)
    )
    return bool(session.exec(query).one())


Record = Participation | Training | CheckAnswer
RECORDS: tuple[type[Record], ...] = (Participation, Training, CheckAnswer)
"""A person's records in a study besides their work (assignments and what hangs on them)."""


def _mine(table: type[Record], annotator_id: int, study_id: int) -> Any:
    """The WHERE clauses of one person's row of `table` in one study."""
    return (col(table.annotator_id) == annotator_id, col(table.study_id) == study_id)


def erase(
    session: Session, account: Annotator, study: Study, *, key: bytes, reason: str = REQUEST
) -> Erased:
    """Remove everything `account` left in `study` (see the module), log it without the person;
    `key` is the database's pseudonym secret (the audit's alias of the account). Never the
    last active admin (LastAdmin)."""
    keep_an_admin(session, [account], "erase")
    study_id, annotator_id = stored_id(study), stored_id(account)
    work = _in_study(session, annotator_id, study_id)
    if not (work or _has_records(session, annotator_id, study_id)):
        raise Invalid(f"{account.name!r} has no data in study {study.name!r}: nothing to erase")
    after_ratings = _others_rated(session, study_id, annotator_id)
    n_scores = _remove_work(session, work)
    for table in RECORDS:
        session.execute(delete(table).where(*_mine(table, annotator_id, study_id)))
    words = _person_words(account)
    scrub_platform_actions(session, study_id, annotator_id, words, erased_alias(key, annotator_id))
    removed = not _holds_elsewhere(session, annotator_id)
    if removed:
        scrub_audit(session, words, erased_alias(key, annotator_id))
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
        for table in RECORDS
    )


def withdraw(
    session: Session, account: Annotator, study: Study, *, erase_data: bool, key: bytes
) -> Erased:
    """The participant leaves `study` now: unfinished pairs released, the account deactivated,
    the withdrawal kept; with `erase_data` everything of theirs erased (`erase`; someone who
    only opened the link has just the account, which goes, with nothing to log). The caller
    checks first that it is theirs to do (`withdrawal_refusal`)."""
    keep_an_admin(session, [account], "withdraw")
    study_id, annotator_id = stored_id(study), stored_id(account)
    in_study = bool(_in_study(session, annotator_id, study_id))
    if erase_data and (in_study or _has_records(session, annotator_id, study_id)):
        return erase(session, account, study, key=key, reason=WITHDRAWAL)
    if erase_data and not _holds_elsewhere(session, annotator_id):
        alias = erased_alias(key, annotator_id)
        scrub_audit(session, [account.name, account.external_id or ""], alias)
        session.delete(account)
        session.flush()
        return Erased(0, 0, True)
    released = _ids(  # a pending pair has no scores saved with it
        session,
        select(Assignment.id).where(
            col(Assignment.annotator_id) == annotator_id,
            col(Assignment.study_id) == study_id,
            col(Assignment.status) == AssignmentStatus.PENDING,
        ),
    )
    # Every unfinished slot back to the pool (issue 34.2), skipped and flagged ones included,
    # and the outcome stored (a participant who completed before keeps `completed`).
    outcomes.settle(session, study, account, outcomes.WITHDRAWN, WITHDRAWN_WORDS)
    record = session.exec(
        select(Participation).where(
            col(Participation.annotator_id) == annotator_id,
            col(Participation.study_id) == study_id,
        )
    ).one()
    record.withdrawn_at = utcnow()
    session.add(record)
    accounts.set_active(session, account.name, False)
    session.flush()
    return Erased(len(released), 0, False)


WITHDRAWN_WORDS = "You withdrew from this study."
NOT_YOURS = "Only a participant of this study, from their own study link, can withdraw from it."


def withdrawal_refusal(session: Session, account: Annotator, study: Study, key: str) -> str | None:
    """Why `account` may not withdraw from `study` with the study link's `key` (None: it may).
    Withdrawal is a crowd participant's own act (issue 32.2): the account must be an annotator
    made by a study link (a platform id, not simulated), the key must be this study's, and the
    account must have enrolled in this study (a record or a pair of it, or, having only
    opened the link, nothing anywhere). Admins, researchers, adjudicators and annotators with
    a login link never may; an admin removes people on the Participants page."""
    crowd = account.role == Role.ANNOTATOR and account.external_id and not account.simulated
    expected = (study.enrolment_key or "").encode()
    matches = bool(expected) and hmac.compare_digest(expected, (key or "").strip().encode())
    study_id, annotator_id = stored_id(study), stored_id(account)
    enrolled = (
        bool(_in_study(session, annotator_id, study_id))
        or _has_records(session, annotator_id, study_id)
        or not _holds_elsewhere(session, annotator_id)
    )
    return None if crowd and matches and enrolled else NOT_YOURS


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
    members = spare_last_admin(
        session,
        session.exec(
            select(Annotator)
            .join(Assignment, col(Assignment.annotator_id) == col(Annotator.id), isouter=True)
            .join(Participation, col(Participation.annotator_id) == col(Annotator.id), isouter=True)
            .where(
                (col(Assignment.study_id) == study_id) | (col(Participation.study_id) == study_id),
                col(Annotator.external_id).is_not(None),
            )
            .distinct()
        ).all(),
    )
    due = []
    for member in members:
        last = _last_active(session, stored_id(member), study_id)
        if last is not None and last < limit:
            due.append(Due(stored_id(member), last))
    return sorted(due, key=lambda d: d.last_active)


def forget(session: Session, study: Study, due: Sequence[Due], *, key: bytes) -> int:
    """Erase the platform ids and free text of the `due` participants (`retention_due`): the
    account's name becomes `retained-<id>`, its platform id and session hash go, and so do the
    comments, flag and skip reasons, rationales (with their history) and survey answers; the
    scores stay. Returns how many participants were forgotten."""
    for item in due:
        account = session.get(Annotator, item.account_id)
        if account is None:
            continue
        words = _person_words(account)
        alias = erased_alias(key, item.account_id)
        scrub_platform_actions(session, stored_id(study), item.account_id, words, alias)
        account.name = f"{RETENTION_PREFIX}{item.account_id}"
        account.external_id = None
        account.enrolment_session_hash = None
        account.token_hash = accounts.hash_token(accounts.generate_token())  # link unknown to all
        account.active = False
        session.add(account)
        scrub_audit(session, words, erased_alias(key, item.account_id))
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
