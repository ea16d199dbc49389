"""Instructed-response checks in the rating flow, acted on in session (issue 34, point 6).

A study's checks (`annotate.domain.study.instructed_checks`) are shown to its crowd
participants (accounts with a platform id) between pairs: a check is due once the participant
has handled (rated or set aside) its `after` pairs and has not answered it. The answer is stored
once (`CheckAnswer`: study, annotator, check, answer, passed, time). After the first failure the
participant is warned; after the second (`FAILURES_TO_END`) their work in the study ends with
the status "failed checks" and no completion code: their open pair goes back to the pool and
the pool gives them nothing more. Gold pairs, speed and disagreement never end anyone's work;
only these checks do.

These functions work in the caller's transaction (`annotate.services.participant.checks` opens it).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func
from sqlmodel import Session, col, select

from annotate.db.tables import Annotator, Assignment, CheckAnswer, Study, stored_id, utcnow
from annotate.domain.assignment.crowd import has_finished
from annotate.domain.crowd import outcomes
from annotate.domain.study.instructed_checks import InstructedCheck, checks_of
from annotate.errors import Invalid
from annotate.vocabulary import AssignmentStatus, Purpose

FAILURES_TO_END = 2
WARNING = (
    "That was not the option the item asked for. Please read every item carefully: another "
    "such answer ends your work in this study without a completion code."
)
ENDED = (
    "Your work in this study has ended: two answers did not follow the items that said which "
    "option to pick (failed checks). No completion code is given."
)


class CheckRefused(Invalid):
    """An answer that cannot be taken (no such check, an option not offered)."""


@dataclass(frozen=True)
class DueCheck:
    """A check the participant must answer before their next pair."""

    study: str
    check: InstructedCheck


@dataclass(frozen=True)
class CheckResult:
    """What became of an answer: `passed`, the participant's failures so far in the study,
    and whether their work there has ended."""

    passed: bool
    failures: int
    ended: bool


def handled(session: Session, annotator_id: int, study_id: int) -> int:
    """The participant's ordinary pairs of the study rated or set aside."""
    return session.exec(
        select(func.count()).where(
            Assignment.annotator_id == annotator_id,
            Assignment.study_id == study_id,
            Assignment.purpose == Purpose.RATING,
            col(Assignment.status).in_((AssignmentStatus.DONE, AssignmentStatus.SKIPPED)),
        )
    ).one()


def _answered(session: Session, annotator_id: int, study_id: int) -> list[CheckAnswer]:
    return list(
        session.exec(
            select(CheckAnswer).where(
                CheckAnswer.annotator_id == annotator_id, CheckAnswer.study_id == study_id
            )
        ).all()
    )


def due_check(session: Session, annotator_id: int) -> DueCheck | None:
    """The check the crowd participant must answer before their next pair, if any (in the
    first of their studies that has one due). Nothing for the study's own annotators, nor after
    the participant's work in the study has ended."""
    person = session.get(Annotator, annotator_id)
    if person is None or person.external_id is None:
        return None
    mine = select(Assignment.study_id).where(Assignment.annotator_id == annotator_id)
    studies = session.exec(  # only the columns needed: a Study row carries large JSON
        select(Study.id, Study.name, Study.instructed_checks).where(col(Study.id).in_(mine))
    ).all()
    for found_id, name, listed in studies:  # each query only when the one before leaves a check
        if not listed or found_id is None:
            continue
        study_id = int(found_id)
        done = handled(session, annotator_id, study_id)
        reached = [check for check in checks_of(listed) if check.after <= done]
        if not reached:
            continue
        answered = {a.check_index for a in _answered(session, annotator_id, study_id)}
        left = [check for check in reached if check.index not in answered]
        if left and not has_finished(session, annotator_id, study_id):
            return DueCheck(name, left[0])
    return None


def answer_check(
    session: Session, annotator_id: int, study: Study, index: int, answer: str
) -> CheckResult:
    """Store the participant's answer to check `index` (once: a second answer to the same
    check changes nothing), and act on it: the second failure ends their work in the study."""
    checks = {c.index: c for c in checks_of(study.instructed_checks)}
    check = checks.get(index)
    if check is None:
        raise CheckRefused("This item is not part of the study.")
    given = answer.strip()
    if given not in check.options:
        raise CheckRefused("Please pick one of the options.")
    study_id = stored_id(study)
    earlier = next(
        (a for a in _answered(session, annotator_id, study_id) if a.check_index == index), None
    )
    if earlier is None:
        passed = given == check.expected
        session.add(
            CheckAnswer(
                study_id=study_id,
                annotator_id=annotator_id,
                check_index=index,
                answer=given,
                passed=passed,
                at=utcnow(),
            )
        )
        session.flush()
    else:  # a second click on the same item: the first answer stands
        passed = earlier.passed
    failures = failures_of(session, annotator_id, study_id)
    ended = failures >= FAILURES_TO_END
    if ended and not has_finished(session, annotator_id, study_id):
        end_after_failed_checks(session, annotator_id, study)
    return CheckResult(passed, failures, ended)


def end_after_failed_checks(session: Session, annotator_id: int, study: Study) -> None:
    """End the participant's work in the study with the status "failed checks" and no code
    (their open pair back to the pool, no further pair)."""
    annotator = session.get(Annotator, annotator_id)
    assert annotator is not None
    outcomes.settle(session, study, annotator, outcomes.FAILED_CHECKS, ENDED)


def failures_of(session: Session, annotator_id: int, study_id: int) -> int:
    return session.exec(
        select(func.count()).where(
            CheckAnswer.annotator_id == annotator_id,
            CheckAnswer.study_id == study_id,
            col(CheckAnswer.passed).is_(False),
        )
    ).one()


def failed_checks(session: Session, annotator_id: int, study_id: int) -> bool:
    """Whether the participant's work in the study ended after failed checks."""
    return failures_of(session, annotator_id, study_id) >= FAILURES_TO_END


def check_failures(session: Session, study_id: int) -> dict[int, int]:
    """Annotator id -> failed checks in the study, for everyone who answered one (the Monitor
    page's count; 0 for those who passed every check they answered)."""
    rows = session.exec(select(CheckAnswer).where(CheckAnswer.study_id == study_id)).all()
    counts: dict[int, int] = {}
    for row in rows:
        counts[row.annotator_id] = counts.get(row.annotator_id, 0) + (not row.passed)
    return counts
