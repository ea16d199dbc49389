"""A crowd participant's way to finish (issue 22.4).

A study open to crowd enrolment always has a per-person quota (`studies.DEFAULT_CROWD_QUOTA`
when none is set): the pool gives a participant at most that many pairs, then the done page
shows the completion code. Before that, once they have rated the study's minimum
(`study.finish_minimum`; None: the quota), the rating page offers **Finish**: their open
reservation goes back to the pool, the pool gives them nothing more
(`participation.finished_at`, `assignment.crowd.has_finished`), and the done page shows the
code. Only crowd participants (accounts with a platform id) finish this way; the study's own
annotators work through their queue.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func
from sqlmodel import Session, col, select

from annotate.db.tables import Annotator, Assignment, Participation, Study, stored_id, utcnow
from annotate.domain.assignment.crowd import has_finished
from annotate.domain.assignment.slots import lock_study
from annotate.domain.crowd.consent import ACCEPTED, participation
from annotate.errors import Conflict
from annotate.vocabulary import AssignmentStatus, Purpose


class FinishRefused(Conflict):
    """Finish asked for before the study's minimum, or by someone who is not a participant."""


@dataclass(frozen=True)
class FinishOffer:
    """A study the participant may finish now."""

    study: str
    rated: int  # ordinary pairs the participant has rated in it
    minimum: int  # pairs asked before Finish is offered
    quota: int | None  # most pairs the pool gives one person


def minimum(study: Study) -> int | None:
    """Pairs a participant rates before Finish is offered (None: no finish step)."""
    return study.finish_minimum or study.pool_quota


def rated(session: Session, annotator_id: int, study_id: int) -> int:
    return session.exec(
        select(func.count()).where(
            Assignment.annotator_id == annotator_id,
            Assignment.study_id == study_id,
            Assignment.purpose == Purpose.RATING,
            Assignment.status == AssignmentStatus.DONE,
        )
    ).one()


def offers(session: Session, annotator: Annotator) -> list[FinishOffer]:
    """The studies the participant may finish now: a crowd participant with pairs rated in an
    open pool, at least the minimum of them, not finished yet."""
    if annotator.external_id is None:
        return []
    mine = select(Assignment.study_id).where(Assignment.annotator_id == stored_id(annotator))
    found = []
    for study in session.exec(select(Study).where(col(Study.id).in_(mine))).all():
        least = minimum(study)
        if least is None or not study.pool_open:
            continue
        if has_finished(session, stored_id(annotator), stored_id(study)):
            continue
        done = rated(session, stored_id(annotator), stored_id(study))
        if done >= least:
            found.append(FinishOffer(study.name, done, least, study.pool_quota))
    return found


def finish(session: Session, annotator: Annotator, study: Study) -> int:
    """The participant's Finish: their pending ordinary pairs of the study go back to the pool
    (skipped ones stay on record as skipped) and the pool gives them nothing more. Returns how
    many pairs were released."""
    offer = next((o for o in offers(session, annotator) if o.study == study.name), None)
    if offer is None:
        raise FinishRefused(
            f"Finish is not open to you in this study yet: please rate at least "
            f"{minimum(study) or 'the asked number of'} pairs first."
        )
    return close(session, stored_id(annotator), study)


def close(session: Session, annotator_id: int, study: Study) -> int:
    """End the annotator's work in the study, whatever they have rated: their pending ordinary
    pairs go back to the pool and the pool gives them nothing more (Finish, and the end after
    failed checks, `annotate.domain.crowd.checks`). Returns how many pairs were released."""
    open_items = session.exec(
        select(Assignment).where(
            Assignment.annotator_id == annotator_id,
            Assignment.study_id == stored_id(study),
            Assignment.purpose == Purpose.RATING,
            Assignment.status == AssignmentStatus.PENDING,
        )
    ).all()
    lock_study(session, stored_id(study))
    for item in open_items:
        item.status = AssignmentStatus.RELEASED
        session.add(item)
    found = participation(session, annotator_id, stored_id(study))
    if found is None:  # a study without a consent page or survey
        found = Participation(
            annotator_id=annotator_id, study_id=stored_id(study), consent=ACCEPTED
        )
    found.finished_at = utcnow()
    session.add(found)
    session.flush()
    return len(open_items)
