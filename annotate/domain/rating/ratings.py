"""Saving an annotator's scores for a pair: never duplicated, revisions kept; and skipping.

The page knows only sides (A, B); the response behind each side is looked up here, server-side.
These functions work in the caller's transaction (`annotate.services.participant.rating` opens it
and checks that the assignment is the caller's).
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
from annotate.domain.rating import aspects, preference, spans
from annotate.domain.rating.revisions import AnswerTable, save_answers
from annotate.domain.rating.signals import Signals, add_signals
from annotate.domain.study.questionnaire import questionnaire_of
from annotate.errors import Forbidden, Invalid
from annotate.questionnaire import Questionnaire
from annotate.vocabulary import SIDES, AssignmentStatus, Response

Scores = Mapping[str, Mapping[str, int | None]]
"""side ('A' or 'B') -> question key -> score (None when not given yet)."""


class RatingError(Invalid):
    pass


class NotYours(Forbidden):
    """The assignment is another annotator's (or does not exist)."""


@dataclass(frozen=True)
class SubmitResult:
    status: str  # "saved" (first time), "revised" (changed scores) or "unchanged"
    assignment_id: int
    repeated: bool = False  # a resend of an entry key already stored: nothing was written


def missing_scores(scores: Scores, questionnaire: Questionnaire) -> list[str]:
    """Human-readable names of the answers still missing, e.g. 'Response A: Factuality ...'."""
    return [
        f"Response {side}: {question.label}"
        for side in SIDES
        for question in questionnaire.questions
        if scores.get(side, {}).get(question.key) is None
    ]


def _check_scores(scores: Scores, questionnaire: Questionnaire) -> None:
    """Every question of the study's questionnaire answered on each side, each answer one of
    the question's values, nothing else."""
    missing = missing_scores(scores, questionnaire)
    if missing:
        raise RatingError(
            "Please give every score before submitting. Missing: " + "; ".join(missing)
        )
    for side in SIDES:
        unknown = sorted(set(scores[side]) - set(questionnaire.keys))
        if unknown:
            raise RatingError(
                f"Response {side}: {', '.join(map(repr, unknown))} is not a question of this "
                f"study (its questions: {', '.join(questionnaire.keys)})"
            )
        for question in questionnaire.questions:
            value = scores[side][question.key]
            if isinstance(value, bool) or value not in question.values:
                low, high = question.values[0], question.values[-1]
                what = "on the scale" if question.is_scale else "one of the choices"
                raise RatingError(
                    f"Response {side}, {question.key}: {value!r} is not {what} {low}-{high}"
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
    """Everything an annotator sends for one pair, by side: an answer to each question, the
    time spent, an optional comment or flag, (for a study that asks for them) the direct preference
    with its rationale and the aspect marks, and the quality signals the browser counted."""

    scores: Scores
    seconds: float
    comment: str | None = None
    flag_reason: str | None = None
    side_preference: int | None = None
    rationale: str | None = None
    aspect_marks: aspects.AspectMarks | None = None
    signals: Signals | None = None
    spans: spans.SideSpans | None = None  # None: not sent (the spans stay as they are)


def save_scores(session: Session, assignment: Assignment, sent: Submission) -> SubmitResult:
    """Save the answers of one pair (each question of the study's questionnaire, by side; and
    the direct preference and the aspect marks by side, when the study asks for them) and mark
    it done. The same answers again change
    nothing."""
    study = session.get(Study, assignment.study_id)
    pair = session.get(Pair, assignment.pair_id)
    assert study is not None
    assert pair is not None
    questionnaire = questionnaire_of(study)
    _check_scores(sent.scores, questionnaire)
    wrong = preference.problems(study, sent.side_preference, sent.rationale)
    wrong += aspects.problems(study, len(pair.rubric_aspects), sent.aspect_marks)
    texts = {s: _text_on(pair, s, assignment.chosen_side) for s in SIDES}
    wrong += spans.problems(questionnaire, texts, sent.spans or {})
    if wrong:
        raise RatingError("; ".join(wrong))
    _admit(admit_submit, session, assignment)
    now = utcnow()
    had_scores, changed = _save_score_rows(session, assignment, sent, questionnaire.keys, now)
    if study.ask_preference:
        changed += _save_preference(assignment, study, sent.side_preference, sent.rationale, now)
    if study.aspect_checklist and sent.aspect_marks is not None:
        changed += aspects.save_marks(session, assignment, sent.aspect_marks, now)[1]
    if sent.spans is not None and questionnaire.span_labels:
        changed += spans.save_spans(session, assignment, sent.spans, now)
    add_signals(assignment, sent.signals)
    _mark_done(session, assignment, sent.comment, sent.flag_reason, now)
    status = "saved" if not had_scores else ("revised" if changed else "unchanged")
    return SubmitResult(status, stored_id(assignment))


def _text_on(pair: Pair, side: str, chosen_side: str) -> str:
    """The stored text of the response shown on `side`."""
    return pair.chosen if response_on(side, chosen_side) == Response.CHOSEN else pair.rejected


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
    session: Session,
    assignment: Assignment,
    sent: Submission,
    keys: tuple[str, ...],
    now: datetime,
) -> tuple[bool, int]:
    """Store one score per question and response; return (any stored before, how many
    changed)."""
    given: dict[tuple[str, str], dict[str, Any]] = {}
    for side in SIDES:
        for dim in keys:
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
