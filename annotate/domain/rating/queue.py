"""An annotator's queue, and the blinded view of one pair that the rating page draws.

`PairView` is everything the annotator's browser gets about a pair. It holds the two texts under
the names Response A and Response B and nothing that says which one is chosen.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from sqlalchemy import ColumnElement, and_, case, func, tuple_
from sqlmodel import Session, col, select

from annotate.db.tables import Annotator, Assignment, Pair, Rating, Study, Training
from annotate.domain.assignment import quota
from annotate.domain.assignment.blinding import response_on
from annotate.domain.assignment.crowd import has_finished
from annotate.domain.rating.aspects import marks_by_side
from annotate.domain.rating.spans import SpanMark, spans_by_side
from annotate.domain.study.questionnaire import questionnaire_of
from annotate.domain.study.training_rules import FAILED
from annotate.questionnaire import Questionnaire
from annotate.vocabulary import SIDES, AssignmentStatus, Response, Role

PROFILE_PREVIEW = 10


class QueueEntry(NamedTuple):
    """One line of the annotator's queue (for the "go to pair" list).

    A named tuple, not a dataclass: a queue can hold thousands of entries and is read on every
    page run, and tuples of plain values are cheap to build and skipped by the garbage collector.
    """

    assignment_id: int
    number: int  # 1-based place in the queue
    status: str


@dataclass(frozen=True)
class StudyScale:
    questionnaire: Questionnaire  # what each response is asked (no role is shown on the page)
    guidelines: str
    ask_preference: bool = False  # the direct preference after the scores (by side)
    rationale: str = "off"  # with the preference: off, optional or required
    aspect_checklist: bool = False  # each rubric aspect's coverage (0/1/2) per side


@dataclass(frozen=True)
class PairView:
    """The blinded pair, as shown to one annotator."""

    assignment_id: int
    number: int
    total: int  # the queue's pairs, and those an open pool's quota may still give
    done: int
    status: str
    question: str
    narrative: str
    category: str
    profile: list[dict[str, Any]]
    rubric_aspects: list[dict[str, Any]]
    responses: dict[str, str]  # side -> text
    conversation: list[dict[str, str]] = field(default_factory=list)  # turns before responses
    scores: dict[str, dict[str, int]] = field(default_factory=dict)  # side -> question key -> score
    comment: str = ""
    flag_reason: str = ""
    skip_reason: str = ""
    scale: StudyScale | None = None
    side_preference: int | None = None  # -2 A much better .. +2 B much better (sides only)
    rationale: str = ""
    aspect_marks: dict[str, list[int | None]] = field(default_factory=dict)  # side -> by aspect
    spans: dict[str, list[SpanMark]] = field(default_factory=dict)  # side -> (start, end, label)


def _in_queue(annotator_id: int) -> ColumnElement[bool]:
    """The annotator's assignments, but not those released, nor those of a study whose training
    they failed (they may not rate its pairs; its end page says so)."""
    failed = select(Training.study_id).where(
        col(Training.annotator_id) == annotator_id, col(Training.status) == FAILED
    )
    return and_(
        col(Assignment.annotator_id) == annotator_id,
        col(Assignment.status) != AssignmentStatus.RELEASED,
        col(Assignment.study_id).not_in(failed),
    )


_QUEUE_ORDER = (col(Assignment.study_id), col(Assignment.position), col(Assignment.id))


def queue(session: Session, annotator_id: int) -> list[QueueEntry]:
    """The annotator's queue in order, across their studies (oldest study first)."""
    # Plain rows (no ORM loading): this runs on every page run, over thousands of assignments.
    rows = session.connection().execute(
        select(Assignment.id, Assignment.status)
        .where(_in_queue(annotator_id))
        .order_by(*_QUEUE_ORDER)
    )
    return [QueueEntry(aid, number, status) for number, (aid, status) in enumerate(rows, 1)]


def next_open(entries: list[QueueEntry]) -> QueueEntry | None:
    """Where to resume: the first pair neither rated nor skipped."""
    return next((e for e in entries if e.status == AssignmentStatus.PENDING), None)


def study_scale(study: Study) -> StudyScale:
    return StudyScale(
        questionnaire=questionnaire_of(study),
        guidelines=study.guidelines,
        ask_preference=study.ask_preference,
        rationale=study.rationale,
        aspect_checklist=study.aspect_checklist,
    )


