"""Slot rules: which assignments hold one of a pair's k slots, loads, the study lock, and the
checks a late submit or skip passes inside its rating transaction.

A pair's **slots** are the assignments that count towards its overlap k: those done, and those
pending that are not lapsed (a fixed-plan item never lapses; a pool reservation lapses at
`reserved_until`). Released assignments never count, nor do skipped or flagged ones given back
(`released_at`, `annotate.domain.assignment.release`).

Concurrency: every write that can change a pair's slot count first locks the study row
(`lock_study`: `SELECT ... FOR NO KEY UPDATE` on PostgreSQL, which still lets other transactions
insert rows that reference the study; on SQLite `write_session`'s `BEGIN IMMEDIATE` already
serialises writers). Counting slots and writing the result therefore happen in one critical
section per study; the lock is held for a few milliseconds.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import UTC, datetime

from sqlalchemy import ColumnElement, and_, func, or_
from sqlmodel import Session, col, select

from annotate.db.queries import joined_assignments
from annotate.db.tables import Annotator, Assignment, Pair, Study
from annotate.domain.assignment.blinding import chosen_side, shuffled
from annotate.errors import Conflict, Invalid
from annotate.vocabulary import AssignmentStatus, Purpose, Role

OPEN_STATUSES = (AssignmentStatus.PENDING, AssignmentStatus.SKIPPED)


class AssignmentError(Invalid):
    pass


class SlotTaken(Conflict):
    """A late submit or skip of a pair that was meanwhile given to someone else."""


def as_utc(moment: datetime | None = None) -> datetime:
    """`moment` (default: now) as an aware UTC datetime; a naive one is taken to be UTC."""
    moment = moment or datetime.now(UTC)
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def row_id(row: Study | Pair | Annotator | Assignment) -> int:
    """The primary key of a row read from (or flushed to) the database."""
    if row.id is None:
        raise ValueError(f"this {type(row).__name__} has not been saved yet")
    return row.id


def lock_study(session: Session, study_id: int) -> Study:
    """Take the study's write lock for the rest of the transaction and return the study."""
    query = (
        select(Study)
        .where(Study.id == study_id)
        .with_for_update(key_share=True)
        .execution_options(populate_existing=True)
    )
    return session.exec(query).one()


def slot_clause(now: datetime) -> ColumnElement[bool]:
    """SQL condition: this assignment holds one of its pair's k slots (an adjudication never
    does: it comes on top of the k)."""
    return and_(
        col(Assignment.purpose) == Purpose.RATING,
        or_(
            col(Assignment.status) == AssignmentStatus.DONE,
            and_(
                col(Assignment.status).in_(OPEN_STATUSES),
                col(Assignment.released_at).is_(None),
                or_(
                    col(Assignment.reserved_until).is_(None),
                    col(Assignment.reserved_until) > now,
                ),
            ),
        ),
    )


def holds_slot(assignment: Assignment, now: datetime) -> bool:
    if assignment.purpose != Purpose.RATING:
        return False
    if assignment.status == AssignmentStatus.DONE:
        return True
    if assignment.status not in OPEN_STATUSES or assignment.released_at is not None:
        return False
    return assignment.reserved_until is None or as_utc(assignment.reserved_until) > now


def live_reservations(
    session: Session, annotator_id: int, study_id: int, now: datetime
) -> list[int]:
    """The annotator's live pool reservations in the study (pending, not lapsed), in queue
    order: the pair being rated, then the one held behind it (`pool.hold_next`)."""
    query = (
        select(Assignment.id)
        .where(
            Assignment.annotator_id == annotator_id,
            Assignment.study_id == study_id,
            Assignment.status == AssignmentStatus.PENDING,
            col(Assignment.reserved_until) > now,
        )
        .order_by(col(Assignment.position), col(Assignment.id))
    )
    return [int(found or 0) for found in session.exec(query).all()]


def slots_taken(
    session: Session, study_id: int, now: datetime, *, exclude: int | None = None
) -> dict[int, int]:
    """pair id -> slots taken, for the pairs of the study that have any."""
    query = (
        select(Assignment.pair_id, func.count())
        .where(Assignment.study_id == study_id, slot_clause(now))
        .group_by(col(Assignment.pair_id))
    )
    if exclude is not None:
        query = query.where(Assignment.id != exclude)
    return {int(pair_id): int(n) for pair_id, n in session.exec(query).all()}


def ever_had(session: Session, study_id: int) -> dict[str, set[str]]:
    """record id -> the name of every annotator who ever had the pair (released included)."""
    had: dict[str, set[str]] = defaultdict(set)
    query = joined_assignments(Pair.record_id, Annotator.name)
    for record_id, name in session.exec(query.where(Assignment.study_id == study_id)).all():
        had[record_id].add(name)
    return had


