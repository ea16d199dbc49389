"""Limits on crowd participants who have not proven themselves yet.

Anyone who has a study link (every participant does) can make up participant ids, so a crowd
participant (an account enrolled through a link: `external_id` set) who has submitted nothing in
the study is *unproven*, and reserving a pair for them is limited by the study link's
`annotate.config.EnrolmentLimits`: the study takes at most `cap` participants holding or having
done work (unproven ones whose reservation lapsed no longer count), at most `starts_per_minute`
reservations a minute go to unproven participants, and theirs last at most
`first_reservation_minutes`, and together they hold at most `unproven_share_percent` of the
study's slots (pairs x overlap; at least one) at once, so a burst of made-up ids on a small
study never holds all of it. One submitted pair lifts all four. The checks run in the pull's
own transaction, under the study lock (`assignment.pool.pull_next`), whichever page asked.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from sqlalchemy import distinct, func
from sqlmodel import Session, col, select

from annotate.config import enrolment_limits
from annotate.db.tables import Annotator, Assignment, Pair, Participation, Study
from annotate.domain.assignment.slots import row_id
from annotate.vocabulary import AssignmentStatus


class Refusal(StrEnum):
    FULL = "full"  # the study has `cap` participants
    BUSY = "busy"  # `starts_per_minute` unproven participants reserved in the last minute


def unproven(session: Session, study: Study, annotator: Annotator) -> bool:
    """A crowd participant who has submitted nothing in the study."""
    if annotator.external_id is None:
        return False
    done = session.exec(
        select(Assignment.id).where(
            Assignment.annotator_id == row_id(annotator),
            Assignment.study_id == study.id,
            Assignment.status == AssignmentStatus.DONE,
        )
    ).first()
    return done is None


def refusal(
    session: Session,
    study: Study,
    annotator: Annotator,
    now: datetime,
) -> Refusal | None:
    """Why no pair may be reserved for this participant now (None: it may). Call it with the
    study locked and lapsed reservations released, when the participant holds no live one."""
    if not unproven(session, study, annotator):
        return None
    limits = enrolment_limits()
    if participants(session, row_id(study)) >= limits.cap:
        return Refusal.FULL
    if limits.unproven_share_percent < 100 and (
        _unproven_holding(session, row_id(study)) >= unproven_slots(session, study)
    ):
        return Refusal.BUSY
    if _recent_unproven(session, row_id(study), now - timedelta(minutes=1)) >= (
        limits.starts_per_minute
    ):
        return Refusal.BUSY
    return None


def unproven_slots(session: Session, study: Study) -> int:
    """How many pairs participants with nothing submitted may hold at once in the study."""
    pairs = session.exec(select(func.count()).where(Pair.study_id == row_id(study))).one()
    share = enrolment_limits().unproven_share_percent
    return max(1, pairs * study.overlap * share // 100)


def reservation_minutes(session: Session, study: Study, annotator: Annotator) -> int:
    """How long a pair pulled now stays reserved for this annotator."""
    if unproven(session, study, annotator):
        return min(study.reservation_minutes, enrolment_limits().first_reservation_minutes)
    return study.reservation_minutes


def participants(session: Session, study_id: int) -> int:
    """People holding a pair of the study or having done one (lapsed reservations not counted)."""
    return session.exec(
        select(func.count(distinct(col(Assignment.annotator_id)))).where(
            Assignment.study_id == study_id, Assignment.status != AssignmentStatus.RELEASED
        )
    ).one()


def _unproven_holding(session: Session, study_id: int) -> int:
    """Live reservations (call after lapsed ones are released) of crowd participants with
    nothing done in the study."""
    return _unproven_count(session, study_id, Assignment.status == AssignmentStatus.PENDING)


def _recent_unproven(session: Session, study_id: int, since: datetime) -> int:
    """Reservations made after `since` for crowd participants with nothing done in the study."""
    return _unproven_count(session, study_id, col(Assignment.created_at) > since)


def _unproven_count(session: Session, study_id: int, condition: Any) -> int:
    done = select(Assignment.annotator_id).where(
        Assignment.study_id == study_id, Assignment.status == AssignmentStatus.DONE
    )
    crowd = select(Annotator.id).where(col(Annotator.external_id).is_not(None))
    found: int = session.exec(
        select(func.count()).where(
            Assignment.study_id == study_id,
            condition,
            col(Assignment.annotator_id).in_(crowd),
            col(Assignment.annotator_id).not_in(done),
        )
    ).one()
    return found


def has_finished(session: Session, annotator_id: int, study_id: int) -> bool:
    """Whether the participant chose Finish in the study (`annotate.domain.crowd.finish`) or
    their participation ended (`annotate.domain.crowd.outcomes`): the pool gives them nothing
    more."""
    found = session.exec(
        select(Participation.finished_at, Participation.outcome).where(
            Participation.annotator_id == annotator_id, Participation.study_id == study_id
        )
    ).first()
    return found is not None and (found[0] is not None or found[1] is not None)
