"""Saving an annotator's scores for a pair: never duplicated, revisions kept; and skipping.

The page knows only sides (A, B); the response behind each side is looked up here, server-side.
These functions work in the caller's transaction (`annotate.services.rating` opens it and checks
that the assignment is the caller's).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlmodel import Session

from annotate.db.tables import (
    Assignment,
    Pair,
    Rating,
    RatingRevision,
    Study,
    stored_id,
    utcnow,
)
from annotate.domain.assignment import SlotTaken, admit_skip, admit_submit, release
from annotate.domain.assignment.blinding import response_on
from annotate.domain.rating import aspects, preference
from annotate.domain.rating.revisions import AnswerTable, save_answers
from annotate.domain.rating.signals import Signals, add_signals
from annotate.errors import Forbidden, Invalid
from annotate.vocabulary import DIMENSION_LABELS, DIMENSIONS, SIDES, AssignmentStatus

Scores = Mapping[str, Mapping[str, int | None]]
"""side ('A' or 'B') -> dimension -> score (None when not given yet)."""


class RatingError(Invalid):
    pass


class NotYours(Forbidden):
    """The assignment is another annotator's (or does not exist)."""


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
            on_scale = (
                isinstance(value, int)
                and not isinstance(value, bool)
                and study.scale_min <= value <= study.scale_max
            )
            if not on_scale:
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
        raise NotYours("this pair is not in your queue")
    return assignment


@dataclass(frozen=True)
class Submission:
    """Everything an annotator sends for one pair, by side: the 8 scores, the time spent,
    an optional comment or flag, (for a study that asks for them) the direct preference
    with its rationale and the aspect marks, and the quality signals the browser counted."""

    scores: Scores
    seconds: float
    comment: str | None = None
    flag_reason: str | None = None
    side_preference: int | None = None
    rationale: str | None = None
    aspect_marks: aspects.AspectMarks | None = None
    signals: Signals | None = None


def save_scores(session: Session, assignment: Assignment, sent: Submission) -> SubmitResult:
    """Save the 8 scores of one pair (and the direct preference by side, and the aspect marks
    by side, when the study asks for them) and mark it done. The same answers again change
    nothing."""
    study = session.get(Study, assignment.study_id)
    pair = session.get(Pair, assignment.pair_id)
    assert study is not None
    assert pair is not None
    _check_scores(sent.scores, study)
    wrong = preference.problems(study, sent.side_preference, sent.rationale)
    wrong += aspects.problems(study, len(pair.rubric_aspects), sent.aspect_marks)
    if wrong:
        raise RatingError("; ".join(wrong))
    _admit(admit_submit, session, assignment)
    now = utcnow()
    had_scores, changed = _save_score_rows(session, assignment, sent, now)
    if study.ask_preference:
        changed += _save_preference(assignment, study, sent.side_preference, sent.rationale, now)
    if study.aspect_checklist and sent.aspect_marks is not None:
        changed += aspects.save_marks(session, assignment, sent.aspect_marks, now)[1]
    add_signals(assignment, sent.signals)
    _mark_done(session, assignment, sent.comment, sent.flag_reason, now)
    status = "saved" if not had_scores else ("revised" if changed else "unchanged")
    return SubmitResult(status, stored_id(assignment))


def _save_preference(
    assignment: Assignment,
    study: Study,
    side_preference: int | None,
    rationale: str | None,
    now: datetime,
) -> bool:
    """Store the direct preference; a changed answer keeps the earlier one in the assignment's
    history. True when it changed."""
    kept = (rationale or "").strip() or None if study.rationale != "off" else None
    before = (assignment.side_preference, assignment.rationale)
    if before == (side_preference, kept):
        return False
    if assignment.side_preference is not None:  # a revision, not the first answer
        earlier = {"side_preference": before[0], "rationale": before[1]}
        assignment.preference_history = [
            *assignment.preference_history,
            {**earlier, "replaced_at": now.isoformat()},
        ]  # a new list: the JSON column sees the change
    assignment.side_preference, assignment.rationale = side_preference, kept
    return True


SCORES = AnswerTable(
    row=Rating,
    key=("response", "dimension"),
    compared="score",
    revision=RatingRevision,
    revision_of="rating_id",
    kept=("score", "seconds"),
)


def _save_score_rows(
    session: Session, assignment: Assignment, sent: Submission, now: datetime
) -> tuple[bool, int]:
    """Store the 8 scores by response; return (any stored before, how many changed)."""
    given: dict[tuple[str, str], dict[str, Any]] = {}
    for side in SIDES:
        for dim in DIMENSIONS:
            score = sent.scores[side][dim]
            assert score is not None  # _check_scores refused a missing score
            key = (response_on(side, assignment.chosen_side), dim)
            given[key] = {"score": int(score), "seconds": sent.seconds}
    return save_answers(session, SCORES, stored_id(assignment), given, now)


def _mark_done(
    session: Session,
    assignment: Assignment,
    comment: str | None,
    flag_reason: str | None,
    now: datetime,
) -> None:
    assignment.status = AssignmentStatus.DONE
    assignment.comment = comment or None
    assignment.flagged = bool(flag_reason)
    assignment.flag_reason = flag_reason or None
    assignment.skip_reason = None
    assignment.released_at = assignment.release_reason = None  # rated: it holds its slot again
    if assignment.completed_at is None:
        assignment.completed_at = now
    session.add(assignment)
    session.flush()


def check_skip_reason(reason: str, *, flag: bool = False) -> None:
    if not reason.strip():
        raise RatingError(
            "Please describe the problem." if flag else "Please say why you skip this pair."
        )


def skip(session: Session, assignment: Assignment, reason: str, *, flag: bool = False) -> None:
    """Mark a pair skipped, with the annotator's reason. Scores already given are kept.

    With `flag`, the reason is a flag (a broken or offensive pair) sent without scores (issue
    22.7): the pair is set aside exactly as a skip sets it aside and enters the Flags queue as
    a flag. Either way its slot goes back to the pool at once (issue 34.2,
    `assignment.release`), never to this annotator again; rating it later is a late submit,
    saved while the pair still has a free slot.
    """
    check_skip_reason(reason, flag=flag)
    _admit(admit_skip, session, assignment)
    if assignment.status == AssignmentStatus.DONE:
        raise RatingError("This pair is already rated; revise it instead of skipping.")
    assignment.status = AssignmentStatus.SKIPPED
    assignment.flagged = flag
    assignment.flag_reason = reason.strip() if flag else None
    assignment.skip_reason = None if flag else reason.strip()
    session.add(assignment)
    why = release.FLAGGED if flag else release.SKIPPED
    release.release_item(session, assignment, why, utcnow())
    session.flush()
