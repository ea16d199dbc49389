"""Paying and approving crowd participants (issue 24.3): one row per participant of a study with
their platform id, what became of them, the code they were given and the time they took.

This is the one export that holds platform ids; it is for the admin's bulk approval on the
platform (on Prolific: the participant ids of the submissions to approve), never published.
`status` is, in this order of precedence: `withdrawn` (the participant left), `failed checks`
(two instructed-response checks answered wrong: `annotate.domain.crowd.checks`, no code),
`screened out` (declined consent or failed the training), `completed` (pairs done, none
pending), `in progress` (a pair pending) or `not started`; the caller adds `excluded` with the
rules' reasons. Time taken runs from the first thing the participant did in the study (consent, or
their first pair) to their last submit.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from statistics import median

from sqlmodel import Session, col, select

from annotate.db.tables import Annotator, Assignment, Participation, Study, Training, stored_id
from annotate.domain.assignment import as_utc
from annotate.domain.crowd.checks import FAILED_CHECKS, FAILURES_TO_END, check_failures
from annotate.domain.crowd.consent import DECLINED
from annotate.domain.study.training_rules import FAILED
from annotate.vocabulary import AssignmentStatus

WITHDRAWN = "withdrawn"
SCREENED_OUT = "screened out"
COMPLETED = "completed"
IN_PROGRESS = "in progress"
NOT_STARTED = "not started"
EXCLUDED = "excluded"
PAYMENT_COLUMNS = (
    "participant_id",
    "status",
    "excluded_by",
    "completion_code",
    "pairs_done",
    "minutes_taken",
    "started_at",
    "finished_at",
    "pseudonym",
)
"""The payments export's columns: Prolific's bulk approval reads only `participant_id`."""


@dataclass
class ParticipantRow:
    """One crowd participant of a study, for paying and approving."""

    annotator_id: int
    name: str
    participant_id: str
    status: str
    completion_code: str
    pairs_done: int
    started_at: datetime | None
    finished_at: datetime | None
    excluded_by: str = ""
    pseudonym: str = ""

    @property
    def minutes_taken(self) -> float | None:
        if self.started_at is None or self.finished_at is None:
            return None
        return round((self.finished_at - self.started_at).total_seconds() / 60, 1)


def platform_id(external: str) -> str:
    """The platform's own participant id from the stored `prolific:<id>`."""
    return external.partition(":")[2] or external


def _status(
    record: Participation | None,
    trained: Training | None,
    done: int,
    pending: int,
    failed_checks: bool = False,
) -> str:
    if record is not None and record.withdrawn_at is not None:
        return WITHDRAWN
    if failed_checks:  # INTEGRATE: outcomes (crowd-core) store this status; read it there
        return FAILED_CHECKS
    if (record is not None and record.consent == DECLINED) or (
        trained is not None and trained.status == FAILED
    ):
        return SCREENED_OUT
    if pending:
        return IN_PROGRESS
    return COMPLETED if done else NOT_STARTED


def _code(study: Study, status: str) -> str:
    if status == COMPLETED:
        return study.completion_code or ""
    if status == SCREENED_OUT:
        return study.screenout_code or ""
    return ""


def participant_rows(session: Session, study: Study) -> list[ParticipantRow]:
    """Every crowd participant (an account with a platform id) of `study`, by platform id."""
    study_id = stored_id(study)
    work = session.exec(select(Assignment).where(col(Assignment.study_id) == study_id)).all()
    records = {
        r.annotator_id: r
        for r in session.exec(select(Participation).where(col(Participation.study_id) == study_id))
    }
    trainings = {
        t.annotator_id: t
        for t in session.exec(select(Training).where(col(Training.study_id) == study_id))
    }
    failures = check_failures(session, study_id)
    ids = {a.annotator_id for a in work} | set(records) | set(trainings)
    people = session.exec(
        select(Annotator).where(col(Annotator.id).in_(ids), col(Annotator.external_id).is_not(None))
    ).all()
    rows = []
    for person in people:
        mine = [a for a in work if a.annotator_id == person.id]
        done = [a for a in mine if a.status == AssignmentStatus.DONE]
        pending = sum(1 for a in mine if a.status == AssignmentStatus.PENDING)
        record, trained = records.get(stored_id(person)), trainings.get(stored_id(person))
        failed = failures.get(stored_id(person), 0) >= FAILURES_TO_END
        status = _status(record, trained, len(done), pending, failed)
        starts = [as_utc(a.created_at) for a in mine]
        starts += [as_utc(r.consent_at) for r in (record,) if r is not None]
        ends = [as_utc(a.completed_at) for a in done if a.completed_at is not None]
        rows.append(
            ParticipantRow(
                annotator_id=stored_id(person),
                name=person.name,
                participant_id=platform_id(person.external_id or ""),
                status=status,
                completion_code=_code(study, status),
                pairs_done=len(done),
                started_at=min(starts) if starts else None,
                finished_at=max(ends) if ends else None,
            )
        )
    return sorted(rows, key=lambda r: r.participant_id)


def median_minutes(rows: list[ParticipantRow]) -> float | None:
    """The median time taken by the participants who completed (excluded ones included: they
    did the work), to set a fair pay; None before anyone completed."""
    times = [
        r.minutes_taken
        for r in rows
        if r.status in (COMPLETED, EXCLUDED) and r.minutes_taken is not None
    ]
    return round(median(times), 1) if times else None
