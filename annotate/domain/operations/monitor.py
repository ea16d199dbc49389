"""Watching a study while it runs (issue 34 items 4 and 5): the figures read from the database.

Every figure is read from the database at the moment it is asked for, never from one server's
memory, so several app servers (and the command line) show the same numbers:

* the pair-ratings done (an assignment of purpose "rating", not a gold pair, finished), when
  each finished and the time spent on it (the longest `seconds` of its scores, as the quality
  checks read it); simulated annotators' work counts only where the study counts it;
* throughput: pair-ratings per hour overall (first finish to now) and over the recent window;
* the time to the planned size at the recent throughput (the planned pairs times k, or the
  last look of the group-sequential plan);
* the quality signals: speeders and straight-liners, read against the study's pre-registered
  exclusion rules when it has them (only those rules act: the monitor shows, never excludes);
* the cost so far and projected, from the study's payment rules (none: "cost: not set").

`close_at_stop` closes crowd enrolment when the study asks for it and the plan's look says
stop; the service that calls it audits the change as the system actor.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlmodel import Session, col, func, select

from annotate.db.tables import (
    Annotator,
    Assignment,
    Pair,
    PairExclusion,
    Rating,
    Study,
    stored_id,
)
from annotate.domain.assignment import as_utc
from annotate.domain.crowd.participants import participant_rows
from annotate.domain.crowd.payment_rules import participant_cost, payment_rules, rule_bonus
from annotate.domain.rating.quality import AnnotatorQuality
from annotate.domain.study.plan import plan_values
from annotate.domain.study.questionnaire import questionnaire_of
from annotate.vocabulary import AssignmentStatus, Purpose

RECENT = timedelta(hours=1)
"""The window of the recent throughput."""
SPEEDER_SHARE = 1 / 3
"""Without a pre-registered minimum, a speeder's median time per pair is below this share of
the study's median (a common screening heuristic for online surveys)."""
STRAIGHT_SHARE = 0.5
"""Without a pre-registered maximum, a straight-liner gave all scores equal on more than this
share of their pairs."""
MIN_PAIRS_FOR_SIGNAL = 2
"""Pairs an annotator must have rated before a signal about them is shown."""
STOP = "stop"
BINDING_FUTILITY = "stop for futility"


# ---------------------------------------------------------------- the work done


@dataclass(frozen=True)
class RatedSlot:
    """One finished pair-rating: which pair, when it finished, the seconds spent on it."""

    record_id: str
    finished_at: datetime
    seconds: float


def rated_slots(session: Session, study: Study) -> list[RatedSlot]:
    """The study's finished pair-ratings (not gold, not adjudications), oldest first; simulated
    annotators' only when the study counts them."""
    query = (
        select(
            Pair.record_id,
            Assignment.completed_at,
            func.max(Rating.seconds),
        )
        .select_from(Assignment)
        .join(Pair, col(Pair.id) == col(Assignment.pair_id))
        .join(Annotator, col(Annotator.id) == col(Assignment.annotator_id))
        .join(Rating, col(Rating.assignment_id) == col(Assignment.id), isouter=True)
        .where(
            col(Assignment.study_id) == stored_id(study),
            col(Assignment.status) == AssignmentStatus.DONE,
            col(Assignment.purpose) == Purpose.RATING,
            col(Pair.gold_preference).is_(None),
        )
        .group_by(col(Assignment.id), col(Pair.record_id), col(Assignment.completed_at))
    )
    if not study.count_simulated:
        query = query.where(col(Annotator.simulated).is_(False))
    rows = [
        RatedSlot(record, as_utc(done), float(seconds or 0.0))
        for record, done, seconds in session.exec(query)
        if done is not None
    ]
    return sorted(rows, key=lambda r: r.finished_at)


@dataclass(frozen=True)
class Throughput:
    """Pair-ratings per hour: overall (from the first finish to now, or over `RECENT` when the
    first finish is more recent: one rating a minute after the start is not 60 an hour) and
    over `RECENT`."""

    rated: int
    overall_per_hour: float | None  # None before any rating
    recent: int  # pair-ratings finished in the recent window
    recent_per_hour: float
    first_at: datetime | None
    last_at: datetime | None


def throughput(slots: Sequence[RatedSlot], now: datetime, window: timedelta = RECENT) -> Throughput:
    if not slots:
        return Throughput(0, None, 0, 0.0, None, None)
    first, last = slots[0].finished_at, slots[-1].finished_at
    hours = max((now - first).total_seconds() / 3600, window.total_seconds() / 3600)
    recent = sum(1 for s in slots if s.finished_at > now - window)
    return Throughput(
        rated=len(slots),
        overall_per_hour=len(slots) / hours,
        recent=recent,
        recent_per_hour=recent / (window.total_seconds() / 3600),
        first_at=first,
        last_at=last,
    )


