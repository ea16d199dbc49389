"""Training before real work (issue 14, item 3): practice pairs with feedback, then a
comprehension check; only those who pass enter the study's real queue.

The steps, for one annotator in one study (`step`):

    practice (each practice pair once, feedback after each)
        -> check (the comprehension questions, at most `comprehension_attempts` attempts)
        -> passed (the real queue) | failed (screened out: a polite end, the screen-out code)

A study without practice pairs skips the practice; one without questions passes after the
practice; one with neither needs no training (every annotator counts as passed, as before this
option existed). What an annotator answered is kept in `Training` (one row per annotator and
study, with each practice answer and each attempt at the check, with their times).

Nothing here reveals an answer before the attempt: `PracticeView` and `QuestionView` carry no
expected score and no correct option; the feedback is built only from a stored attempt. The
practice pairs are not benchmark pairs: they are given as A and B, so nothing maps to chosen
or rejected. These functions work in the caller's transaction
(`annotate.services.participant.training`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

from annotate.db.tables import Annotator, Assignment, Study, Training, stored_id, utcnow
from annotate.domain.crowd.outcomes import SCREENED_OUT, settle
from annotate.domain.rating import aspects, preference
from annotate.domain.rating.ratings import RatingError, missing_scores
from annotate.domain.study.questionnaire import questionnaire_of
from annotate.domain.study.training_rules import (
    CHECK,
    ENDED,
    FAILED,
    PASSED,
    PRACTICE,
    ComprehensionQuestion,
    PracticePair,
)
from annotate.errors import Invalid
from annotate.vocabulary import SIDES, AssignmentStatus, Role


class TrainingError(Invalid):
    """A training answer that cannot be taken; the message is meant for the annotator."""


@dataclass(frozen=True)
class PracticeView:
    """A practice pair as the annotator sees it before answering: no expected score."""

    id: str
    number: int
    total: int
    question: str
    category: str
    narrative: str
    profile: list[dict[str, Any]]
    rubric_aspects: list[dict[str, Any]]
    responses: dict[str, str]  # 'A' / 'B' -> text


@dataclass(frozen=True)
class FeedbackLine:
    """One expected answer: a score (`dimension`, side), an aspect mark (`dimension` =
    'aspect 1', side) or the preference (`dimension` = 'preference', side '')."""

    dimension: str
    side: str
    yours: int
    expected: int

    @property
    def matches(self) -> bool:
        return self.yours == self.expected


@dataclass(frozen=True)
class PracticeFeedback:
    """After an attempt: per expected score, the annotator's and the study's, and why."""

    practice_id: str
    number: int
    lines: list[FeedbackLine]
    explanations: dict[str, str]  # dimension -> text


@dataclass(frozen=True)
class QuestionView:
    """A comprehension question without its answer; `multiple`: choose all that apply."""

    id: str
    text: str
    options: list[str]
    multiple: bool


@dataclass(frozen=True)
class CheckResult:
    status: str  # 'passed', 'failed' or 'check' (another attempt is allowed)
    wrong: list[int] = field(default_factory=list)  # numbers (1-based) of the wrong questions
    attempts_left: int = 0


# ---------------------------------------------------------------- the study's definitions


def needs_training(study: Study) -> bool:
    return bool(study.practice_pairs or study.comprehension_questions)


def practice_pairs(study: Study) -> list[PracticePair]:
    return [PracticePair.model_validate(p) for p in study.practice_pairs]


def questions(study: Study) -> list[ComprehensionQuestion]:
    return [ComprehensionQuestion.model_validate(q) for q in study.comprehension_questions]


def question_views(study: Study) -> list[QuestionView]:
    return [
        QuestionView(q.id, q.text, list(q.options), len(q.correct) > 1) for q in questions(study)
    ]


# ---------------------------------------------------------------- an annotator's state


def training_of(session: Session, annotator_id: int, study_id: int) -> Training | None:
    return session.exec(
        select(Training).where(Training.annotator_id == annotator_id, Training.study_id == study_id)
    ).first()


def step(study: Study, found: Training | None) -> str:
    """Where the annotator stands: practice, check, passed or failed."""
    if not needs_training(study):
        return PASSED
    if found is not None and found.status in ENDED:
        return found.status
    answered = found.practice if found is not None else {}
    if any(p["id"] not in answered for p in study.practice_pairs):
        return PRACTICE
    return CHECK if study.comprehension_questions else PASSED


def next_practice(study: Study, found: Training | None) -> PracticeView | None:
    """The first practice pair not answered yet (None: the practice is over)."""
    answered = found.practice if found is not None else {}
    pairs = practice_pairs(study)
    for number, pair in enumerate(pairs, 1):
        if pair.id not in answered:
            return PracticeView(
                id=pair.id,
                number=number,
                total=len(pairs),
                question=pair.question,
                category=pair.category,
                narrative=pair.narrative,
                profile=[p.model_dump() for p in pair.profile],
                rubric_aspects=[a.model_dump() for a in pair.rubric_aspects],
                responses={"A": pair.response_a, "B": pair.response_b},
            )
    return None


def attempts_left(study: Study, found: Training | None) -> int:
    used = len(found.attempts) if found is not None else 0
    return max(study.comprehension_attempts - used, 0)


def _row(session: Session, annotator_id: int, study: Study) -> Training:
    found = training_of(session, annotator_id, stored_id(study))
    if found is None:
        found = Training(annotator_id=annotator_id, study_id=stored_id(study))
    return found


def _save(session: Session, study: Study, found: Training, outcome: str | None = None) -> None:
    """Store the row with its step (or the check's `outcome`), timing the end of training."""
    now = outcome or step(study, found)
    if now in ENDED and found.ended_at is None:
        found.ended_at = utcnow()
    found.status = now
    session.add(found)
    session.flush()


# ---------------------------------------------------------------- the practice


def answer_practice(
    session: Session,
    annotator_id: int,
    study: Study,
    practice_id: str,
    scores: dict[str, dict[str, int | None]],
    aspect_marks: dict[str, list[int | None]] | None = None,
    side_preference: int | None = None,
    rationale: str | None = None,
) -> PracticeFeedback:
    """Record the annotator's answers to a practice pair (the scores, and the aspect marks and
    the preference when the study asks for them, as on the rating page); return the feedback.
    The first answer stands (a second click gets the same feedback)."""
    pairs = {p.id: (number, p) for number, p in enumerate(practice_pairs(study), 1)}
    if practice_id not in pairs:
        raise TrainingError("This practice pair is no longer part of the study.")
    found = _row(session, annotator_id, study)
    if practice_id not in found.practice:
        if step(study, found) != PRACTICE:
            raise TrainingError("The practice is over.")
        checked = _checked_scores(study, scores)
        n_aspects = len(pairs[practice_id][1].rubric_aspects)
        more = _checked_answers(study, n_aspects, aspect_marks, (side_preference, rationale))
        stored = {"scores": checked, **more, "at": utcnow().isoformat()}
        found.practice = {**found.practice, practice_id: stored}
        _save(session, study, found)
    number, pair = pairs[practice_id]
    return feedback(pair, number, found.practice[practice_id])


def _checked_scores(
    study: Study, scores: dict[str, dict[str, int | None]]
) -> dict[str, dict[str, int]]:
    """Every question of the study's questionnaire answered on each side, on its scale."""
    questionnaire = questionnaire_of(study)
    missing = missing_scores(scores, questionnaire)
    if missing:
        raise TrainingError("Please give every score. Missing: " + "; ".join(missing))
    keys = questionnaire.keys
    checked = {side: {dim: int(scores[side][dim] or 0) for dim in keys} for side in SIDES}
    for question in questionnaire.questions:
        values = question.values
        if any(checked[side][question.key] not in values for side in SIDES):
            raise TrainingError(f"{question.label}: answers go from {values[0]} to {values[-1]}.")
    return checked


def _checked_answers(
    study: Study,
    n_aspects: int,
    marks: dict[str, list[int | None]] | None,
    said: tuple[int | None, str | None],
) -> dict[str, Any]:
    """The aspect marks and the preference of a practice answer, when the study asks for them
    (the same checks as a real pair's)."""
    wrong = aspects.problems(study, n_aspects, marks) if n_aspects else []
    side_preference, rationale = said
    wrong += preference.problems(study, side_preference, rationale)
    if wrong:
        raise TrainingError("; ".join(wrong))
    answers: dict[str, Any] = {}
    if study.aspect_checklist and n_aspects and marks is not None:
        answers["aspects"] = {side: [int(m or 0) for m in marks[side]] for side in SIDES}
    if study.ask_preference:
        answers["preference"] = side_preference
        answers["rationale"] = (rationale or "").strip()
    return answers


def feedback(pair: PracticePair, number: int, answer: dict[str, Any]) -> PracticeFeedback:
    """Each expected answer next to the annotator's: the scores, then (when the practice pair
    gives them and the annotator answered them) the aspect marks and the preference."""
    scores = answer["scores"]
    lines = [
        FeedbackLine(dim, side, scores[side][dim], pair.expected[dim][side])
        for dim in scores[SIDES[0]]  # the questionnaire's order, as answered
        if dim in pair.expected
        for side in SIDES
    ]
    marks = answer.get("aspects")
    if marks and pair.expected_aspects:
        lines += [
            FeedbackLine(f"aspect {i + 1}", side, marks[side][i], pair.expected_aspects[side][i])
            for i in range(len(pair.rubric_aspects))
            for side in SIDES
        ]
    if answer.get("preference") is not None and pair.expected_preference is not None:
        lines.append(FeedbackLine("preference", "", answer["preference"], pair.expected_preference))
    return PracticeFeedback(pair.id, number, lines, dict(pair.explanations))


# ---------------------------------------------------------------- the comprehension check

FAILED_TRAINING = "You did not pass the comprehension check of the training."


def answer_check(
    session: Session, annotator_id: int, study: Study, answers: dict[str, list[int]]
) -> CheckResult:
    """Grade one attempt at the comprehension check: every question right passes; otherwise
    an attempt is used, and the last one used ends the training (failed). An unanswered
    question uses no attempt."""
    found = _row(session, annotator_id, study)
    now = step(study, found)
    if now in ENDED:
        return CheckResult(now, attempts_left=attempts_left(study, found))
    if now != CHECK:
        raise TrainingError("Please finish the practice pairs first.")
    asked = questions(study)
    unanswered = [n for n, q in enumerate(asked, 1) if not answers.get(q.id)]
    if unanswered:
        raise TrainingError(
            "Please answer every question (" + ", ".join(f"question {n}" for n in unanswered) + ")."
        )
    wrong = [n for n, q in enumerate(asked, 1) if sorted(set(answers[q.id])) != sorted(q.correct)]
    given = {q.id: sorted(set(answers[q.id])) for q in asked}
    found.attempts = [*found.attempts, {"answers": given, "wrong": wrong, "at": _iso()}]
    outcome = PASSED if not wrong else FAILED if attempts_left(study, found) == 0 else CHECK
    _save(session, study, found, outcome)
    if outcome == FAILED:
        person = session.get_one(Annotator, annotator_id)
        settle(session, study, person, SCREENED_OUT, FAILED_TRAINING)
    return CheckResult(found.status, wrong, attempts_left(study, found))


def _iso() -> str:
    return utcnow().isoformat()


# ---------------------------------------------------------------- the gate


def require_passed(session: Session, annotator_id: int, study: Study) -> None:
    """Refuse real work in `study` until the annotator has passed its training."""
    now = step(study, training_of(session, annotator_id, stored_id(study)))
    if now == FAILED:
        raise TrainingError("Your participation in this study has ended; thank you.")
    if now != PASSED:
        raise TrainingError("Please complete the training first.")


@dataclass(frozen=True)
class Outcome:
    """One annotator's training in a study, for the admin."""

    annotator: str
    status: str
    practised: int  # practice pairs answered
    attempts: int  # attempts at the comprehension check
    ended_at: datetime | None


def outcomes(session: Session, study: Study) -> list[Outcome]:
    """Everyone who has started the study's training, by name: where they stand."""
    rows = session.exec(
        select(Annotator.name, Training)
        .join(Training, col(Training.annotator_id) == col(Annotator.id))
        .where(Training.study_id == stored_id(study))
        .order_by(col(Annotator.name))
    ).all()
    return [
        Outcome(name, step(study, row), len(row.practice), len(row.attempts), row.ended_at)
        for name, row in rows
    ]


def require_trained(session: Session, annotator_id: int, study_id: int) -> None:
    """`require_passed` for a submit in the study `study_id` (a page left open on a pair, or
    a crafted request, saves nothing before the training is passed); RatingError."""
    study = session.get(Study, study_id)
    if study is None or not needs_training(study) or _adjudicator(session, annotator_id):
        return
    try:
        require_passed(session, annotator_id, study)
    except TrainingError as error:
        raise RatingError(f"Not saved: {error}") from None


def _adjudicator(session: Session, annotator_id: int) -> bool:
    account = session.get(Annotator, annotator_id)
    return account is not None and account.role == Role.ADJUDICATOR


def studies_in_training(session: Session, annotator_id: int) -> list[Study]:
    """The studies the annotator has work in (in queue order), or failed the training of,
    whose training they have not passed: the rating page sends them to it before the real
    queue."""
    query = (
        select(Assignment.study_id)
        .where(
            Assignment.annotator_id == annotator_id,
            col(Assignment.status) != AssignmentStatus.RELEASED,
        )
        .distinct()
        .order_by(col(Assignment.study_id))
    )  # (ids: PostgreSQL cannot compare the study rows' JSON columns for DISTINCT)
    if _adjudicator(session, annotator_id):
        return []  # an adjudicator is an expert who gets only adjudication work: no training
    ids = set(session.exec(query).all())
    ids |= set(  # a failed training's pairs went back to the pool; its end page stays
        session.exec(
            select(Training.study_id).where(
                Training.annotator_id == annotator_id, Training.status == FAILED
            )
        ).all()
    )
    found = [session.get(Study, study_id) for study_id in sorted(ids)]
    return [
        study
        for study in found
        if study is not None
        and needs_training(study)
        and step(study, training_of(session, annotator_id, stored_id(study))) != PASSED
    ]
