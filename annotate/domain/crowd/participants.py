"""Paying and approving crowd participants (issue 24.3): one row per participant of a study with
their platform id, what became of them, the code they were given and the time they took.

This is the one export that holds platform ids; it is for the admin's bulk approval on the
platform (on Prolific: the participant ids of the submissions to approve), never published.
`status`, `completion_code` and `outcome_reason` are the participant's stored outcome
(`crowd.outcomes`: what they were shown), or for one not settled yet `in progress` (any work or
record in the study) or `not started`; the caller adds `excluded` with the rules' reasons.
`pro_rata` is the share of the pay the outcome earns: 1 for `completed`, rated / required for
`completed, pool empty`, 0 otherwise. Time taken runs from the first thing the participant did
in the study (consent, or their first pair) to their last submit.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from statistics import median

from sqlmodel import Session, col, select

from annotate.db.tables import Annotator, Assignment, Participation, Study, Training, stored_id
from annotate.domain.assignment import as_utc, quota
from annotate.domain.crowd.outcomes import COMPLETED, PARTIAL, SCREENED_OUT, WITHDRAWN
from annotate.vocabulary import AssignmentStatus

__all__ = ["COMPLETED", "PARTIAL", "SCREENED_OUT", "WITHDRAWN"]
IN_PROGRESS = "in progress"
NOT_STARTED = "not started"
EXCLUDED = "excluded"
PAYMENT_COLUMNS = (
    "participant_id",
    "status",
    "excluded_by",
    "completion_code",
    "pairs_done",
    "pro_rata",
    "outcome_reason",
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
    pro_rata: float = 0.0
    outcome_reason: str = ""

    @property
    def minutes_taken(self) -> float | None:
        if self.started_at is None or self.finished_at is None:
            return None
        return round((self.finished_at - self.started_at).total_seconds() / 60, 1)


def platform_id(external: str) -> str:
    """The platform's own participant id from the stored `prolific:<id>`."""
    return external.partition(":")[2] or external


def _pro_rata(study: Study, status: str, rated: int) -> float:
    """The share of the pay an outcome earns (see the module)."""
    if status == COMPLETED:
        return 1.0
    if status == PARTIAL:
        return round(min(rated / (quota.required(study) or rated or 1), 1.0), 3)
    return 0.0


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
    ids = {a.annotator_id for a in work} | set(records) | set(trainings)
    people = session.exec(
        select(Annotator).where(col(Annotator.id).in_(ids), col(Annotator.external_id).is_not(None))
    ).all()
    rows = []
    for person in people:
        mine = [a for a in work if a.annotator_id == person.id]
        done = [a for a in mine if a.status == AssignmentStatus.DONE]
        record = records.get(stored_id(person))
        ended = record is not None and record.outcome is not None
        status = record.outcome if record is not None and record.outcome else NOT_STARTED
        if not ended and (mine or record or stored_id(person) in trainings):
            status = IN_PROGRESS
        starts = [as_utc(a.created_at) for a in mine]
        starts += [as_utc(r.consent_at) for r in (record,) if r is not None]
        ends = [as_utc(a.completed_at) for a in done if a.completed_at is not None]
        rows.append(
            ParticipantRow(
                annotator_id=stored_id(person),
                name=person.name,
                participant_id=platform_id(person.external_id or ""),
                status=status,
                completion_code=record.outcome_code if record is not None and ended else "",
                pairs_done=len(done),
                pro_rata=_pro_rata(study, status, len(done)),
                outcome_reason=record.outcome_reason if record is not None else "",
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
        if r.status in (COMPLETED, PARTIAL, EXCLUDED) and r.minutes_taken is not None
    ]
    return round(median(times), 1) if times else None