def pair_view(session: Session, annotator_id: int, assignment_id: int) -> PairView:
    """The blinded view of one of the annotator's pairs, with any scores already given."""
    assignment = session.get(Assignment, assignment_id)
    if (
        assignment is None
        or assignment.annotator_id != annotator_id
        or assignment.status == AssignmentStatus.RELEASED
    ):
        raise PermissionError("this pair is not in your queue")
    # Place and progress counted in SQL (one index scan), not by loading the whole queue.
    here = tuple_(assignment.study_id, assignment.position, assignment.id)
    total, done, before = (
        session.connection()
        .execute(
            select(
                func.count(),
                _count_where(col(Assignment.status) == AssignmentStatus.DONE),
                _count_where(tuple_(*_QUEUE_ORDER) < here),
            ).where(_in_queue(annotator_id))
        )
        .one()
    )
    pair = session.get(Pair, assignment.pair_id)
    study = session.get(Study, assignment.study_id)
    assert pair is not None
    assert study is not None
    total += _quota_left(session, study, annotator_id)
    scale = study_scale(study)
    texts = {Response.CHOSEN: pair.chosen, Response.REJECTED: pair.rejected}
    side_of_response: dict[str, str] = {response_on(s, assignment.chosen_side): s for s in SIDES}
    scores: dict[str, dict[str, int]] = {side: {} for side in SIDES}
    for rating in session.exec(select(Rating).where(Rating.assignment_id == assignment_id)):
        scores[side_of_response[rating.response]][rating.dimension] = rating.score
    return PairView(
        assignment_id=assignment_id,
        number=int(before) + 1,
        total=int(total),
        done=int(done),
        status=assignment.status,
        question=pair.question,
        narrative=pair.narrative,
        category=pair.category,
        profile=list(pair.profile),
        rubric_aspects=list(pair.rubric_aspects),
        responses={side: texts[response_on(side, assignment.chosen_side)] for side in SIDES},
        conversation=list(pair.conversation),
        scores=scores,
        comment=assignment.comment or "",
        flag_reason=assignment.flag_reason or "",
        skip_reason=assignment.skip_reason or "",
        scale=scale,
        side_preference=assignment.side_preference,
        rationale=assignment.rationale or "",
        aspect_marks=marks_by_side(session, assignment, pair) if study.aspect_checklist else {},
        spans=spans_by_side(session, assignment) if scale.questionnaire.span_labels else {},
    )


def _count_where(condition: ColumnElement[bool]) -> ColumnElement[int]:
    return func.coalesce(func.sum(case((condition, 1), else_=0)), 0)


def _quota_left(session: Session, study: Study, annotator_id: int) -> int:
    """Pairs an open pool may still give the annotator in the study: its per-person quota
    less the pairs they hold or counted (one is pulled at a time; a pair set aside is
    replaced, `assignment.quota`), so the page counts "Pair 3 of 10"
    against the quota, not against the pairs pulled so far. None left without a quota, once
    they chose Finish, and for an adjudicator (the pool gives them nothing)."""
    if not study.pool_open or study.pool_quota is None:
        return 0
    annotator = session.get(Annotator, annotator_id)
    if annotator is None or annotator.role == Role.ADJUDICATOR:
        return 0
    if study.id is None or has_finished(session, annotator_id, study.id):
        return 0
    standing = quota.tally(session, study, annotator_id)  # set-aside pairs are replaced
    return max(study.pool_quota - standing.counted - standing.held, 0)


def completion_codes(session: Session, annotator_id: int) -> list[str]:
    """Completion codes of the studies in which the annotator has finished every pair."""
    return [s.completion_code for s in finished_studies(session, annotator_id) if s.completion_code]


def finished_studies(session: Session, annotator_id: int) -> list[Study]:
    """The studies in which the annotator has finished every pair."""
    # DISTINCT over ids only: PostgreSQL cannot compare the JSON columns of a whole Study row.
    mine = select(Assignment.study_id).where(Assignment.annotator_id == annotator_id)
    studies = session.exec(select(Study).where(col(Study.id).in_(mine))).all()
    finished = []
    for study in studies:
        open_left = session.exec(
            select(Assignment.id).where(
                Assignment.annotator_id == annotator_id,
                Assignment.study_id == study.id,
                Assignment.status == AssignmentStatus.PENDING,
            )
        ).first()
        if open_left is None:
            finished.append(study)
    return finished


def step(entries: list[QueueEntry], assignment_id: int, offset: int) -> QueueEntry | None:
    """The entry `offset` places away from this one (None past either end)."""
    index = next((i for i, e in enumerate(entries) if e.assignment_id == assignment_id), None)
    if index is None or not 0 <= index + offset < len(entries):
        return None
    return entries[index + offset]


def next_open_after(entries: list[QueueEntry], assignment_id: int) -> QueueEntry | None:
    """After a submit: the next open pair further down the queue, else the first open one."""
    index = next((i for i, e in enumerate(entries) if e.assignment_id == assignment_id), -1)
    later = [e for e in entries[index + 1 :] if e.status == AssignmentStatus.PENDING]
    return later[0] if later else next_open(entries)