def annotator_loads(session: Session, study_id: int, now: datetime) -> dict[int, int]:
    """annotator id -> slots they hold on ordinary (non-gold) pairs of the study."""
    query = (
        joined_assignments(Assignment.annotator_id, func.count())
        .where(
            Assignment.study_id == study_id,
            col(Pair.gold_preference).is_(None),
            slot_clause(now),
        )
        .group_by(col(Assignment.annotator_id))
    )
    return {int(a): int(n) for a, n in session.exec(query).all()}


def loads_by_name(
    session: Session, study_id: int, now: datetime, people: Sequence[Annotator]
) -> dict[str, int]:
    """annotator name -> slots held on ordinary pairs, for these annotators (0 included)."""
    loads = annotator_loads(session, study_id, now)
    return {a.name: loads.get(row_id(a), 0) for a in people}


def distinct(annotators: Sequence[Annotator]) -> list[Annotator]:
    """The annotators without repeats, in the order first named."""
    seen: dict[str, Annotator] = {}
    for annotator in annotators:
        seen.setdefault(annotator.name, annotator)
    return list(seen.values())


def assign_pairs(
    session: Session,
    study: Study,
    annotator: Annotator,
    pairs: Sequence[Pair],
    *,
    purpose: str = Purpose.RATING,
) -> list[Assignment]:
    """Append the pairs the annotator does not have yet to the end of their queue.

    The new pairs are shuffled for this annotator and each gets its drawn side. The one place
    assignments are made, so the one place the adjudicator role is kept apart: an adjudicator
    gets only adjudication work, and adjudication goes only to an adjudicator.
    """
    check_purpose(annotator, purpose)
    mine = (Assignment.annotator_id == annotator.id, Assignment.study_id == study.id)
    have = set(session.exec(select(Assignment.pair_id).where(*mine)).all())
    fresh = {p.record_id: p for p in pairs if p.id not in have}
    last = session.exec(select(func.max(Assignment.position)).where(*mine)).one()
    start = -1 if last is None else last
    created = []
    for offset, record_id in enumerate(shuffled(study.seed, annotator.name, list(fresh)), 1):
        assignment = Assignment(
            study_id=row_id(study),
            annotator_id=row_id(annotator),
            pair_id=row_id(fresh[record_id]),
            position=start + offset,
            chosen_side=chosen_side(study.seed, annotator.name, record_id),
            purpose=purpose,
        )
        session.add(assignment)
        created.append(assignment)
    session.flush()
    return created


def check_purpose(annotator: Annotator, purpose: str) -> None:
    """Refuse ordinary work for an adjudicator and adjudication work for anyone else."""
    adjudicator = annotator.role == Role.ADJUDICATOR
    if adjudicator and purpose != Purpose.ADJUDICATION:
        raise AssignmentError(
            f"{annotator.name} is an adjudicator: they get only adjudication work, never one "
            f"of a pair's k ordinary ratings"
        )
    if not adjudicator and purpose == Purpose.ADJUDICATION:
        raise AssignmentError(
            f"{annotator.name} has the {annotator.role} role; adjudication goes only to an "
            f"account with the adjudicator role (Annotators page, or `annotators role`)"
        )


# ---------------------------------------------------------------- late submits


def admit_submit(session: Session, assignment: Assignment, now: datetime | None = None) -> None:
    """Inside a rating transaction: lock the study and refuse a submit that would overfill.

    A submit of a lapsed reservation or of released work is a *late* submit: it is accepted
    (and counts) if the pair still has a free slot, and refused with SlotTaken otherwise.
    """
    now = as_utc(now)
    study = lock_study(session, assignment.study_id)
    session.refresh(assignment)
    if assignment.status == AssignmentStatus.DONE or holds_slot(assignment, now):
        return
    if assignment.purpose == Purpose.ADJUDICATION:
        return  # on top of the k: never overfills a pair
    pair = session.get(Pair, assignment.pair_id)
    if pair is not None and pair.gold_preference is not None:
        return
    taken = slots_taken(session, row_id(study), now, exclude=assignment.id)
    if taken.get(assignment.pair_id, 0) >= study.overlap:
        raise SlotTaken(
            "Your time for this pair ran out and it has been given to someone else, so these "
            "scores could not be saved. Thank you; please continue with your next pair."
        )


def admit_skip(session: Session, assignment: Assignment) -> None:
    """Inside a skip transaction: refuse to skip work that was taken away."""
    lock_study(session, assignment.study_id)
    session.refresh(assignment)
    if assignment.status == AssignmentStatus.RELEASED:
        raise SlotTaken("This pair has been given to someone else; there is nothing to skip.")
