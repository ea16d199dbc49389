"""A crowd participant's consent and survey, before the Start step (one transaction each;
`annotate.domain.crowd.consent` has the rules). The study link's key is checked as at enrolment, and
the caller is the logged-in participant: nobody answers for someone else."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session

from annotate.db import read_session, write_session
from annotate.db.tables import Study, stored_id
from annotate.domain.crowd import consent
from annotate.domain.crowd.enrolment import open_study
from annotate.domain.crowd.outcomes import outcome_of


@dataclass(frozen=True)
class Step:
    """Where a participant stands before Start, with what the page needs to draw it."""

    step: str  # 'consent', 'survey', 'declined' or 'ready'
    consent_text: str = ""
    questions: list[dict[str, Any]] = field(default_factory=list)
    screenout_code: str | None = None
    screenout_link: str | None = None
    task: str = ""  # what a pair asks (the Start page says it)


def participant_step(engine: Engine, actor_id: int, *, study: str, key: str) -> Step:
    with read_session(engine) as session:
        target = open_study(session, study, key)
        found = consent.participation(session, actor_id, stored_id(target))
        return _step(target, consent.next_step(target, found), _code(session, target, actor_id))


def decide(engine: Engine, actor_id: int, *, study: str, key: str, accept: bool) -> Step:
    """Record the participant's consent decision (the first one stands)."""
    with write_session(engine) as session:
        target = open_study(session, study, key)
        step = consent.decide_consent(session, actor_id, target, accept)
        return _step(target, step, _code(session, target, actor_id))


def answer_survey(
    engine: Engine, actor_id: int, *, study: str, key: str, answers: dict[str, str | None]
) -> Step:
    """Store the survey answers (ConsentError naming what is missing)."""
    with write_session(engine) as session:
        target = open_study(session, study, key)
        step = consent.save_survey(session, actor_id, target, answers)
        return _step(target, step, _code(session, target, actor_id))


def _code(session: Session, study: Study, actor_id: int) -> str | None:
    """The screen-out code a participant who ended is shown: their stored outcome's (issue
    34.1), else the study's."""
    ended = outcome_of(session, stored_id(study), actor_id)
    return ended.code if ended is not None else study.screenout_code


def _step(study: Study, step: str, code: str | None) -> Step:
    return Step(
        step=step,
        consent_text=study.consent_text,
        questions=list(study.survey_questions),
        screenout_code=code,
        screenout_link=consent.completion_link(study, code) if code else None,
        task=consent.task_summary(study),
    )
