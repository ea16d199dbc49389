"""A crowd participant's consent and survey, before the Start step (one transaction each;
`annotate.domain.crowd.consent` has the rules). The study link's key is checked as at enrolment, and
the caller is the logged-in participant: nobody answers for someone else."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.engine import Engine

from annotate.db import read_session, write_session
from annotate.db.tables import Study, stored_id
from annotate.domain.crowd import consent
from annotate.domain.crowd.enrolment import open_study


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
        return _step(target, consent.next_step(target, found))


def decide(engine: Engine, actor_id: int, *, study: str, key: str, accept: bool) -> Step:
    """Record the participant's consent decision (the first one stands)."""
    with write_session(engine) as session:
        target = open_study(session, study, key)
        return _step(target, consent.decide_consent(session, actor_id, target, accept))


def answer_survey(
    engine: Engine, actor_id: int, *, study: str, key: str, answers: dict[str, str | None]
) -> Step:
    """Store the survey answers (ConsentError naming what is missing)."""
    with write_session(engine) as session:
        target = open_study(session, study, key)
        return _step(target, consent.save_survey(session, actor_id, target, answers))


def _step(study: Study, step: str) -> Step:
    code = study.screenout_code
    return Step(
        step=step,
        consent_text=study.consent_text,
        questions=list(study.survey_questions),
        screenout_code=code,
        screenout_link=consent.completion_link(study, code) if code else None,
        task=consent.task_summary(study),
    )
