"""Listings: a study's pairs, gold pairs and members, its assignment rows, and its coverage."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session, col, select

from annotate.db.queries import joined_assignments
from annotate.db.tables import Annotator, Assignment, Pair, Study
from annotate.domain.assignment.slots import as_utc, slots_taken
from annotate.vocabulary import Role

ASSIGNMENT_COLUMNS = ("annotator", "pair_id", "position", "chosen_side", "status")


def study_pairs(session: Session, study: Study, domain: str | None = None) -> list[Pair]:
    query = select(Pair).where(Pair.study_id == study.id)
    if domain:
        query = query.where(Pair.domain == domain)
    return list(session.exec(query.order_by(col(Pair.id))).all())


def gold_pairs(session: Session, study_id: int) -> list[Pair]:
    query = select(Pair).where(Pair.study_id == study_id, col(Pair.gold_preference).is_not(None))
    return list(session.exec(query.order_by(col(Pair.id))).all())


def study_members(session: Session, study_id: int) -> list[Annotator]:
    """Active annotators (role annotator) who have any assignment in the study."""
    query = (
        select(Annotator)
        .join(Assignment, col(Assignment.annotator_id) == col(Annotator.id))
        .where(
            Assignment.study_id == study_id,
            col(Annotator.active).is_(True),
            Annotator.role == Role.ANNOTATOR,
        )
        .distinct()
        .order_by(col(Annotator.id))
    )
    return list(session.exec(query).all())


@dataclass(frozen=True)
class AssignmentRow:
    annotator: str
    pair_id: str
    position: int
    chosen_side: str
    status: str

    def values(self) -> tuple[str | int, ...]:
        return tuple(getattr(self, c) for c in ASSIGNMENT_COLUMNS)


def assignment_rows(session: Session, study_id: int) -> list[AssignmentRow]:
    """The study's plan: every assignment (released included), by annotator and position."""
    query = joined_assignments(
        Annotator.name,
        Pair.record_id,
        Assignment.position,
        Assignment.chosen_side,
        Assignment.status,
    )
    rows = session.exec(
        query.where(Assignment.study_id == study_id).order_by(
            col(Annotator.name), col(Assignment.position)
        )
    ).all()
    return [AssignmentRow(*row) for row in rows]


def pair_coverage(session: Session, study_id: int, now: datetime | None = None) -> dict[str, int]:
    """record id -> slots taken, for every ordinary pair of the study (0 included)."""
    taken = slots_taken(session, study_id, as_utc(now))
    pairs = session.exec(
        select(Pair.id, Pair.record_id).where(
            Pair.study_id == study_id, col(Pair.gold_preference).is_(None)
        )
    ).all()
    return {record_id: taken.get(pair_id or 0, 0) for pair_id, record_id in pairs}
