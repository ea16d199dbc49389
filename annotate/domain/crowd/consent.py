"""Consent, a short survey and the crowd's way out (issue 14, items 4 and 5).

A study may set a consent text: a participant then accepts or declines it before the Start step
(`annotate.domain.crowd.enrolment.start` refuses until they accept). The decision is recorded once,
with its time, in `Participation`; declining ends the participation with the study's screen-out
code (`outcomes.settle`: screened out). A study may also define survey questions (choice or
free text), answered once after consent and joined to the ratings export as annotator
attributes. The done page sends people to the platform's completion URL (`completion_link`),
with the code of their stored outcome.

These functions work in the caller's transaction (`annotate.services.participant.consent` opens it).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from sqlmodel import Session, select

from annotate.db.tables import Annotator, Participation, Study, stored_id, utcnow
from annotate.domain.crowd import outcomes
from annotate.domain.study.questionnaire import questionnaire_of
from annotate.errors import Invalid
from annotate.vocabulary import Role

ACCEPTED = "accepted"
DECLINED = "declined"
MAX_ANSWER_CHARS = 500
CODE_PLACEHOLDER = "{code}"


class ConsentError(Invalid):
    """A consent or survey step that cannot be taken; the message is meant for the participant."""


def completion_link(study: Study, code: str) -> str | None:
    """Where the done page sends a participant with `code` (None: the study sets no URL)."""
    if not study.completion_url:
        return None
    if CODE_PLACEHOLDER in study.completion_url:
        return study.completion_url.replace(CODE_PLACEHOLDER, quote(code, safe=""))
    return study.completion_url


# ---------------------------------------------------------------- a participant's steps


def gets_platform_exit(account: Annotator | None, study: Study) -> bool:
    """Whether the done page gives `account` the study's completion code and the way back to
    the platform: only a crowd participant (an annotator made by a study link, not simulated)
    of a crowd study (one whose enrolment was ever opened). An adjudicator, a researcher or an
    annotator with a login link finishes without them (issue 34.5)."""
    crowd = (
        account is not None
        and account.role == Role.ANNOTATOR
        and bool(account.external_id)
        and not account.simulated
    )
    return crowd and study.enrolment_key is not None


def task_summary(study: Study) -> str:
    """What a pair asks of the participant, for the Start page (issue 22.8: it says what this
    study asks, not always "four questions")."""
    n = len(questionnaire_of(study).questions)
    asked = [f"score each answer on {n} question{'' if n == 1 else 's'}"]
    if study.aspect_checklist:
        asked.append("mark how well each answer covers each thing the asker expects")
    if study.ask_preference:
        why = {"required": ", with a reason", "optional": " (with a reason, if you like)"}
        asked.append("say which answer fits the asker better" + why.get(study.rationale, ""))
    listed = asked[0] if len(asked) == 1 else ", ".join(asked[:-1]) + " and " + asked[-1]
    return (
        "You will read a question, what its asker expects of an answer, and two answers; "
        f"then {listed}."
    )


def participation(session: Session, annotator_id: int, study_id: int) -> Participation | None:
    return session.exec(
        select(Participation).where(
            Participation.annotator_id == annotator_id, Participation.study_id == study_id
        )
    ).first()


def next_step(study: Study, found: Participation | None) -> str:
    """What the participant must do before the Start step: 'consent', 'survey', 'declined'
    (their participation has ended) or 'ready'. A study without consent text or survey is
    always 'ready'."""
    if found is not None and found.consent == DECLINED:
        return "declined"
    if study.consent_text.strip() and found is None:
        return "consent"
    if study.survey_questions and (found is None or found.survey_at is None):
        return "survey"
    return "ready"


def decide_consent(session: Session, annotator_id: int, study: Study, accept: bool) -> str:
    """Record the participant's decision with its time; return the next step. The first
    decision stands (a second click, or the other button after it, changes nothing)."""
    found = participation(session, annotator_id, stored_id(study))
    if found is None:
        found = Participation(
            annotator_id=annotator_id,
            study_id=stored_id(study),
            consent=ACCEPTED if accept else DECLINED,
            consent_at=utcnow(),
        )
        session.add(found)
        session.flush()
        if not accept:
            person = session.get_one(Annotator, annotator_id)
            outcomes.settle(session, study, person, outcomes.SCREENED_OUT, DECLINED_WORDS)
    return next_step(study, found)


DECLINED_WORDS = "You declined to take part in this study."


def save_survey(
    session: Session, annotator_id: int, study: Study, answers: dict[str, str | None]
) -> str:
    """Check and store the survey answers (once); return the next step."""
    found = participation(session, annotator_id, stored_id(study))
    step = next_step(study, found)
    if step in ("consent", "declined"):
        raise ConsentError("Please answer the consent question first.")
    if step == "ready":
        return step  # answered already (a second click)
    checked = check_answers(study.survey_questions, answers)
    if found is None:  # a study with a survey but no consent text
        found = Participation(
            annotator_id=annotator_id, study_id=stored_id(study), consent=ACCEPTED
        )
    found.survey, found.survey_at = checked, utcnow()
    session.add(found)
    session.flush()
    return next_step(study, found)


def check_answers(
    questions: list[dict[str, Any]], answers: dict[str, str | None]
) -> dict[str, str]:
    """The answers, trimmed; ConsentError naming every unanswered choice or wrong answer.
    A free-text answer may be left empty."""
    checked: dict[str, str] = {}
    problems = []
    for question in questions:
        answer = str(answers.get(question["id"]) or "").strip()
        if question["kind"] == "choice":
            if answer not in [str(o).strip() for o in question["options"]]:
                problems.append(f"please answer: {question['text']}")
                continue
        elif len(answer) > MAX_ANSWER_CHARS:
            problems.append(f"at most {MAX_ANSWER_CHARS} characters: {question['text']}")
            continue
        checked[question["id"]] = answer
    if problems:
        raise ConsentError("; ".join(problems))
    return checked


def require_ready(session: Session, annotator_id: int, study: Study) -> None:
    """Refuse the Start step until consent (and the survey) are done."""
    step = next_step(study, participation(session, annotator_id, stored_id(study)))
    if step == "declined":
        raise ConsentError(DECLINED_WORDS)
    if step != "ready":
        raise ConsentError("Please answer the consent question (and the survey) first.")


def survey_answers(session: Session, study_id: int) -> dict[int, dict[str, str]]:
    """Annotator id -> survey answers, for one study (the export's annotator attributes)."""
    rows = session.exec(select(Participation).where(Participation.study_id == study_id))
    return {row.annotator_id: dict(row.survey or {}) for row in rows}
