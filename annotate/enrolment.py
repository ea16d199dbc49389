"""Crowd enrolment: a study link that turns a platform participant into an annotator.

    https://app.example/?study=<name>&PROLIFIC_PID=<pid>&STUDY_ID=<id>&SESSION_ID=<id>

The first visit creates an account named after the participant (external id `prolific:<pid>`);
any later visit finds the same account again, so one person never gets two accounts or the same
pair twice. Because tokens are stored only as hashes, a visit without a token issues a new one
(the app puts it in the URL, so reloads keep working) and the previous token stops working.
Each visit then makes sure the participant has a pair to work on, pulled from the open pool.
Only studies with `enrolment_open` (which needs `pool_open`) accept enrolment.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlencode

from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from annotate import accounts
from annotate.assignment import pull_next
from annotate.config import app_url
from annotate.db import write_session
from annotate.models import Annotator
from annotate.studies import StudyNotFound, get_study

PLATFORM = "prolific"
PARTICIPANT_PARAM = "PROLIFIC_PID"
STUDY_PARAM = "study"
_PARTICIPANT_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


class EnrolmentError(ValueError):
    """The link cannot enrol anyone; the message is meant for the participant."""


@dataclass(frozen=True)
class Enrolment:
    annotator_id: int
    name: str
    token: str
    created: bool  # False when the participant was found again
    assignment_id: int | None  # the pair to work on now; None when the pool has none for them


def external_id(participant_id: str, platform: str = PLATFORM) -> str:
    return f"{platform}:{participant_id}"


def enrolment_link(study: str, base_url: str | None = None) -> str:
    """The link to give the crowd platform; it fills in the participant's ids itself."""
    query = urlencode({STUDY_PARAM: study})
    placeholders = (
        "PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}"
    )
    return f"{(base_url or app_url()).rstrip('/')}/?{query}&{placeholders}"


def enrol(engine: Engine, *, study: str, participant_id: str) -> Enrolment:
    """Create or find the participant's account, give it a fresh token and a pair to rate."""
    participant_id = (participant_id or "").strip()
    if not _PARTICIPANT_ID.match(participant_id):
        raise EnrolmentError("This study link is incomplete: the participant id is missing.")
    try:
        annotator_id, name, token, created, study_id = _account_for(study, participant_id, engine)
    except IntegrityError:
        # The same person enrolled twice at once (a double click): the other request won.
        annotator_id, name, token, created, study_id = _account_for(study, participant_id, engine)
    assignment_id = pull_next(engine, annotator_id, study_id)
    return Enrolment(annotator_id, name, token, created, assignment_id)


def _account_for(
    study_name: str, participant_id: str, engine: Engine
) -> tuple[int, str, str, bool, int]:
    with write_session(engine) as session:
        study = _open_study(session, study_name)
        wanted = external_id(participant_id)
        account = session.exec(select(Annotator).where(Annotator.external_id == wanted)).first()
        if account is not None:
            if not account.active:
                raise EnrolmentError(
                    "Your participation in this study has ended. Please contact the researchers."
                )
            token = accounts.rotate_token(session, account.name)
            return account.id, account.name, token, False, study.id  # type: ignore[return-value]
        account, token = accounts.create_account(session, wanted)
        account.external_id = wanted
        session.add(account)
        session.flush()
        return account.id, account.name, token, True, study.id  # type: ignore[return-value]


def _open_study(session: Session, name: str):  # type: ignore[no-untyped-def]
    try:
        study = get_study(session, (name or "").strip())
    except StudyNotFound:
        raise EnrolmentError("This study link is not valid: no such study.") from None
    if not study.enrolment_open:
        raise EnrolmentError("This study is not taking new participants at the moment.")
    return study
