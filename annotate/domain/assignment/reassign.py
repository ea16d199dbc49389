"""Reassignment: an annotator's unfinished (pending or skipped) items are released and handed to
others, least-loaded first (`planner.hand_out`), keeping k distinct annotators per pair. A
skipped or flagged item keeps its status as data (`release.release_item`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from sqlmodel import Session, col

from annotate.db.queries import joined_assignments
from annotate.db.tables import Annotator, Assignment, Pair, Study
from annotate.domain.assignment import planner
from annotate.domain.assignment.listings import study_members
from annotate.domain.assignment.release import release_item
from annotate.domain.assignment.slots import (
    OPEN_STATUSES,
    as_utc,
    assign_pairs,
    distinct,
    ever_had,
    loads_by_name,
    lock_study,
    row_id,
)
from annotate.vocabulary import Purpose

REASSIGNED = "reassigned"


@dataclass
class ReassignResult:
    released: int = 0
    handed: dict[str, int] = field(default_factory=dict)  # receiver -> items
    returned_to_pool: int = 0
    unplaced: list[str] = field(default_factory=list)  # record ids no receiver could take


def reassign(
    session: Session,
    study: Study,
    giver: Annotator,
    receivers: Sequence[Annotator] | None = None,
    *,
    now: datetime | None = None,
) -> ReassignResult:
    """Take the giver's unfinished items (pending or skipped) away and hand them to others.

    Each ordinary pair goes to the least-loaded receiver who never had it, so every pair keeps
    k distinct annotators. Receivers default to the study's other active annotators; in an
    open-pool study without named receivers the work goes back to the pool instead. Gold items
    and adjudications are only released. Pairs that no receiver can take stay released and are
    listed as unplaced (a later `plan_fixed` or the pool fills them).
    """
    study = lock_study(session, row_id(study))
    named = study_members(session, row_id(study)) if receivers is None else receivers
    people = distinct([a for a in named if a.id != giver.id])
    result = ReassignResult()
    to_hand: list[Pair] = []
    for item, pair in _unfinished(session, study, giver):
        release_item(session, item, REASSIGNED, as_utc(now))  # a skip or flag stays on record
        result.released += 1
        if pair.gold_preference is not None or item.purpose == Purpose.ADJUDICATION:
            continue  # gold items and adjudications are only released (the admin sends again)
        if receivers is None and study.pool_open:
            result.returned_to_pool += 1
        else:
            to_hand.append(pair)
    session.flush()
    load = loads_by_name(session, row_id(study), as_utc(now), people)
    names = [a.name for a in people]
    new: dict[str, list[str]] = {name: [] for name in names}
    wants = [(p.record_id, 1) for p in to_hand]
    had = ever_had(session, row_id(study))
    result.unplaced = planner.hand_out(study.seed, wants, names, load, had, new)
    by_record = {p.record_id: p for p in to_hand}
    for person in people:
        if new[person.name]:
            assign_pairs(session, study, person, [by_record[r] for r in new[person.name]])
            result.handed[person.name] = len(new[person.name])
    return result


def _unfinished(
    session: Session, study: Study, giver: Annotator
) -> Sequence[tuple[Assignment, Pair]]:
    """The giver's pending and skipped items in the study with their pairs, in queue order."""
    query = joined_assignments(Assignment, Pair).where(
        Assignment.study_id == study.id,
        Assignment.annotator_id == giver.id,
        col(Assignment.status).in_(OPEN_STATUSES),
    )
    return session.exec(query.order_by(col(Assignment.position))).all()
