"""Assignment: who rates which pair, in which order, with which response on which side.

Every assignment is one (annotator, pair) with a place in the annotator's shuffled queue and the
side the chosen response is shown on (both drawn in `annotate.domain.blinding`). An annotator
never gets the same pair twice (a unique constraint), not even after it was taken away from them.

A pair's **slots** are the assignments that count towards its overlap k: those done, and those
pending or skipped that are not lapsed (a fixed-plan item never lapses; a pool reservation lapses
at `reserved_until`). Released assignments never count. Gold pairs are outside the plan: they have
no k and are mixed into queues at the study's gold rate.

Three ways to hand out work:

- **Fixed plan** (`plan_fixed`): every chosen pair gets exactly k slots, each new slot going to
  the least-loaded chosen annotator who never had the pair (ties broken by a draw from the study
  seed), so with equal starting loads the loads end within one of each other, and the plan is the
  same for the same seed, pairs and annotators. Running it again *extends* the plan: pairs that
  already have k slots are left alone, finished and pending work is never touched, new pairs fill
  up the least-loaded annotators first (so newcomers get the new work), and a larger k adds the
  missing slots. Only with `rebalance=True` does it also move untouched pending items (no score
  given) from the most- to the least-loaded annotators until loads are within one.
- **Open pool** (`pull_next`): an annotator of a study with an open pool pulls one pair at a time:
  among the pairs they never had, one with the fewest slots (below k), reserved for the study's
  `reservation_minutes`. Lapsed reservations are released on every pull, so drop-outs do not
  starve pairs. A late submit of a lapsed reservation is accepted if the pair still has a free
  slot and refused otherwise (`admit_submit`), so no pair is ever completed by more than k people.
- **Reassign** (`reassign`): an annotator's unfinished (pending or skipped) items are released and
  handed to others, least-loaded first, keeping k distinct annotators per pair.

Concurrency: every write that can change a pair's slot count first locks the study row
(`lock_study`: `SELECT ... FOR NO KEY UPDATE` on PostgreSQL, which still lets other transactions
insert rows that reference the study; on SQLite `write_session`'s `BEGIN IMMEDIATE` already
serialises writers). Counting slots and writing the result therefore happen in one critical
section per study; the lock is held for a few milliseconds.
"""

from __future__ import annotations

import hashlib
import random
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from sqlalchemy import and_, func, or_, update
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from annotate.db import read_session, write_session
from annotate.db.tables import Annotator, Assignment, Pair, Rating, Study
from annotate.domain.blinding import chosen_side, shuffled
from annotate.errors import Conflict, Invalid

OPEN_STATUSES = ("pending", "skipped")
ASSIGNMENT_COLUMNS = ("annotator", "pair_id", "position", "chosen_side", "status")


class AssignmentError(Invalid):
    pass


class SlotTaken(Conflict):
    """A late submit or skip of a pair that was meanwhile given to someone else."""


# ---------------------------------------------------------------- basics


