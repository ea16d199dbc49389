"""The open pool: an annotator of a study with an open pool pulls one pair at a time.

Among the pairs they never had that still have a slot free (below k), the study's `pool_order`
decides which they get. 'depth' (the default): a pair others already hold or rated, so pairs
reach k before new ones open and a study that stops early has pairs rated k times; 'breadth'
(studies from before migration 0014): a pair with the fewest slots. Within that group the
annotator's own seeded draw picks (`blinding.draw(seed, "pool", name, record id)`), so orders
differ between annotators and can be recomputed; the queue position is stored. The pair is
reserved for the study's `reservation_minutes` (shorter, and limited, for a crowd participant
who has submitted nothing yet: `assignment.crowd`). Lapsed reservations are released on every
pull (`release.release_lapsed`), so drop-outs do not starve pairs; in depth order a pair that
was started (any assignment ever, a released one included) comes before untouched ones, so a
slot given back is filled first. The per-person quota counts what the finish rule counts, and a
pair set aside is replaced up to the study's skip-and-flag limit (`assignment.quota`). A late
submit of a lapsed reservation is accepted if the pair still has a free slot and refused
otherwise (`slots.admit_submit`), so no pair is ever completed by more than k people. Gold
pairs are drawn for a queue place at the study's gold rate.

One pair may be *held* behind the one being rated (issue 36.2, `hold_next`): the rating page's
component has the next pair's data before the current one is submitted, so it can show it the
moment the submit is confirmed. A held pair is an ordinary live reservation, pulled by the same
rules (order, k, quota, skip-and-flag limit, gold rate): it holds one of the pair's k slots, is
counted in Progress as being rated, lapses after the study's `reservation_minutes` from its pull
like any other, and is released on Finish, withdrawal (`release.release_unfinished`) and Log out
(`release.release_held`). So a person holds at most two live reservations in a study: the pair
being rated (the first in their queue) and one held. None is held for a person with one pair
left before their quota (the quota counts held pairs), nor for a crowd participant who has
submitted nothing yet (`assignment.crowd`'s limits count reservations: a made-up id holds one).

`pull_next` and `hold_next` take a Session and do not commit:
`annotate.services.participant.work` owns the transaction.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import ColumnElement, and_, func
from sqlmodel import Session, col, select

from annotate.db.tables import Annotator, Assignment, Pair, Study
from annotate.domain.assignment import blinding, crowd, quota
from annotate.domain.assignment.release import release_lapsed
from annotate.domain.assignment.slots import (
    as_utc,
    assign_pairs,
    live_reservations,
    lock_study,
    row_id,
    slot_clause,
)
from annotate.vocabulary import AssignmentStatus, PoolOrder, Purpose, Role

__all__ = [
    "hold_next",
    "live_reservation",
    "live_reservations",
    "pool_rank",
    "pool_studies_of",
    "pull_next",
    "release_lapsed",
]


def pull_next(
    session: Session, annotator_id: int, study_id: int, *, now: datetime | None = None
) -> int | None:
    """Reserve the next pair for this annotator in an open-pool study; return the assignment id.

    An annotator rates one pair at a time: while they hold a live reservation, the first one
    (in queue order) is returned again. None when the annotator is unknown, inactive, an
    adjudicator or finished (chose Finish, or their participation ended), the pool is closed,
    the annotator reached the study's quota or its skip-and-flag limit (`assignment.quota`), a
    crowd participant who has submitted nothing is over the study link's limits
    (`assignment.crowd`), or no pair they never had still needs ratings.
    """
    now = as_utc(now)
    ready = _ready(session, annotator_id, study_id, now)
    if ready is None:
        return None
    study, annotator, live = ready
    if live:
        return live[0]
    if crowd.refusal(session, study, annotator, now) is not None:
        return None
    return _reserve(session, study, annotator, now)


def hold_next(
    session: Session, annotator_id: int, study_id: int, *, now: datetime | None = None
) -> int | None:
    """The pair held behind the one the annotator is rating (see the module's docstring);
    return its assignment id, reserving it if none is held yet.

    None when nothing is being rated (no live reservation: `pull_next` gives the first pair),
    for a crowd participant who has submitted nothing in the study, and whenever `pull_next`
    would give nothing: with one pair left before the quota, the current pair is the last.
    """
    now = as_utc(now)
    ready = _ready(session, annotator_id, study_id, now)
    if ready is None:
        return None
    study, annotator, live = ready
    if len(live) != 1:
        return live[1] if live else None
    if crowd.unproven(session, study, annotator):
        return None
    return _reserve(session, study, annotator, now)


def _ready(
    session: Session, annotator_id: int, study_id: int, now: datetime
) -> tuple[Study, Annotator, list[int]] | None:
    """The study, locked, the annotator and their live reservations (queue order), when the
    pool may give them a pair; lapsed reservations released first. None: it gives them nothing
    (see `pull_next`)."""
    study = lock_study(session, study_id)
    annotator = session.get(Annotator, annotator_id)
    if annotator is None or not annotator.active or not study.pool_open:
        return None
    if annotator.role == Role.ADJUDICATOR:
        return None  # adjudicators get only adjudication work
    if crowd.has_finished(session, annotator_id, study_id):
        return None  # the participant chose Finish
    release_lapsed(session, study_id, now)
    return study, annotator, live_reservations(session, annotator_id, study_id, now)


def _reserve(session: Session, study: Study, annotator: Annotator, now: datetime) -> int | None:
    """One more pair reserved for the annotator, within the quota and the skip-and-flag limit
    (their live reservations counted); None when none may or can be given."""
    standing = quota.tally(session, study, row_id(annotator))
    if quota.quota_reached(study, standing) or quota.limit_reached(study, standing):
        return None
    held = _queue_length(session, row_id(annotator), row_id(study))
    pair = _next_gold(session, study, annotator, held) or _next_pair(session, study, annotator, now)
    if pair is None:
        return None
    (assignment,) = assign_pairs(session, study, annotator, [pair])
    assignment.created_at = now
    minutes = crowd.reservation_minutes(session, study, annotator)
    assignment.reserved_until = now + timedelta(minutes=minutes)
    session.add(assignment)
    session.flush()
    return assignment.id


def live_reservation(
    session: Session, annotator_id: int, study_id: int, now: datetime
) -> int | None:
    """The annotator's first live reservation in the study (None: they hold none)."""
    live = live_reservations(session, annotator_id, study_id, now)
    return live[0] if live else None


def _queue_length(session: Session, annotator_id: int, study_id: int) -> int:
    """The annotator's queue places so far (the gold draw's index)."""
    return session.exec(
        select(func.count()).where(
            Assignment.annotator_id == annotator_id,
            Assignment.study_id == study_id,
            Assignment.status != AssignmentStatus.RELEASED,
        )
    ).one()


def _never_had(annotator: Annotator) -> ColumnElement[bool]:
    return col(Pair.id).not_in(
        select(Assignment.pair_id).where(Assignment.annotator_id == row_id(annotator))
    )


def _next_pair(session: Session, study: Study, annotator: Annotator, now: datetime) -> Pair | None:
    """The ordinary pair below k that the annotator never had, in the study's pool order."""
    slots = func.count(col(Assignment.id))
    rows = session.exec(
        select(Pair.id, Pair.record_id, slots)
        .outerjoin(Assignment, and_(col(Assignment.pair_id) == col(Pair.id), slot_clause(now)))
        .where(
            Pair.study_id == study.id,
            col(Pair.gold_preference).is_(None),
            _never_had(annotator),
        )
        .group_by(col(Pair.id), col(Pair.record_id))
        .having(slots < study.overlap)
    ).all()
    if not rows:
        return None
    started = _started(session, study) if study.pool_order != PoolOrder.BREADTH else set()
    best = min(
        rows,
        key=lambda r: (
            pool_rank(study.pool_order, r[2], started=r[0] in started),
            blinding.draw(study.seed, "pool", annotator.name, r[1]),
        ),
    )
    return session.get(Pair, best[0])


def _started(session: Session, study: Study) -> set[int]:
    """The study's pairs anyone ever had, a slot given back included."""
    query = select(Assignment.pair_id).where(
        Assignment.study_id == study.id, Assignment.purpose == Purpose.RATING
    )
    return set(session.exec(query.distinct()).all())


def pool_rank(order: str, slots: int, *, started: bool = False) -> int:
    """Which pairs come first (lowest rank) for a pair holding `slots` of its k: in depth
    order every started pair (holding a slot, or `started`: given to anyone before, a slot
    given back included) before any untouched one; in breadth order the fewest."""
    if order == PoolOrder.BREADTH:
        return slots
    return 0 if slots > 0 or started else 1


def _next_gold(session: Session, study: Study, annotator: Annotator, held: int) -> Pair | None:
    """A gold pair the annotator never had, drawn for this queue place at the gold rate."""
    if study.gold_rate <= 0 or blinding.draw(study.seed, "gold?", annotator.name, held) >= (
        study.gold_rate * 2**64
    ):
        return None
    rows = session.exec(
        select(Pair).where(
            Pair.study_id == study.id,
            col(Pair.gold_preference).is_not(None),
            _never_had(annotator),
        )
    ).all()
    if not rows:
        return None
    return min(rows, key=lambda p: blinding.draw(study.seed, "gold", annotator.name, p.record_id))


def pool_studies_of(session: Session, annotator_id: int) -> list[int]:
    """Ids of the open-pool studies the annotator takes part in (has any assignment in)."""
    query = (
        select(Study.id)
        .join(Assignment, col(Assignment.study_id) == col(Study.id))
        .where(Assignment.annotator_id == annotator_id, col(Study.pool_open).is_(True))
        .distinct()
        .order_by(col(Study.id))
    )
    return [int(i or 0) for i in session.exec(query).all()]
