"""Every slot comes back (issue 34.2): the one way an assignment gives its slot back to the pool.

A pending assignment (a reservation, shown or not yet shown, or a planned item) is *released*:
its status becomes `released` and it leaves the person's queue. A skipped assignment, or one
flagged without scores, keeps its status, reason and flag (data for the analysis, the export and
the flag queue) and only stops holding a slot: `released_at` is set, which `slots.slot_clause`
reads. Either way the pair never goes back to the same person (`pool._never_had`: one row per
annotator and pair, released or not), and the depth-first pool fills the pair before untouched
ones (`pool.pool_rank`).

The reasons: `SKIPPED`, `FLAGGED`, `LAPSED` (a reservation whose time ran out), `FINISHED`,
`LOGGED_OUT` (a pair held behind the one being rated: `release_held`), or the participant's
outcome (`annotate.domain.crowd.outcomes`: withdrawn, returned, timed out...).
These functions work in the caller's transaction and do not commit.
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session, col, select

from annotate.db.tables import Assignment
from annotate.domain.assignment.slots import OPEN_STATUSES, as_utc, live_reservations, lock_study
from annotate.vocabulary import AssignmentStatus, Purpose

SKIPPED = "skipped"
FLAGGED = "flagged"
LAPSED = "lapsed"
FINISHED = "finished"
LOGGED_OUT = "logged out"


def release_item(session: Session, item: Assignment, reason: str, now: datetime) -> bool:
    """Give this assignment's slot back; True if it held one (done work is never released).
    The caller holds the study lock (`slots.lock_study`)."""
    if item.status == AssignmentStatus.DONE or item.released_at is not None:
        return False
    if item.status == AssignmentStatus.RELEASED:
        return False
    if item.status == AssignmentStatus.PENDING:
        item.status = AssignmentStatus.RELEASED
    item.released_at, item.release_reason = now, reason
    session.add(item)
    return True


def release_unfinished(
    session: Session,
    study_id: int,
    annotator_id: int,
    reason: str,
    now: datetime | None = None,
) -> int:
    """Release the person's unfinished ordinary work in the study (pending items, reserved or
    planned, and the skipped or flagged ones still holding a slot); return how many slots came
    back. Done work stays; adjudications are left to the adjudication queue."""
    now = as_utc(now)
    lock_study(session, study_id)
    items = session.exec(
        select(Assignment).where(
            Assignment.study_id == study_id,
            Assignment.annotator_id == annotator_id,
            Assignment.purpose == Purpose.RATING,
            col(Assignment.status).in_(OPEN_STATUSES),
            col(Assignment.released_at).is_(None),
        )
    ).all()
    released = sum(release_item(session, item, reason, now) for item in items)
    session.flush()
    return released


def release_lapsed(session: Session, study_id: int, now: datetime) -> int:
    """Release the study's pool reservations whose time is up; return how many."""
    items = session.exec(
        select(Assignment).where(
            col(Assignment.study_id) == study_id,
            col(Assignment.status).in_(OPEN_STATUSES),
            col(Assignment.released_at).is_(None),
            col(Assignment.reserved_until).is_not(None),
            col(Assignment.reserved_until) <= now,
        )
    ).all()
    released = sum(release_item(session, item, LAPSED, now) for item in items)
    if released:
        session.flush()
    return released


def release_held(session: Session, annotator_id: int, now: datetime | None = None) -> int:
    """Log out: in each study, the pair held behind the one being rated (`pool.hold_next`: a
    live reservation after the first) goes back to the pool; return how many. The pair being
    rated stays reserved until it lapses, so the person resumes it with their link."""
    now = as_utc(now)
    studies = session.exec(
        select(Assignment.study_id)
        .where(
            Assignment.annotator_id == annotator_id,
            Assignment.status == AssignmentStatus.PENDING,
            col(Assignment.reserved_until) > now,
        )
        .distinct()
    ).all()
    released = 0
    for study_id in sorted(studies):
        lock_study(session, study_id)
        held = live_reservations(session, annotator_id, study_id, now)[1:]
        for item in session.exec(select(Assignment).where(col(Assignment.id).in_(held))):
            released += release_item(session, item, LOGGED_OUT, now)
    session.flush()
    return released