def median_seconds(slots: Sequence[RatedSlot]) -> float | None:
    return statistics.median(s.seconds for s in slots) if slots else None


# ---------------------------------------------------------------- the planned size


@dataclass(frozen=True)
class PlannedSize:
    """Where the study is against its planned size, in pair-ratings."""

    target: int | None  # pair-ratings at the planned size (None: no planned size)
    source: str  # what the target comes from, in words
    done: int  # pair-ratings done that count towards it (at most k per pair)
    hours_left: float | None  # at the recent throughput (None: no target, or no recent work)
    words: str


def planned_ratings(study: Study) -> tuple[int | None, str]:
    """Pair-ratings the study plans to collect, and whence: the planned pairs times k, else the
    group-sequential plan's last look."""
    if study.planned_pairs:
        return study.planned_pairs * study.overlap, (
            f"{study.planned_pairs} planned pairs x k = {study.overlap}"
        )
    sequential = study.sequential or {}
    looks = sequential.get("looks") or []
    if looks:
        last = int(looks[-1])
        if sequential.get("unit") == "ratings":
            return last, f"the sequential plan's last look, {last} ratings"
        return last * study.overlap, f"the sequential plan's last look, {last} pairs x k"
    return None, "no planned size"


def planned_size(study: Study, slots: Sequence[RatedSlot], rate: Throughput) -> PlannedSize:
    target, source = planned_ratings(study)
    per_pair: dict[str, int] = {}
    for slot in slots:
        per_pair[slot.record_id] = per_pair.get(slot.record_id, 0) + 1
    done = sum(min(n, study.overlap) for n in per_pair.values())
    if target is None:
        words = "no planned size: set planned pairs or a group-sequential plan on the Studies page"
        return PlannedSize(None, source, done, None, words)
    left = max(target - done, 0)
    if left == 0:
        return PlannedSize(target, source, done, 0.0, f"planned size reached ({source})")
    if rate.recent_per_hour <= 0:
        words = (
            f"{left} pair-ratings to the planned size ({source}); none finished in the last "
            f"{_hours(RECENT)}: no estimate"
        )
        return PlannedSize(target, source, done, None, words)
    hours = left / rate.recent_per_hour
    words = (
        f"{left} pair-ratings to the planned size ({source}): about {duration_words(hours)} "
        f"at the recent {rate.recent_per_hour:.1f} per hour"
    )
    return PlannedSize(target, source, done, hours, words)


def duration_words(hours: float) -> str:
    if hours < 1:
        return f"{max(round(hours * 60), 1)} min"
    if hours < 48:
        return f"{hours:.1f} h"
    return f"{hours / 24:.1f} days"


def _hours(window: timedelta) -> str:
    n = window.total_seconds() / 3600
    return "hour" if n == 1 else f"{n:g} hours"


# ---------------------------------------------------------------- quality signals


@dataclass(frozen=True)
class Signal:
    """A sign of careless work by one annotator: shown, acted on only through the study's
    pre-registered exclusion rules."""

    annotator: str  # the annotator's pseudonym in the study
    kind: str  # "speeder" or "straight-liner"
    figure: str  # e.g. "median 4.0 s per pair"
    threshold: str  # e.g. "below 10 s (pre-registered rule)"
    rule: str | None  # the pre-registered rule that reads it (None: no rule, a signal only)
    pairs: int


def quality_signals(
    quality: Sequence[AnnotatorQuality],
    rules: Mapping[str, Any],
    names: Mapping[str, str],
    study_median: float | None,
) -> list[Signal]:
    """Speeders and straight-liners among the annotators who rated at least
    `MIN_PAIRS_FOR_SIGNAL` pairs, against the pre-registered rule where there is one, else the
    defaults above."""
    fast_rule, flat_rule = rules.get("min_median_seconds"), rules.get("max_straightlining_share")
    fast = float(fast_rule) if fast_rule is not None else None
    if fast is None and study_median is not None:
        fast = SPEEDER_SHARE * study_median
    flat = float(flat_rule) if flat_rule is not None else STRAIGHT_SHARE
    fast_source = "pre-registered rule" if fast_rule is not None else "a third of the median"
    flat_source = "pre-registered rule" if flat_rule is not None else "no rule"
    found: list[Signal] = []
    for q in quality:
        if q.rated < MIN_PAIRS_FOR_SIGNAL:
            continue
        name = names.get(q.annotator, q.annotator)
        if fast is not None and q.median_seconds is not None and q.median_seconds < fast:
            found.append(
                Signal(
                    name,
                    "speeder",
                    f"median {q.median_seconds:.1f} s per pair",
                    f"below {fast:.1f} s ({fast_source})",
                    "min_median_seconds" if fast_rule is not None else None,
                    q.rated,
                )
            )
        if q.straight_lining is not None and q.straight_lining > flat:
            found.append(
                Signal(
                    name,
                    "straight-liner",
                    f"{q.straight_lined} of {q.rated} pairs with every score equal",
                    f"above {flat:.0%} ({flat_source})",
                    "max_straightlining_share" if flat_rule is not None else None,
                    q.rated,
                )
            )
    return found


