"""Crowd enrolment from a study link (`annotate.domain.enrolment` has the rules): one write
transaction finds or creates the participant's account and gives them a pair from the open pool."""

from __future__ import annotations

from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

from annotate.db import write_session
from annotate.domain import enrolment
from annotate.domain.assignment import pool
from annotate.domain.enrolment import Enrolment


def enrol(
    engine: Engine, *, study: str, key: str, participant_id: str, session_id: str
) -> Enrolment:
    """Create or find the participant's account, give it a fresh token and a pair to rate."""
    participant_id, session_id = enrolment.check_platform_ids(participant_id, session_id)
    try:
        return _enrol(engine, study, key, participant_id, session_id)
    except IntegrityError:
        # The same person enrolled twice at once (a double click): the other request won.
        return _enrol(engine, study, key, participant_id, session_id)


def _enrol(engine: Engine, study: str, key: str, participant_id: str, session_id: str) -> Enrolment:
    with write_session(engine) as session:
        found = enrolment.account_for(
            session, study=study, key=key, participant_id=participant_id, session_id=session_id
        )
        assignment_id = pool.pull_next(session, found.annotator_id, found.study_id)
    return Enrolment(found.annotator_id, found.name, found.token, found.created, assignment_id)
