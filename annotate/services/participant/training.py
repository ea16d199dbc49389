"""An annotator's training in a study, one transaction each (`annotate.domain.crowd.training` has
the rules). The caller acts on their own training only: the account is the logged-in one, and with
the page's login `token` every answer is refused unless it is still that active account's.
`training_outcomes` is the admin's view of everyone's (role checked)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from annotate.db import read_session, write_session
from annotate.db.tables import Study, stored_id
from annotate.domain.crowd import training
from annotate.domain.crowd.consent import completion_link
from annotate.domain.crowd.outcomes import outcome_of
from annotate.domain.crowd.training import (
    CheckResult,
    Outcome,
    PracticeFeedback,
    PracticeView,
    QuestionView,
)
from annotate.domain.rating.queue import next_open, queue
from annotate.domain.study import accounts, training_rules
from annotate.domain.study.permissions import Actor, require_admin
from annotate.domain.study.questionnaire import questionnaire_of
from annotate.domain.study.studies import get_study
from annotate.questionnaire import DEFAULT_QUESTIONNAIRE, Questionnaire

T = TypeVar("T")


@dataclass(frozen=True)
class TrainingStep:
    """What the training page needs to draw the annotator's step in one study."""

    study: str
    step: str  # practice, check, passed or failed
    practice: PracticeView | None = None
    questions: list[QuestionView] = field(default_factory=list)
    attempts_left: int = 0
    attempts: int = 0
    questionnaire: Questionnaire = DEFAULT_QUESTIONNAIRE
    guidelines: str = ""
    aspect_checklist: bool = False  # the study's design options: the practice asks them too
    ask_preference: bool = False
    rationale: str = "off"
    screenout_code: str | None = None
    screenout_link: str | None = None


def training_step(engine: Engine, actor_id: int, study: str) -> TrainingStep:
    with read_session(engine) as session:
        return _step(session, actor_id, get_study(session, study))


def pending_training(engine: Engine, actor_id: int) -> TrainingStep | None:
    """For the rating page: the first study of the actor's work whose training is not passed
    (one still in practice or check before one failed; a failed one once no other study has
    an open pair for them), or None: on to the real queue."""
    with read_session(engine) as session:
        steps = [
            _step(session, actor_id, s) for s in training.studies_in_training(session, actor_id)
        ]
        ongoing = [s for s in steps if s.step != training_rules.FAILED]
        if ongoing:
            return ongoing[0]
        other_work = next_open(queue(session, actor_id)) is not None  # (failed studies left out)
    return steps[0] if steps and not other_work else None


def _step(session: Session, actor_id: int, study: Study) -> TrainingStep:
    found = training.training_of(session, actor_id, stored_id(study))
    now = training.step(study, found)
    ended = outcome_of(session, stored_id(study), actor_id)  # what the participant was shown
    code = ended.code if ended is not None else study.screenout_code
    return TrainingStep(
        study=study.name,
        step=now,
        practice=training.next_practice(study, found) if now == training_rules.PRACTICE else None,
        questions=training.question_views(study) if now == training_rules.CHECK else [],
        attempts_left=training.attempts_left(study, found),
        attempts=study.comprehension_attempts,
        questionnaire=questionnaire_of(study),
        guidelines=study.guidelines,
        aspect_checklist=study.aspect_checklist,
        ask_preference=study.ask_preference,
        rationale=study.rationale,
        screenout_code=code,
        screenout_link=completion_link(study, code) if code else None,
    )


def answer_practice(
    engine: Engine,
    actor_id: int,
    *,
    study: str,
    practice_id: str,
    scores: dict[str, dict[str, int | None]],
    token: str | None = None,
    aspect_marks: dict[str, list[int | None]] | None = None,
    side_preference: int | None = None,
    rationale: str | None = None,
) -> PracticeFeedback:
    """Record the actor's answers to a practice pair (the scores; the aspect marks and the
    preference with its rationale when the study asks for them); return the feedback
    (TrainingError when an answer is missing or the practice is over)."""

    def once() -> PracticeFeedback:
        with write_session(engine) as session:
            _check_login(session, token, actor_id)
            target = get_study(session, study)
            return training.answer_practice(
                session,
                actor_id,
                target,
                practice_id,
                scores,
                aspect_marks=aspect_marks,
                side_preference=side_preference,
                rationale=rationale,
            )

    return _retried(once)


def answer_check(
    engine: Engine,
    actor_id: int,
    *,
    study: str,
    answers: dict[str, list[int]],
    token: str | None = None,
) -> CheckResult:
    """Grade one attempt at the comprehension check (TrainingError for unanswered questions,
    which uses no attempt)."""

    def once() -> CheckResult:
        with write_session(engine) as session:
            _check_login(session, token, actor_id)
            target = get_study(session, study)
            return training.answer_check(session, actor_id, target, answers)

    return _retried(once)


def _check_login(session: Session, token: str | None, actor_id: int) -> None:
    if token is not None:
        accounts.require_current_login(session, token, actor_id)


def _retried(action: Callable[[], T]) -> T:
    """Two first answers at once (a double click) race to create the training row: the loser
    runs again and finds it."""
    try:
        return action()
    except IntegrityError:
        return action()


def training_outcomes(engine: Engine, actor: Actor, study: str) -> list[Outcome]:
    """Where everyone who started the study's training stands (admin)."""
    with read_session(engine) as session:
        require_admin(session, actor)
        return training.outcomes(session, get_study(session, study))
