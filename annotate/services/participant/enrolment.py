"""Crowd enrolment from a study link (`annotate.domain.crowd.enrolment` has the rules), one
transaction each: `enrol` finds or creates the participant's account (it reserves a pair only for a
participant who has already started), `start` is the participant's deliberate Start that
reserves their first pair within the study link's limits."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

from annotate.db import read_session, write_session
from annotate.db.tables import Annotator
from annotate.domain.assignment import pool
from annotate.domain.crowd import enrolment, finish
from annotate.domain.crowd.enrolment import Enrolment, Visit
from annotate.domain.crowd.finish import FinishOffer
from annotate.domain.study import accounts
from annotate.domain.study.studies import get_study


def enrol(
    engine: Engine, *, study: str, key: str, participant_id: str, session_id: str
) -> Enrolment:
    """Create or find the participant's account and give it a fresh token; a participant who
    has started gets their pair, a new one must press Start (`start`)."""
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
        assignment_id = None
        if enrolment.has_started(session, found.annotator_id, study):
            assignment_id = pool.pull_next(session, found.annotator_id, found.study_id)
    return Enrolment(found.annotator_id, found.name, found.token, found.created, assignment_id)


def visit(engine: Engine, *, study: str, key: str, participant_id: str, session_id: str) -> Visit:
    """Check a visitor's link (EnrolmentError if it cannot enrol) and say what they see first;
    nothing is written."""
    participant_id, session_id = enrolment.check_platform_ids(participant_id, session_id)
    with read_session(engine) as session:
        return enrolment.visit(
            session, study=study, key=key, participant_id=participant_id, session_id=session_id
        )


def has_started(engine: Engine, actor_id: int, study: str) -> bool:
    """Whether the participant has pressed Start in `study`."""
    with read_session(engine) as session:
        return enrolment.has_started(session, actor_id, study)


def start(
    engine: Engine,
    actor_id: int,
    *,
    study: str,
    key: str,
    now: datetime | None = None,
) -> int | None:
    """The participant's Start: reserve their first pair; EnrolmentError when refused (see
    `annotate.domain.crowd.enrolment.start`), None when the pool has nothing for them."""
    with write_session(engine) as session:
        return enrolment.start(session, annotator_id=actor_id, study=study, key=key, now=now)


def finish_offers(engine: Engine, actor_id: int) -> list[FinishOffer]:
    """The studies the participant may finish now (`annotate.domain.crowd.finish`)."""
    with read_session(engine) as session:
        account = session.get(Annotator, actor_id)
        return [] if account is None else finish.offers(session, account)


def finish_study(engine: Engine, actor_id: int, *, study: str, token: str | None) -> int:
    """The participant's Finish in `study`, from a page whose login is still theirs; returns
    how many pairs went back to the pool."""
    with write_session(engine) as session:
        accounts.require_current_login(session, token, actor_id)
        account = session.get(Annotator, actor_id)
        assert account is not None  # the login check found it
        return finish.finish(session, account, get_study(session, study))
