"""The fixed plan applied to the database: choose the pairs, read the existing work, let the
planner (`planner.plan`, which holds the rules) decide, write its result.

Running it again *extends* the plan: pairs that already have k slots are left alone, finished and
pending work is never touched, new pairs fill up the least-loaded annotators first (so newcomers
get the new work), and a larger k adds the missing slots. Only with `rebalance=True` are
untouched pending items moved. Gold pairs are outside the plan: they have no k and are mixed into
queues at the study's gold rate.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from sqlmodel import Session, col, select

from annotate.db.queries import joined_assignments
from annotate.db.tables import Annotator, Assignment, Pair, Rating, Study
from annotate.domain.assignment import planner
from annotate.domain.assignment.listings import gold_pairs
from annotate.domain.assignment.slots import (
    AssignmentError,
    as_utc,
    assign_pairs,
    distinct,
    ever_had,
    loads_by_name,
    lock_study,
    row_id,
    slots_taken,
)
from annotate.vocabulary import AssignmentStatus


@dataclass(frozen=True)
class PairSelection:
    """Which ordinary pairs a plan covers: all, some domains, or n drawn per domain."""

    domains: tuple[str, ...] = ()
    per_domain: int | None = None


def select_pairs(session: Session, study: Study, selection: PairSelection) -> list[Pair]:
    """The selected non-gold pairs, in id order (the per-domain sample is
    `planner.sample_per_domain`'s)."""
    query = select(Pair).where(Pair.study_id == study.id, col(Pair.gold_preference).is_(None))
    if selection.domains:
        query = query.where(col(Pair.domain).in_(selection.domains))
    pairs = list(session.exec(query.order_by(col(Pair.id))).all())
    known = {p.domain for p in pairs}
    missing = [d for d in selection.domains if d not in known]
    if missing:
        raise AssignmentError(f"no pairs in domain(s) {', '.join(missing)} of study {study.name}")
    if selection.per_domain is None:
        return pairs
    if selection.per_domain < 1:
        raise AssignmentError("the sample size per domain must be at least 1")
    by_domain: dict[str, list[str]] = defaultdict(list)
    for pair in pairs:
        by_domain[pair.domain].append(pair.record_id)
    chosen = planner.sample_per_domain(study.seed, by_domain, selection.per_domain)
    return [p for p in pairs if p.record_id in chosen]


@dataclass
class PlanResult:
    created: dict[str, int] = field(default_factory=dict)  # annotator -> new ordinary items
    gold: dict[str, int] = field(default_factory=dict)  # annotator -> new gold pairs
    moved: int = 0  # of those, pending items moved over by rebalancing
    short: list[str] = field(default_factory=list)  # record ids left below k (too few people)
    loads: dict[str, int] = field(default_factory=dict)  # annotator -> slots held afterwards

    @property
    def total(self) -> int:
        return sum(self.created.values())


def plan_fixed(
    session: Session,
    study: Study,
    annotators: Sequence[Annotator],
    pairs: Sequence[Pair],
    *,
    per_pair: int | None = None,
    rebalance: bool = False,
    now: datetime | None = None,
) -> PlanResult:
    """Give every pair k slots among `annotators`, balanced; extend an existing plan.

    `per_pair` (k) defaults to the study's overlap and, when given, becomes it.
    """
    study = lock_study(session, row_id(study))
    k = study.overlap if per_pair is None else per_pair
    people = distinct(annotators)
    _check(k, people, pairs)
    study.overlap = k
    session.add(study)
    golds = gold_pairs(session, row_id(study))
    plan = planner.plan(
        study.seed,
        [p.record_id for p in pairs],
        [a.name for a in people],
        k,
        _existing(session, study, people, pairs, as_utc(now), rebalance=rebalance),
        gold_pairs=[g.record_id for g in golds],
        gold_rate=study.gold_rate,
        rebalance=rebalance,
    )
    return _write(session, study, people, plan, {p.record_id: p for p in [*pairs, *golds]})


def _check(k: int, people: Sequence[Annotator], pairs: Sequence[Pair]) -> None:
    if k < 1:
        raise AssignmentError("each pair needs at least 1 annotator")
    if k > len(people):
        raise AssignmentError(
            f"{k} annotators per pair needs at least {k} annotators; {len(people)} chosen"
        )
    if any(p.gold_preference is not None for p in pairs):
        raise AssignmentError("gold pairs are mixed in at the gold rate, not planned")


def _existing(
    session: Session,
    study: Study,
    people: Sequence[Annotator],
    pairs: Sequence[Pair],
    now: datetime,
    *,
    rebalance: bool,
) -> planner.Existing:
    taken = slots_taken(session, row_id(study), now)
    return planner.Existing(
        taken={p.record_id: taken.get(row_id(p), 0) for p in pairs},
        had=ever_had(session, row_id(study)),
        loads=loads_by_name(session, row_id(study), now, people),
        movable=_movable_items(session, study, people) if rebalance else {},
    )


def _movable_items(
    session: Session, study: Study, people: Sequence[Annotator]
) -> dict[str, list[planner.Movable]]:
    """annotator -> their unscored pending fixed-plan items on ordinary pairs, last first."""
    query = (
        joined_assignments(Annotator.name, Assignment.id, Pair.record_id)
        .where(
            Assignment.study_id == study.id,
            col(Assignment.annotator_id).in_([a.id for a in people]),
            Assignment.status == AssignmentStatus.PENDING,
            col(Assignment.reserved_until).is_(None),
            col(Pair.gold_preference).is_(None),
            col(Assignment.id).not_in(select(Rating.assignment_id)),
        )
        .order_by(col(Assignment.position).desc())
    )
    movable: dict[str, list[planner.Movable]] = defaultdict(list)
    for name, item, record_id in session.exec(query):
        movable[name].append(planner.Movable(item, record_id))
    return movable


def _write(
    session: Session,
    study: Study,
    people: Sequence[Annotator],
    plan: planner.Plan,
    pairs: dict[str, Pair],
) -> PlanResult:
    """Release the moved items and append every annotator's new pairs to their queue."""
    for move in plan.moves:
        item = session.get(Assignment, move.item)
        if item is not None:
            item.status = AssignmentStatus.RELEASED
            session.add(item)
            pairs.setdefault(move.pair, session.get_one(Pair, item.pair_id))
    result = PlanResult(moved=len(plan.moves), short=plan.short)
    for person in people:
        regular = plan.new[person.name]
        gold = plan.gold[person.name]
        assign_pairs(session, study, person, [pairs[r] for r in regular + gold])
        result.created[person.name] = len(regular)
        result.gold[person.name] = len(gold)
        result.loads[person.name] = plan.loads[person.name]
    return result