# ---------------------------------------------------------------- cost


@dataclass(frozen=True)
class Cost:
    currency: str
    so_far: int  # minor units
    projected: int | None  # at the planned size (None: no planned size or no work yet)
    words: str


def cost(session: Session, study: Study, size: PlannedSize) -> Cost | None:
    """The study's cost so far (every crowd participant by their stored outcome: the reward, its
    pro-rata share, the rule's bonus and the platform's fee, `crowd.payment_rules`) and projected
    to the planned size at the cost per pair-rating so far; None: no reward and no bonus rule
    set ("cost: not set"). Bonuses sent from an uploaded CSV are not counted."""
    rules = payment_rules(study)
    if not rules.reward and not rules.bonus_per_extra_pair:
        return None
    so_far = sum(
        participant_cost(
            rules, row.status, row.pro_rata, rule_bonus(rules, row.status, row.pairs_done)
        )
        for row in participant_rows(session, study)
    )
    projected = None
    if size.target is not None and size.done:
        projected = round(so_far * max(size.target, size.done) / size.done)
    words = f"cost so far {money(so_far, rules.currency)}"
    if projected is None:
        words += "; projected: " + ("no planned size" if size.target is None else "no work yet")
    else:
        words += f"; projected at the planned size {money(projected, rules.currency)}"
    return Cost(rules.currency, so_far, projected, words)


def money(minor: int, currency: str) -> str:
    return f"{minor / 100:,.2f} {currency}"


# ---------------------------------------------------------------- enrolment closed by the plan


def says_stop(look: Mapping[str, Any] | None) -> bool:
    """Whether a look of the plan says stop: its boundary crossed, the last look, or a binding
    futility boundary crossed (a non-binding one leaves the decision to the researchers)."""
    if not look or not look.get("look"):
        return False
    decision = look.get("decision")
    return decision == STOP or (decision == BINDING_FUTILITY and bool(look.get("binding")))


def closing_due(study: Study, look: Mapping[str, Any] | None) -> bool:
    """Whether the monitor should close the study's enrolment now: the study asks for it, its
    enrolment is open, the look says stop, and enrolment was not already closed at this look
    (an admin who opens it again at the same look is not overruled)."""
    if not (study.close_at_stop and study.enrolment_open and says_stop(look)):
        return False
    assert look is not None
    closed = study.enrolment_closed or {}
    return not (closed.get("look") == look["look"] and closed.get("n_looks") == look["n_looks"])


def close_enrolment(study: Study, look: Mapping[str, Any], now: datetime) -> dict[str, Any]:
    """Close the study's enrolment because its plan says stop; returns the record kept on the
    study (when, which look, why)."""
    record = {
        "at": now.isoformat(timespec="seconds"),
        "look": int(look["look"]),
        "n_looks": int(look["n_looks"]),
        "n_observed": int(look["n_observed"]),
        "reason": f"the group-sequential plan says stop: {look['words']}",
    }
    study.enrolment_open = False
    study.enrolment_closed = record
    return record


def closed_words(study: Study) -> str | None:
    """Why enrolment closed itself, for the Studies and Monitor pages (None: it never did)."""
    closed = study.enrolment_closed
    if not closed:
        return None
    words = f"Enrolment closed itself at {closed['at']}: {closed['reason']}"
    if study.enrolment_open:
        words += " (an admin has opened it again since)"
    return words


# ---------------------------------------------------------------- what the report reads


def ratings_fingerprint(session: Session, study: Study) -> tuple[Any, ...]:
    """What the report's figures depend on, read cheaply: the study's scores (how many, their
    sum, the latest change), its excluded and restored pairs and its plan's settings. Equal
    fingerprints give the same agreement and the same look."""
    study_id = stored_id(study)
    scores = session.exec(
        select(func.count(col(Rating.id)), func.sum(Rating.score), func.max(Rating.updated_at))
        .join(Assignment, col(Assignment.id) == col(Rating.assignment_id))
        .where(col(Assignment.study_id) == study_id)
    ).one()
    excluded = session.exec(
        select(func.count(col(PairExclusion.id)), func.count(col(PairExclusion.reversed_at)))
        .join(Pair, col(Pair.id) == col(PairExclusion.pair_id))
        .where(col(Pair.study_id) == study_id)
    ).one()
    settings = (
        plan_values(study),
        study.exclusion_rules,
        study.count_simulated,
        questionnaire_of(study).stored(),
    )
    return (tuple(scores), tuple(excluded), repr(settings))
