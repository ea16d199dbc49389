"""The participants' standing as the sync reads it, and what a submission returned or timed
out on the platform does here (issue 34.3).

Both are stand-ins until the crowd outcomes (`annotate.domain.crowd.outcomes`, issue 34.1)
arrive: `standings` reads `annotate.domain.crowd.participants`' statuses (which know no
"failed checks" and no pro-rata completion yet), and `settle_exit` releases the participant's
pending pairs to the pool and gives them nothing more, as Finish does.
"""

from __future__ import annotations

from sqlmodel import Session, col, select

from annotate.db.tables import Annotator, Assignment, Participation, Study, stored_id, utcnow
from annotate.domain.assignment.slots import lock_study
from annotate.domain.crowd import participants
from annotate.domain.crowd.consent import participation
from annotate.domain.crowd.payment_rules import COMPLETED
from annotate.domain.platforms.plan import Standing
from annotate.vocabulary import AssignmentStatus, Purpose

_STATUS = {participants.COMPLETED: COMPLETED}
"""participants.py's statuses that the outcomes name otherwise (the rest are the same words)."""


def standings(session: Session, study: Study) -> dict[str, Standing]:
    """Each crowd participant of `study` by platform id, with their outcome's status."""
    # INTEGRATE: outcomes.outcome_of (status from the participant's settled outcome)
    return {
        row.participant_id: Standing(
            row.annotator_id,
            row.participant_id,
            _STATUS.get(row.status, row.status),
            row.pairs_done,
        )
        for row in participants.participant_rows(session, study)
    }


def settle_exit(session: Session, study: Study, annotator_id: int, status: str) -> int:
    """A participant whose submission was returned or timed out on the platform (`status`):
    their pending pairs go back to the pool and the pool gives them nothing more. Returns how
    many pairs were released. (The outcome's status is recorded by the outcomes module, once
    it is wired here.)"""
    # INTEGRATE: outcomes.settle (status RETURNED or TIMED_OUT, which releases the slots)
    del status  # the stand-in records no outcome
    study_id = stored_id(study)
    if session.get(Annotator, annotator_id) is None:
        return 0
    lock_study(session, study_id)
    pending = session.exec(
        select(Assignment).where(
            col(Assignment.annotator_id) == annotator_id,
            col(Assignment.study_id) == study_id,
            col(Assignment.purpose) == Purpose.RATING,
            col(Assignment.status) == AssignmentStatus.PENDING,
        )
    ).all()
    for item in pending:
        item.status = AssignmentStatus.RELEASED
        session.add(item)
    record = participation(session, annotator_id, study_id) or Participation(
        annotator_id=annotator_id, study_id=study_id, consent="not asked"
    )
    record.finished_at = record.finished_at or utcnow()
    session.add(record)
    session.flush()
    return len(pending)
