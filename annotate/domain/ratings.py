"""Saving an annotator's scores for a pair: one transaction, never duplicated, revisions kept.

The page knows only sides (A, B); the response behind each side is looked up here, server-side.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from annotate.db import write_session
from annotate.db.tables import Assignment, Rating, RatingRevision, Study, utcnow
from annotate.domain.assignment import SlotTaken, admit_skip, admit_submit
from annotate.domain.blinding import response_on
from annotate.errors import Invalid
from annotate.vocabulary import DIMENSION_LABELS, DIMENSIONS, SIDES

Scores = Mapping[str, Mapping[str, int | None]]
"""side ('A' or 'B') -> dimension -> score (None when not given yet)."""


class RatingError(Invalid):
    pass


@dataclass(frozen=True)
class SubmitResult:
    status: str  # "saved" (first time), "revised" (changed scores) or "unchanged"
    assignment_id: int


def missing_scores(scores: Scores) -> list[str]:
    """Human-readable names of the scores still missing, e.g. 'Response A: Factuality ...'."""
    return [
        f"Response {side}: {DIMENSION_LABELS[dim]}"
        for side in SIDES
        for dim in DIMENSIONS
        if scores.get(side, {}).get(dim) is None
    ]


def _check_scores(scores: Scores, study: Study) -> None:
    missing = missing_scores(scores)
    if missing:
        raise RatingError(
            "Please give every score before submitting. Missing: " + "; ".join(missing)
        )
    for side in SIDES:
        for dim in DIMENSIONS:
            value = scores[side][dim]
            is_int = isinstance(value, int) and not isinstance(value, bool)
            if not is_int or not study.scale_min <= value <= study.scale_max:
                raise RatingError(
                    f"Response {side}, {dim}: {value!r} is not on the scale "
                    f"{study.scale_min}-{study.scale_max}"
                )


def _admit(
    check: Callable[[Session, Assignment], None], session: Session, item: Assignment
) -> None:
    """Overlap guard (annotate.domain.assignment): no late submit may overfill a pair."""
    try:
        check(session, item)
    except SlotTaken as error:
        raise RatingError(str(error)) from None


def owned_assignment(session: Session, annotator_id: int, assignment_id: int) -> Assignment:
    """The assignment, if it belongs to this annotator; nobody touches another's work."""
    assignment = session.get(Assignment, assignment_id)
    if assignment is None or assignment.annotator_id != annotator_id:
        raise PermissionError("this pair is not in your queue")
    return assignment


def submit_rating(
    engine: Engine,
    *,
    annotator_id: int,
    assignment_id: int,
    scores: Scores,
    seconds: float,
    comment: str | None = None,
    flag_reason: str | None = None,
) -> SubmitResult:
    """Save the 8 scores of one pair. Resubmitting the same scores changes nothing."""
    try:
        return _submit_once(
            engine, annotator_id, assignment_id, scores, seconds, comment, flag_reason
        )
    except IntegrityError:
        # A concurrent submit of the same pair won the insert race; ours becomes a revision.
        return _submit_once(
            engine, annotator_id, assignment_id, scores, seconds, comment, flag_reason
        )


def _submit_once(
    engine: Engine,
    annotator_id: int,
    assignment_id: int,
    scores: Scores,
    seconds: float,
    comment: str | None,
    flag_reason: str | None,
) -> SubmitResult:
    with write_session(engine) as session:
        assignment = owned_assignment(session, annotator_id, assignment_id)
        study = session.get(Study, assignment.study_id)
        assert study is not None
        _check_scores(scores, study)
        _admit(admit_submit, session, assignment)
        existing = {
            (r.response, r.dimension): r
            for r in session.exec(select(Rating).where(Rating.assignment_id == assignment.id))
        }
        now = utcnow()
        changed = 0
        for side in SIDES:
            response = response_on(side, assignment.chosen_side)
            for dim in DIMENSIONS:
                score = int(scores[side][dim])  # type: ignore[arg-type]
                rating = existing.get((response, dim))
                if rating is None:
                    session.add(
                        Rating(
                            assignment_id=assignment.id,
                            response=response,
                            dimension=dim,
                            score=score,
                            seconds=seconds,
                            created_at=now,
                            updated_at=now,
                        )
                    )
                elif rating.score != score:
                    session.add(
                        RatingRevision(
                            rating_id=rating.id,
                            revision=rating.revision,
                            score=rating.score,
                            seconds=rating.seconds,
                            created_at=rating.updated_at,
                            replaced_at=now,
                        )
                    )
                    rating.score, rating.seconds = score, seconds
                    rating.revision += 1
                    rating.updated_at = now
                    session.add(rating)
                    changed += 1
        assignment.status = "done"
        assignment.comment = comment or None
        assignment.flagged = bool(flag_reason)
        assignment.flag_reason = flag_reason or None
        assignment.skip_reason = None
        if assignment.completed_at is None:
            assignment.completed_at = now
        session.add(assignment)
        session.flush()
        status = "saved" if not existing else ("revised" if changed else "unchanged")
        return SubmitResult(status, assignment.id)  # type: ignore[arg-type]


def skip_pair(engine: Engine, *, annotator_id: int, assignment_id: int, reason: str) -> None:
    """Mark a pair skipped, with the annotator's reason. Scores already given are kept."""
    if not reason.strip():
        raise RatingError("Please say why you skip this pair.")
    with write_session(engine) as session:
        assignment = owned_assignment(session, annotator_id, assignment_id)
        _admit(admit_skip, session, assignment)
        if assignment.status == "done":
            raise RatingError("This pair is already rated; revise it instead of skipping.")
        assignment.status = "skipped"
        assignment.skip_reason = reason.strip()
        session.add(assignment)
