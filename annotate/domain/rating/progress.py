"""Progress of a study, per annotator and per domain, its totals, and its flagged pairs.

Counts are over assignments still in someone's queue (released ones are left out). `assigned`
is everything given out, `pending` what is neither done nor skipped; seconds per pair are those
recorded with the latest submit of each done assignment.

An adjudication is not one of a pair's k ratings (issue 22.6): the per-annotator and per-domain
counts are of ordinary ratings, adjudications are counted apart (`adjudications`,
`adjudicated`), and a pair is complete with k ordinary ratings. What is left (`Totals.to_rate`)
is, in an open pool, the ratings still missing for every ordinary pair to reach k (lapsed or
never pulled included), and in a fixed plan the planned ratings not done yet. `in_progress`
("being rated") counts only live reservations: pending items whose reservation has not lapsed
(planned items never lapse); a skip or a flag without scores has given its slot back
(`annotate.domain.assignment.release`) and is not being rated.

`short_pairs` names the pairs that cannot reach k as things stand, and why: the fixed plan
gave them out fewer than k times, the pool is closed, or (enrolment closed) fewer annotators
who may still pull have never had the pair than the pair misses: everyone else who could has
had it.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func
from sqlmodel import Session, col, select

from annotate.db.queries import joined_assignments
from annotate.db.tables import Annotator, Assignment, Pair, Rating, Study, stored_id
from annotate.domain.assignment import as_utc, quota
from annotate.domain.assignment.crowd import has_finished
from annotate.vocabulary import AssignmentStatus, Purpose, Role


@dataclass(frozen=True)
class ProgressRow:
    """One line of the dashboard: an annotator or a domain."""

    name: str
    assigned: int
    done: int
    skipped: int
    pending: int
    flagged: int
    median_seconds: float | None
    adjudications: int = 0  # adjudications given (not released), outside the counts above
    adjudicated: int = 0  # of which done

    @property
    def share_done(self) -> float:
        return self.done / self.assigned if self.assigned else 0.0


@dataclass(frozen=True)
class DomainProgress(ProgressRow):
    pairs: int = 0
    complete: int = 0  # ordinary pairs with k done ratings


@dataclass(frozen=True)
class _Item:
    annotator: str
    domain: str
    pair_id: int
    status: str
    flagged: bool
    gold: bool
    seconds: float | None
    adjudication: bool
    live: bool = False  # a pending item holding its slot: reserved (not lapsed) or planned


def _items(session: Session, study_id: int, now: datetime | None = None) -> list[_Item]:
    seconds = (
        select(Rating.assignment_id, func.max(Rating.seconds).label("seconds"))
        .group_by(col(Rating.assignment_id))
        .subquery()
    )
    columns = (
        Annotator.name,
        Pair.domain,
        Pair.id,
        Assignment.status,
        Assignment.flagged,
        Pair.gold_preference,
        seconds.c.seconds,
        Assignment.purpose,
        Assignment.reserved_until,
    )
    rows = session.exec(
        joined_assignments(*columns)
        .outerjoin(seconds, seconds.c.assignment_id == col(Assignment.id))
        .where(Assignment.study_id == study_id, Assignment.status != AssignmentStatus.RELEASED)
    ).all()
    moment = as_utc(now)
    return [
        _Item(
            name,
            domain,
            pair_id,
            status,
            bool(flag),
            gold is not None,
            secs,
            purpose == ADJ,
            live=status == AssignmentStatus.PENDING and (until is None or as_utc(until) > moment),
        )
        for name, domain, pair_id, status, flag, gold, secs, purpose, until in rows
    ]


ADJ = Purpose.ADJUDICATION


def _row(name: str, items: Iterable[_Item]) -> ProgressRow:
    items = list(items)
    return ProgressRow(name, *_counts(items), *_adjudications(items))


def _adjudications(items: list[_Item]) -> tuple[int, int]:
    given = [i for i in items if i.adjudication]
    return len(given), sum(i.status == AssignmentStatus.DONE for i in given)


def _counts(items: list[_Item]) -> tuple[int, int, int, int, int, float | None]:
    """assigned, done, skipped, pending, flagged, median seconds of the ordinary ratings."""
    items = [i for i in items if not i.adjudication]
    done = [i for i in items if i.status == AssignmentStatus.DONE]
    times = [i.seconds for i in done if i.seconds is not None]
    return (
        len(items),
        len(done),
        sum(i.status == AssignmentStatus.SKIPPED for i in items),
        sum(i.status == AssignmentStatus.PENDING for i in items),
        sum(i.flagged for i in items),
        statistics.median(times) if times else None,
    )


def annotator_progress(session: Session, study_id: int) -> list[ProgressRow]:
    """One row per annotator with work in the study, by name."""
    groups: dict[str, list[_Item]] = defaultdict(list)
    for item in _items(session, study_id):
        groups[item.annotator].append(item)
    return [_row(name, items) for name, items in sorted(groups.items())]


def domain_progress(session: Session, study_id: int) -> list[DomainProgress]:
    """One row per domain of the study (domains without work included), by name."""
    study = session.get(Study, study_id)
    k = study.overlap if study else 1
    groups: dict[str, list[_Item]] = defaultdict(list)
    for item in _items(session, study_id):
        groups[item.domain].append(item)
    pairs = dict(
        session.exec(
            select(Pair.domain, func.count())
            .where(Pair.study_id == study_id, col(Pair.gold_preference).is_(None))
            .group_by(col(Pair.domain))
        ).all()
    )
    rows = []
    for domain in sorted(set(pairs) | set(groups)):
        items = groups.get(domain, [])
        complete = sum(n >= k for n in _done_per_pair(items).values())
        rows.append(
            DomainProgress(
                domain,
                *_counts(items),
                *_adjudications(items),
                pairs=pairs.get(domain, 0),
                complete=complete,
            )
        )
    return rows


def _done_per_pair(items: Iterable[_Item]) -> dict[int, int]:
    """ordinary pair id -> its done ordinary ratings (adjudications and gold left out)."""
    done: dict[int, int] = defaultdict(int)
    for item in items:
        if item.status == AssignmentStatus.DONE and not item.gold and not item.adjudication:
            done[item.pair_id] += 1
    return done


@dataclass(frozen=True)
class Totals:
    """The study at a glance: pairs, slots, ratings, adjudications and what is left."""

    pool: bool  # work comes from the open pool (else from a fixed plan)
    crowd: bool  # crowd enrolment is open
    overlap: int
    pairs: int  # ordinary pairs (gold left out)
    ratings: int  # done ordinary ratings of ordinary pairs
    complete: int  # ordinary pairs with k of them
    in_progress: int  # live reservations of ordinary pairs (reserved and not lapsed, planned)
    to_rate: int  # ratings still to be done (see the module's docstring)
    adjudications: int  # adjudications given (not released)
    adjudicated: int  # of which done

    @property
    def slots(self) -> int:
        return self.pairs * self.overlap


def totals(session: Session, study: Study, now: datetime | None = None) -> Totals:
    """The study's totals; an adjudication is never counted as one of a pair's k ratings."""
    study_id = study.id or 0
    items = _items(session, study_id, now)
    ordinary = [i for i in items if not i.gold and not i.adjudication]
    pairs = session.exec(
        select(func.count()).where(Pair.study_id == study_id, col(Pair.gold_preference).is_(None))
    ).one()
    done = _done_per_pair(items)
    open_items = [i for i in ordinary if i.status != AssignmentStatus.DONE]
    if study.pool_open:
        to_rate = pairs * study.overlap - sum(min(n, study.overlap) for n in done.values())
    else:
        to_rate = len(open_items)
    given, adjudicated = _adjudications(items)
    return Totals(
        pool=study.pool_open,
        crowd=study.enrolment_open,
        overlap=study.overlap,
        pairs=pairs,
        ratings=sum(done.values()),
        complete=sum(n >= study.overlap for n in done.values()),
        in_progress=sum(i.live for i in open_items),
        to_rate=to_rate,
        adjudications=given,
        adjudicated=adjudicated,
    )


def total_progress(rows: Iterable[ProgressRow], name: str = "all") -> ProgressRow:
    """The sum of some rows (the median of medians is not a median, so it is left out)."""
    rows = list(rows)
    return ProgressRow(
        name,
        sum(r.assigned for r in rows),
        sum(r.done for r in rows),
        sum(r.skipped for r in rows),
        sum(r.pending for r in rows),
        sum(r.flagged for r in rows),
        None,
        sum(r.adjudications for r in rows),
        sum(r.adjudicated for r in rows),
    )


@dataclass(frozen=True)
class FlaggedPair:
    pair_id: str
    domain: str
    annotator: str
    reason: str
    comment: str
    status: str


def flagged_pairs(session: Session, study_id: int) -> list[FlaggedPair]:
    """Every flag raised in the study, by pair then annotator."""
    columns = (
        Pair.record_id,
        Pair.domain,
        Annotator.name,
        Assignment.flag_reason,
        Assignment.comment,
        Assignment.status,
    )
    rows = session.exec(
        joined_assignments(*columns)
        .where(Assignment.study_id == study_id, col(Assignment.flagged).is_(True))
        .order_by(col(Pair.record_id), col(Annotator.name))
    ).all()
    return [
        FlaggedPair(pid, domain, name, reason or "", comment or "", status)
        for pid, domain, name, reason, comment, status in rows
    ]


@dataclass(frozen=True)
class ShortPair:
    """A pair that cannot reach k as things stand, and why."""

    record_id: str
    domain: str
    done: int
    held: int  # live reservations
    missing: int  # k - done - held
    eligible: int  # annotators who may still pull and never had it (-1: not counted)
    reason: str


def short_pairs(session: Session, study: Study, now: datetime | None = None) -> list[ShortPair]:
    """The study's ordinary pairs that cannot reach k as things stand (see the module), by
    record id. With the pool and crowd enrolment open none: a new participant can take any."""
    if study.pool_open and study.enrolment_open:
        return []
    items = [i for i in _items(session, stored_id(study), now) if not i.gold]
    items = [i for i in items if not i.adjudication]
    done = _done_per_pair(items)
    held: dict[int, int] = defaultdict(int)
    for item in items:
        held[item.pair_id] += item.live
    pairs = session.exec(
        select(Pair.id, Pair.record_id, Pair.domain).where(
            Pair.study_id == study.id, col(Pair.gold_preference).is_(None)
        )
    ).all()
    k = study.overlap
    pool = _could_pull(session, study) if study.pool_open else set()
    had = _had(session, stored_id(study))
    found = []
    for found_id, record_id, domain in sorted(pairs, key=lambda p: p[1]):
        pair_id = found_id or 0
        rated, live = done.get(pair_id, 0), held[pair_id]
        missing = k - rated - live
        eligible = len(pool - had.get(pair_id, set())) if study.pool_open else -1
        if missing <= 0 or eligible >= missing:
            continue
        found.append(
            ShortPair(record_id, domain, rated, live, missing, eligible, _why(k, missing, eligible))
        )
    return found


def _why(k: int, missing: int, eligible: int) -> str:
    if eligible < 0:
        return f"given out {k - missing} of {k} times; the fixed plan gives it to no one else"
    return (
        f"needs {missing} more; only {eligible} annotator{'' if eligible == 1 else 's'} who may "
        "still pull never had it: everyone else who could has had it"
    )


def _had(session: Session, study_id: int) -> dict[int, set[int]]:
    """pair id -> every annotator who ever had it (released included)."""
    had: dict[int, set[int]] = defaultdict(set)
    for pair_id, annotator_id in session.exec(
        select(Assignment.pair_id, Assignment.annotator_id).where(
            Assignment.study_id == study_id, Assignment.purpose == Purpose.RATING
        )
    ).all():
        had[pair_id].add(annotator_id)
    return had


def _could_pull(session: Session, study: Study) -> set[int]:
    """The study's annotators (anyone with work in it) whom the pool may still give a pair:
    active, not adjudicators, not finished or ended, under the quota and the skip limit."""
    ids = session.exec(
        select(Assignment.annotator_id).where(Assignment.study_id == study.id).distinct()
    ).all()
    people = session.exec(select(Annotator).where(col(Annotator.id).in_(ids))).all()
    able = set()
    for person in people:
        if not person.active or person.role == Role.ADJUDICATOR or person.id is None:
            continue
        if has_finished(session, person.id, stored_id(study)):
            continue
        standing = quota.tally(session, study, person.id)
        if quota.quota_reached(study, standing) or quota.limit_reached(study, standing):
            continue
        able.add(person.id)
    return able
