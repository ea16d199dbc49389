"""A crowd study as issue 24 found it: participants enrolled through the study link with
Prolific-style ids, a free-text survey answer that identifies a person, comments, rationales,
flags and skips. Shared by the participants' data tests (publishing, erasure, payments)."""

from __future__ import annotations

from dataclasses import dataclass, field

from annotate.db import read_session
from annotate.domain.study.studies import get_study
from annotate.services.participant.consent import answer_survey, decide
from annotate.services.participant.enrolment import enrol, start
from annotate.services.participant.rating import skip_pair, submit_rating
from annotate.services.participant.work import pull_for_annotator
from tests.helpers.admin_helpers import make_study, scores

STUDY = "crowd"
QUESTIONS = [
    {"id": "age", "text": "Your age band", "kind": "choice", "options": ["18-29", "30-49", "50+"]},
    {"id": "job", "text": "Your job", "kind": "text"},
]
COMPLETED = "C0MPL3TE"


@dataclass
class Person:
    """One participant: the platform's ids, their token and everything they typed."""

    pid: str
    session_id: str
    annotator_id: int = 0
    name: str = ""
    token: str = ""
    texts: list[str] = field(default_factory=list)
    n_scores: int = 0

    def secrets(self) -> list[str]:
        """What must never leave the database about this person."""
        return [self.pid, self.session_id, self.name, self.token, *self.texts]


def crowd_study(engine, pairs: int = 6, **settings) -> int:
    settings = {
        "overlap": 2,
        "survey_questions": QUESTIONS,
        "consent_text": "You will rate answers.",
        "ask_preference": True,
        "rationale": "optional",
        "completion_code": COMPLETED,
        "finish_minimum": 5,  # the five each participant rates (issue 34.1: the finish rule)
        **settings,
    }
    return make_study(engine, STUDY, pairs=pairs, pool_open=True, enrolment_open=True, **settings)


def study_key(engine) -> str:
    with read_session(engine) as session:
        key = get_study(session, STUDY).enrolment_key
    assert key
    return key


def take_part(engine, person: Person, n: int, tag: str, pace: float = 12.5) -> Person:
    """Enrol `person` through the link, consent, answer the survey (a free-text job naming
    them), rate `n` pairs with a comment, a rationale and a flag on the first, skip one more."""
    link = {"study": STUDY, "key": study_key(engine)}
    visit = enrol(engine, participant_id=person.pid, session_id=person.session_id, **link)
    person.annotator_id, person.name, person.token = visit.annotator_id, visit.name, visit.token
    job = f"Jane Roe {tag}, ICU nurse at St Mary's Leeds, jane.{tag}@example.org"
    comment, rationale, flag = f"comment-{tag}-x9", f"rationale-{tag}-x9", f"flagged-{tag}-x9"
    skip = f"skipped-{tag}-x9"
    person.texts = [job, comment, rationale, flag, skip]
    decide(engine, person.annotator_id, accept=True, **link)
    answer_survey(engine, person.annotator_id, answers={"age": "30-49", "job": job}, **link)
    assignment = start(engine, person.annotator_id, **link)
    for i in range(n):
        assert assignment is not None
        first = i == 0
        submit_rating(
            engine,
            annotator_id=person.annotator_id,
            assignment_id=assignment,
            scores=scores(3, rubric_alignment=2 + (i % 3)),
            seconds=pace + i,
            comment=comment if first else None,
            flag_reason=flag if first else None,
            side_preference=1,
            rationale=rationale if first else None,
        )
        person.n_scores += 8
        assignment = pull_for_annotator(engine, person.annotator_id)
    if assignment is not None:
        skip_pair(engine, annotator_id=person.annotator_id, assignment_id=assignment, reason=skip)
        pull_for_annotator(engine, person.annotator_id)  # the page: the pool gives no more
    return person


def two_participants(engine, pairs: int = 6) -> tuple[Person, Person]:
    crowd_study(engine, pairs=pairs)
    one = take_part(engine, Person("5f8e2b1c9d3a4e0012345678", "6a7b8c9d0e1f2a3b4c5d6e7f"), 5, "a")
    two = take_part(engine, Person("60aa11bb22cc33dd44ee55ff", "7b8c9d0e1f2a3b4c5d6e7f80"), 5, "b")
    return one, two