def as_utc(moment: datetime | None = None) -> datetime:
    """`moment` (default: now) as an aware UTC datetime; a naive one is taken to be UTC."""
    moment = moment or datetime.now(UTC)
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _rank(*parts: object) -> int:
    """A reproducible pseudo-random number for tie-breaks and draws."""
    digest = hashlib.sha256(":".join(str(p) for p in parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")


def lock_study(session: Session, study_id: int) -> Study:
    """Take the study's write lock for the rest of the transaction and return the study."""
    query = (
        select(Study)
        .where(Study.id == study_id)
        .with_for_update(key_share=True)
        .execution_options(populate_existing=True)
    )
    return session.exec(query).one()


def slot_clause(now: datetime):  # type: ignore[no-untyped-def]
    """SQL condition: this assignment holds one of its pair's k slots."""
    return or_(
        Assignment.status == "done",
        and_(
            Assignment.status.in_(OPEN_STATUSES),
            or_(Assignment.reserved_until.is_(None), Assignment.reserved_until > now),
        ),
    )


def holds_slot(assignment: Assignment, now: datetime) -> bool:
    if assignment.status == "done":
        return True
    if assignment.status not in OPEN_STATUSES:
        return False
    return assignment.reserved_until is None or as_utc(assignment.reserved_until) > now


def slots_taken(
    session: Session, study_id: int, now: datetime, *, exclude: int | None = None
) -> dict[int, int]:
    """pair id -> slots taken, for the pairs of the study that have any."""
    query = (
        select(Assignment.pair_id, func.count())
        .where(Assignment.study_id == study_id, slot_clause(now))
        .group_by(Assignment.pair_id)
    )
    if exclude is not None:
        query = query.where(Assignment.id != exclude)
    return {int(pair_id): int(n) for pair_id, n in session.exec(query).all()}


def _had(session: Session, study_id: int) -> dict[int, set[int]]:
    """pair id -> every annotator who ever had it (released included)."""
    had: dict[int, set[int]] = defaultdict(set)
    rows = session.exec(
        select(Assignment.pair_id, Assignment.annotator_id).where(Assignment.study_id == study_id)
    ).all()
    for pair_id, annotator_id in rows:
        had[pair_id].add(annotator_id)
    return had


def annotator_loads(session: Session, study_id: int, now: datetime) -> dict[int, int]:
    """annotator id -> slots they hold on ordinary (non-gold) pairs of the study."""
    query = (
        select(Assignment.annotator_id, func.count())
        .join(Pair, Pair.id == Assignment.pair_id)
        .where(Assignment.study_id == study_id, Pair.gold_preference.is_(None), slot_clause(now))
        .group_by(Assignment.annotator_id)
    )
    return {int(a): int(n) for a, n in session.exec(query).all()}


# ---------------------------------------------------------------- queues


def assign_pairs(
    session: Session, study: Study, annotator: Annotator, pairs: Sequence[Pair]
) -> list[Assignment]:
    """Append the pairs the annotator does not have yet to the end of their queue.

    The new pairs are shuffled for this annotator and each gets its drawn side.
    """
    have = set(
        session.exec(
            select(Assignment.pair_id).where(
                Assignment.annotator_id == annotator.id, Assignment.study_id == study.id
            )
        ).all()
    )
    fresh = {p.record_id: p for p in pairs if p.id not in have}
    last = session.exec(
        select(func.max(Assignment.position)).where(
            Assignment.annotator_id == annotator.id, Assignment.study_id == study.id
        )
    ).one()
    start = -1 if last is None else last
    created = []
    for offset, record_id in enumerate(shuffled(study.seed, annotator.name, list(fresh)), 1):
        assignment = Assignment(
            study_id=study.id,
            annotator_id=annotator.id,
            pair_id=fresh[record_id].id,
            position=start + offset,
            chosen_side=chosen_side(study.seed, annotator.name, record_id),
        )
        session.add(assignment)
        created.append(assignment)
    session.flush()
    return created


def study_pairs(session: Session, study: Study, domain: str | None = None) -> list[Pair]:
    query = select(Pair).where(Pair.study_id == study.id)
    if domain:
        query = query.where(Pair.domain == domain)
    return list(session.exec(query.order_by(Pair.id)).all())


# ---------------------------------------------------------------- choosing pairs


@dataclass(frozen=True)
class PairSelection:
    """Which ordinary pairs a plan covers: all, some domains, or n drawn per domain."""

    domains: tuple[str, ...] = ()
    per_domain: int | None = None


def select_pairs(session: Session, study: Study, selection: PairSelection) -> list[Pair]:
    """The selected non-gold pairs, in id order.

    The per-domain sample is the first n of a seeded shuffle of the domain's record ids, so a
    larger n later keeps every pair drawn before (the plan extends, it is not redrawn).
    """
    query = select(Pair).where(Pair.study_id == study.id, Pair.gold_preference.is_(None))
    if selection.domains:
        query = query.where(Pair.domain.in_(selection.domains))
    pairs = list(session.exec(query.order_by(Pair.id)).all())
    known = {p.domain for p in pairs}
    missing = [d for d in selection.domains if d not in known]
    if missing:
        raise AssignmentError(f"no pairs in domain(s) {', '.join(missing)} of study {study.name}")
    if selection.per_domain is None:
        return pairs
    if selection.per_domain < 1:
        raise AssignmentError("the sample size per domain must be at least 1")
    by_domain: dict[str, list[Pair]] = defaultdict(list)
    for pair in pairs:
        by_domain[pair.domain].append(pair)
    chosen: list[Pair] = []
    for domain, members in sorted(by_domain.items()):
        members.sort(key=lambda p: p.record_id)
        random.Random(_rank(study.seed, "sample", domain)).shuffle(members)
        chosen.extend(members[: selection.per_domain])
    return sorted(chosen, key=lambda p: p.id or 0)


def gold_pairs(session: Session, study_id: int) -> list[Pair]:
    query = select(Pair).where(Pair.study_id == study_id, Pair.gold_preference.is_not(None))
    return list(session.exec(query.order_by(Pair.id)).all())


def gold_count(regular: int, rate: float) -> int:
    """How many gold pairs to mix in with `regular` ordinary ones so gold is `rate` of all."""
    if regular <= 0 or rate <= 0:
        return 0
    return round(regular * rate / (1 - rate))


# ---------------------------------------------------------------- fixed plan


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
    study = lock_study(session, study.id)  # type: ignore[arg-type]
    now = as_utc(now)
    k = study.overlap if per_pair is None else per_pair
    people = _distinct(annotators)
    if k < 1:
        raise AssignmentError("each pair needs at least 1 annotator")
    if k > len(people):
        raise AssignmentError(
            f"{k} annotators per pair needs at least {k} annotators; {len(people)} chosen"
        )
    if any(p.gold_preference is not None for p in pairs):
        raise AssignmentError("gold pairs are mixed in at the gold rate, not planned")
    study.overlap = k
    session.add(study)
    taken = slots_taken(session, study.id, now)  # type: ignore[arg-type]
    had = _had(session, study.id)  # type: ignore[arg-type]
    all_loads = annotator_loads(session, study.id, now)  # type: ignore[arg-type]
    load = {a.id: all_loads.get(a.id, 0) for a in people}
    new_for: dict[int, list[Pair]] = defaultdict(list)
    result = PlanResult()
    for pair in sorted(pairs, key=lambda p: _rank(study.seed, "plan", p.record_id)):
        need = k - taken.get(pair.id, 0)  # type: ignore[arg-type]
        if need <= 0:
            continue
        candidates = [a for a in people if a.id not in had[pair.id]]  # type: ignore[index]
        candidates.sort(key=lambda a: (load[a.id], _rank(study.seed, pair.record_id, a.name)))
        for person in candidates[:need]:
            new_for[person.id].append(pair)  # type: ignore[index]
            load[person.id] += 1
            had[pair.id].add(person.id)  # type: ignore[index,arg-type]
        if len(candidates) < need:
            result.short.append(pair.record_id)
    if rebalance:
        result.moved = _rebalance(session, study, people, load, had, new_for)
    golds = gold_pairs(session, study.id)  # type: ignore[arg-type]
    for person in people:
        regular = new_for.get(person.id, [])  # type: ignore[arg-type]
        gold = _gold_for(study, person, golds, had, gold_count(len(regular), study.gold_rate))
        assign_pairs(session, study, person, regular + gold)
        result.created[person.name] = len(regular)
        result.gold[person.name] = len(gold)
        result.loads[person.name] = load[person.id]
    return result


def _distinct(annotators: Iterable[Annotator]) -> list[Annotator]:
    seen: dict[int, Annotator] = {}
    for annotator in annotators:
        seen.setdefault(annotator.id, annotator)  # type: ignore[arg-type]
    return list(seen.values())


def _gold_for(
    study: Study, person: Annotator, golds: Sequence[Pair], had: dict[int, set[int]], n: int
) -> list[Pair]:
    if n <= 0:
        return []
    unseen = [g for g in golds if person.id not in had[g.id]]  # type: ignore[index]
    unseen.sort(key=lambda g: _rank(study.seed, "gold", person.name, g.record_id))
    picked = unseen[:n]
    for gold in picked:
        had[gold.id].add(person.id)  # type: ignore[index,arg-type]
    return picked


def _rebalance(
    session: Session,
    study: Study,
    people: Sequence[Annotator],
    load: dict[int, int],
    had: dict[int, set[int]],
    new_for: dict[int, list[Pair]],
) -> int:
    """Move untouched pending items from the most- to the least-loaded until loads are within one.

    Each move lowers the sum of squared loads, so this ends. Items at the end of a queue move
    first; the old assignment is released, the new one goes to the end of the receiver's queue.
    """
    movable = _movable_items(session, study, people)
    pairs = {p.id: p for p in session.exec(select(Pair).where(Pair.study_id == study.id))}
    moved = 0
    while True:
        order = sorted(people, key=lambda a: (load[a.id], a.name))
        move = _find_move(order, load, had, movable)
        if move is None:
            return moved
        giver, taker, item = move
        movable[giver.id].remove(item)  # type: ignore[index]
        item.status = "released"
        session.add(item)
        new_for[taker.id].append(pairs[item.pair_id])  # type: ignore[index]
        load[giver.id] -= 1
        load[taker.id] += 1
        had[item.pair_id].add(taker.id)  # type: ignore[arg-type]
        moved += 1


def _movable_items(
    session: Session, study: Study, people: Sequence[Annotator]
) -> dict[int, list[Assignment]]:
    """annotator id -> their unscored pending fixed-plan items on ordinary pairs, last first."""
    rated = select(Rating.assignment_id)
    query = (
        select(Assignment)
        .join(Pair, Pair.id == Assignment.pair_id)
        .where(
            Assignment.study_id == study.id,
            Assignment.annotator_id.in_([a.id for a in people]),
            Assignment.status == "pending",
            Assignment.reserved_until.is_(None),
            Pair.gold_preference.is_(None),
            Assignment.id.not_in(rated),
        )
        .order_by(Assignment.position.desc())
    )
    movable: dict[int, list[Assignment]] = defaultdict(list)
    for item in session.exec(query):
        movable[item.annotator_id].append(item)
    return movable


def _find_move(
    order: Sequence[Annotator],
    load: dict[int, int],
    had: dict[int, set[int]],
    movable: dict[int, list[Assignment]],
) -> tuple[Annotator, Annotator, Assignment] | None:
    for giver in reversed(order):
        for taker in order:
            if load[giver.id] - load[taker.id] <= 1:
                break
            for item in movable.get(giver.id, []):  # type: ignore[arg-type]
                if taker.id not in had[item.pair_id]:
                    return giver, taker, item
    return None


# ---------------------------------------------------------------- open pool


def release_lapsed(session: Session, study_id: int, now: datetime) -> int:
    """Release the study's pool reservations whose time is up; return how many."""
    result = session.execute(
        update(Assignment)
        .where(
            Assignment.study_id == study_id,
            Assignment.status.in_(OPEN_STATUSES),
            Assignment.reserved_until.is_not(None),
            Assignment.reserved_until <= now,
        )
        .values(status="released")
    )
    return int(result.rowcount or 0)  # type: ignore[attr-defined]


def pull_next(
    engine: Engine, annotator_id: int, study_id: int, *, now: datetime | None = None
) -> int | None:
    """Reserve the next pair for this annotator in an open-pool study; return the assignment id.

    An annotator holds at most one live reservation: while they have one, it is returned again.
    None when the pool is closed, the annotator reached the study's quota, or no pair they
    never had still needs ratings.
    """
    now = as_utc(now)
    with write_session(engine) as session:
        study = lock_study(session, study_id)
        annotator = session.get(Annotator, annotator_id)
        if annotator is None or not annotator.active or not study.pool_open:
            return None
        release_lapsed(session, study_id, now)
        live = _live_reservation(session, annotator_id, study_id, now)
        if live is not None:
            return live
        held = _queue_length(session, annotator_id, study_id)
        if study.pool_quota is not None and held >= study.pool_quota:
            return None
        pair = _next_gold(session, study, annotator, held) or _next_pair(
            session, study, annotator, now
        )
        if pair is None:
            return None
        (assignment,) = assign_pairs(session, study, annotator, [pair])
        assignment.reserved_until = now + timedelta(minutes=study.reservation_minutes)
        session.add(assignment)
        session.flush()
        return assignment.id


def _live_reservation(
    session: Session, annotator_id: int, study_id: int, now: datetime
) -> int | None:
    return session.exec(
        select(Assignment.id).where(
            Assignment.annotator_id == annotator_id,
            Assignment.study_id == study_id,
            Assignment.status == "pending",
            Assignment.reserved_until > now,
        )
    ).first()


def _queue_length(session: Session, annotator_id: int, study_id: int) -> int:
    return session.exec(
        select(func.count()).where(
            Assignment.annotator_id == annotator_id,
            Assignment.study_id == study_id,
            Assignment.status != "released",
        )
    ).one()


def _never_had(annotator_id: int):  # type: ignore[no-untyped-def]
    return Pair.id.not_in(select(Assignment.pair_id).where(Assignment.annotator_id == annotator_id))


def _next_pair(session: Session, study: Study, annotator: Annotator, now: datetime) -> Pair | None:
    """The ordinary pair with the fewest slots below k that the annotator never had."""
    slots = func.count(Assignment.id)
    rows = session.exec(
        select(Pair.id, Pair.record_id, slots)
        .outerjoin(Assignment, and_(Assignment.pair_id == Pair.id, slot_clause(now)))
        .where(
            Pair.study_id == study.id,
            Pair.gold_preference.is_(None),
            _never_had(annotator.id),  # type: ignore[arg-type]
        )
        .group_by(Pair.id, Pair.record_id)
        .having(slots < study.overlap)
    ).all()
    if not rows:
        return None
    best = min(rows, key=lambda r: (r[2], _rank(study.seed, "pool", annotator.name, r[1])))
    return session.get(Pair, best[0])


def _next_gold(session: Session, study: Study, annotator: Annotator, held: int) -> Pair | None:
    """A gold pair the annotator never had, drawn for this queue place at the gold rate."""
    if study.gold_rate <= 0 or _rank(study.seed, "gold?", annotator.name, held) >= (
        study.gold_rate * 2**64
    ):
        return None
    rows = session.exec(
        select(Pair).where(
            Pair.study_id == study.id,
            Pair.gold_preference.is_not(None),
            _never_had(annotator.id),  # type: ignore[arg-type]
        )
    ).all()
    if not rows:
        return None
    return min(rows, key=lambda p: _rank(study.seed, "gold", annotator.name, p.record_id))


def pool_studies_of(session: Session, annotator_id: int) -> list[int]:
    """Ids of the open-pool studies the annotator takes part in (has any assignment in)."""
    query = (
        select(Study.id)
        .join(Assignment, Assignment.study_id == Study.id)
        .where(Assignment.annotator_id == annotator_id, Study.pool_open.is_(True))
        .distinct()
        .order_by(Study.id)
    )
    return [int(i) for i in session.exec(query).all()]


def pull_for_annotator(
    engine: Engine, annotator_id: int, *, now: datetime | None = None
) -> int | None:
    """For the rating page at the end of a queue: pull from the annotator's open pools."""
    with read_session(engine) as session:
        studies = pool_studies_of(session, annotator_id)
    for study_id in studies:
        pulled = pull_next(engine, annotator_id, study_id, now=now)
        if pulled is not None:
            return pulled
    return None


# ---------------------------------------------------------------- late submits


def admit_submit(session: Session, assignment: Assignment, now: datetime | None = None) -> None:
    """Inside a rating transaction: lock the study and refuse a submit that would overfill.

    A submit of a lapsed reservation or of released work is a *late* submit: it is accepted
    (and counts) if the pair still has a free slot, and refused with SlotTaken otherwise.
    """
    now = as_utc(now)
    study = lock_study(session, assignment.study_id)
    session.refresh(assignment)
    if assignment.status == "done" or holds_slot(assignment, now):
        return
    pair = session.get(Pair, assignment.pair_id)
    if pair is not None and pair.gold_preference is not None:
        return
    taken = slots_taken(session, study.id, now, exclude=assignment.id)  # type: ignore[arg-type]
    if taken.get(assignment.pair_id, 0) >= study.overlap:
        raise SlotTaken(
            "Your time for this pair ran out and it has been given to someone else, so these "
            "scores could not be saved. Thank you; please continue with your next pair."
        )


def admit_skip(session: Session, assignment: Assignment) -> None:
    """Inside a skip transaction: refuse to skip work that was taken away."""
    lock_study(session, assignment.study_id)
    session.refresh(assignment)
    if assignment.status == "released":
        raise SlotTaken("This pair has been given to someone else; there is nothing to skip.")


# ---------------------------------------------------------------- reassignment


@dataclass
class ReassignResult:
    released: int = 0
    handed: dict[str, int] = field(default_factory=dict)  # receiver -> items
    returned_to_pool: int = 0
    unplaced: list[str] = field(default_factory=list)  # record ids no receiver could take


def study_members(session: Session, study_id: int) -> list[Annotator]:
    """Active annotators (role annotator) who have any assignment in the study."""
    query = (
        select(Annotator)
        .join(Assignment, Assignment.annotator_id == Annotator.id)
        .where(
            Assignment.study_id == study_id,
            Annotator.active.is_(True),
            Annotator.role == "annotator",
        )
        .distinct()
        .order_by(Annotator.id)
    )
    return list(session.exec(query).all())


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
    are only released. Pairs that no receiver can take stay released and are listed as unplaced
    (a later `plan_fixed` or the pool fills them).
    """
    study = lock_study(session, study.id)  # type: ignore[arg-type]
    now = as_utc(now)
    items = session.exec(
        select(Assignment, Pair)
        .join(Pair, Pair.id == Assignment.pair_id)
        .where(
            Assignment.study_id == study.id,
            Assignment.annotator_id == giver.id,
            Assignment.status.in_(OPEN_STATUSES),
        )
        .order_by(Assignment.position)
    ).all()
    result = ReassignResult()
    to_pool = receivers is None and study.pool_open
    people = [
        a
        for a in (study_members(session, study.id) if receivers is None else receivers)  # type: ignore[arg-type]
        if a.id != giver.id
    ]
    people = _distinct(people)
    all_loads = annotator_loads(session, study.id, now)  # type: ignore[arg-type]
    load = {a.id: all_loads.get(a.id, 0) for a in people}
    had = _had(session, study.id)  # type: ignore[arg-type]
    new_for: dict[int, list[Pair]] = defaultdict(list)
    for item, pair in items:
        item.status = "released"
        session.add(item)
        result.released += 1
        if pair.gold_preference is not None:
            continue
        if to_pool:
            result.returned_to_pool += 1
            continue
        candidates = [a for a in people if a.id not in had[pair.id]]  # type: ignore[index]
        if not candidates:
            result.unplaced.append(pair.record_id)
            continue
        taker = min(
            candidates, key=lambda a: (load[a.id], _rank(study.seed, pair.record_id, a.name))
        )
        new_for[taker.id].append(pair)  # type: ignore[index]
        load[taker.id] += 1
        had[pair.id].add(taker.id)  # type: ignore[index,arg-type]
    session.flush()
    for person in people:
        if new_for.get(person.id):  # type: ignore[arg-type]
            assign_pairs(session, study, person, new_for[person.id])  # type: ignore[index]
            result.handed[person.name] = len(new_for[person.id])  # type: ignore[index]
    return result


# ---------------------------------------------------------------- listing


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
    rows = session.exec(
        select(
            Annotator.name,
            Pair.record_id,
            Assignment.position,
            Assignment.chosen_side,
            Assignment.status,
        )
        .join(Annotator, Annotator.id == Assignment.annotator_id)
        .join(Pair, Pair.id == Assignment.pair_id)
        .where(Assignment.study_id == study_id)
        .order_by(Annotator.name, Assignment.position)
    ).all()
    return [AssignmentRow(*row) for row in rows]


def pair_coverage(session: Session, study_id: int, now: datetime | None = None) -> dict[str, int]:
    """record id -> slots taken, for every ordinary pair of the study (0 included)."""
    taken = slots_taken(session, study_id, as_utc(now))
    pairs = session.exec(
        select(Pair.id, Pair.record_id).where(
            Pair.study_id == study_id, Pair.gold_preference.is_(None)
        )
    ).all()
    return {record_id: taken.get(pair_id, 0) for pair_id, record_id in pairs}
