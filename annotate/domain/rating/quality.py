"""Quality control: gold pairs, and per-annotator signs of careless work.

A gold pair is an ordinary pair with a known rubric preference: 'chosen' (chosen fits the user's
rubric better), 'rejected', or 'equal'. Gold pairs are mixed into queues at the study's gold rate
(see `annotate.domain.assignment`) and look exactly like other pairs to the annotator. An
annotator's answer on a gold pair is read from their two rubric-alignment scores.

Straight-lining is giving one pair the same score everywhere: all 8 scores equal.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace

from sqlmodel import Session, col, select

from annotate.db.queries import joined_assignments
from annotate.db.tables import Annotator, Assignment, Pair, Rating, Study
from annotate.domain.study.questionnaire import questionnaire_of
from annotate.errors import Invalid
from annotate.vocabulary import AssignmentStatus, Response

GOLD_PREFERENCES = (Response.CHOSEN.value, Response.REJECTED.value, "equal")


class GoldError(Invalid):
    pass


def mark_gold(session: Session, study: Study, record_ids: Sequence[str], expect: str) -> int:
    """Make these pairs gold with the expected rubric preference; return how many."""
    if expect not in GOLD_PREFERENCES:
        raise GoldError(f"expected preference must be one of {', '.join(GOLD_PREFERENCES)}")
    return _set_gold(session, study, record_ids, expect)


def unmark_gold(session: Session, study: Study, record_ids: Sequence[str]) -> int:
    """Make these pairs ordinary again (work already assigned stays)."""
    return _set_gold(session, study, record_ids, None)


def _set_gold(session: Session, study: Study, record_ids: Sequence[str], value: str | None) -> int:
    wanted = list(dict.fromkeys(r.strip() for r in record_ids if r.strip()))
    if not wanted:
        raise GoldError("name at least one pair id")
    pairs = session.exec(
        select(Pair).where(Pair.study_id == study.id, col(Pair.record_id).in_(wanted))
    ).all()
    unknown = sorted(set(wanted) - {p.record_id for p in pairs})
    if unknown:
        raise GoldError(f"no pair(s) {', '.join(unknown)} in study {study.name!r}")
    for pair in pairs:
        pair.gold_preference = value
        session.add(pair)
    session.flush()
    return len(pairs)


@dataclass(frozen=True)
class GoldPair:
    record_id: str
    domain: str
    expect: str


def list_gold(session: Session, study_id: int) -> list[GoldPair]:
    rows = session.exec(
        select(Pair.record_id, Pair.domain, Pair.gold_preference)
        .where(Pair.study_id == study_id, col(Pair.gold_preference).is_not(None))
        .order_by(col(Pair.domain), col(Pair.record_id))
    ).all()
    return [GoldPair(*row) for row in rows]


def preference(chosen_score: int, rejected_score: int) -> str:
    """Which response the annotator's rubric-alignment scores prefer."""
    if chosen_score > rejected_score:
        return "chosen"
    if chosen_score < rejected_score:
        return "rejected"
    return "equal"


@dataclass(frozen=True)
class RatedPair:
    """One done assignment with its scores: what the quality figures are computed from."""

    annotator: str
    assignment_id: int
    gold: str | None
    seconds: float
    scores: dict[tuple[str, str], int]  # (response, question key) -> score
    asked: tuple[str, ...]  # the study's questions (annotate.questionnaire)
    target: str | None  # the question a gold pair's expected preference is read on

    @property
    def straight_lined(self) -> bool:
        complete = len(self.scores) == 2 * len(self.asked)
        return complete and len(set(self.scores.values())) == 1

    @property
    def gold_correct(self) -> bool | None:
        if self.gold is None:
            return None
        if self.target is None:
            return None
        chosen = self.scores.get((Response.CHOSEN, self.target))
        rejected = self.scores.get((Response.REJECTED, self.target))
        if chosen is None or rejected is None:
            return None
        return preference(chosen, rejected) == self.gold


def rated_pairs(session: Session, study_id: int) -> list[RatedPair]:
    """Every done assignment of the study with its current scores."""
    columns = (
        Annotator.name,
        Assignment.id,
        Pair.gold_preference,
        Rating.response,
        Rating.dimension,
        Rating.score,
        Rating.seconds,
    )
    query = joined_assignments(*columns, ratings=True).where(
        Assignment.study_id == study_id, Assignment.status == AssignmentStatus.DONE
    )
    asked = questionnaire_of(session.get_one(Study, study_id))
    keys, target = asked.keys, asked.target
    grouped: dict[int, RatedPair] = {}
    for name, assignment_id, gold, response, dimension, score, seconds in session.exec(query):
        assert assignment_id is not None  # a primary key read from the database
        new = RatedPair(name, assignment_id, gold, 0.0, {}, keys, target)
        item = grouped.setdefault(assignment_id, new)
        item.scores[(response, dimension)] = score
        if seconds > item.seconds:
            grouped[assignment_id] = replace(item, seconds=float(seconds))
    return [item for _, item in sorted(grouped.items())]


@dataclass(frozen=True)
class AnnotatorQuality:
    annotator: str
    rated: int
    median_seconds: float | None
    straight_lined: int
    straight_lining: float | None  # share of rated pairs with all 8 scores equal
    gold_rated: int
    gold_correct: int
    gold_accuracy: float | None


def annotator_quality(session: Session, study_id: int) -> list[AnnotatorQuality]:
    """Per annotator: time per pair, straight-lining and gold accuracy, by annotator name."""
    by_annotator: dict[str, list[RatedPair]] = defaultdict(list)
    for item in rated_pairs(session, study_id):
        by_annotator[item.annotator].append(item)
    return [summarise(name, items) for name, items in sorted(by_annotator.items())]


def summarise(annotator: str, items: Sequence[RatedPair]) -> AnnotatorQuality:
    straight = sum(i.straight_lined for i in items)
    graded = [i.gold_correct for i in items if i.gold_correct is not None]
    correct = sum(graded)
    return AnnotatorQuality(
        annotator=annotator,
        rated=len(items),
        median_seconds=statistics.median(i.seconds for i in items) if items else None,
        straight_lined=straight,
        straight_lining=straight / len(items) if items else None,
        gold_rated=len(graded),
        gold_correct=correct,
        gold_accuracy=correct / len(graded) if graded else None,
    )
