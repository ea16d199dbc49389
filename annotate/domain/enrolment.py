"""Crowd enrolment: a study link that turns a platform participant into an annotator.

    https://app.example/?study=<name>&key=<secret>&PROLIFIC_PID=<pid>&SESSION_ID=<id>...

The link carries the study's secret `key` (set when enrolment opens), so only people given the
link can enrol. The first visit creates an account named after the participant (external id
`prolific:<pid>`) and remembers (a hash of) the platform's SESSION_ID. A later visit with the
same participant *and* session id finds the same account again, so one person never gets two
accounts or the same pair twice; a visit with the same participant id but another session id is
refused, so knowing someone's participant id is not enough to take over their account. Because
tokens are stored only as hashes, a visit without a token issues a new one (the app puts it in
the URL, so reloads keep working) and the previous token stops working. Each visit then makes
sure the participant has a pair to work on, pulled from the open pool. Only studies with
`enrolment_open` (which needs `pool_open`) accept enrolment.
"""

from __future__ import annotations

import hmac
import re
from dataclasses import dataclass
from urllib.parse import urlencode

from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from annotate.config import app_url
from annotate.db import write_session
from annotate.db.tables import Annotator, Study
from annotate.domain import accounts
from annotate.domain.assignment import pull_next
from annotate.domain.studies import StudyNotFound, get_study
from annotate.errors import Invalid

PLATFORM = "prolific"
PARTICIPANT_PARAM = "PROLIFIC_PID"
SESSION_PARAM = "SESSION_ID"
STUDY_PARAM = "study"
KEY_PARAM = "key"
_PLATFORM_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
INVALID_LINK = "This study link is not valid: please open the study again from the platform."


class EnrolmentError(Invalid):
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


def enrolment_link(study: str, key: str, base_url: str | None = None) -> str:
    """The link to give the crowd platform; it fills in the participant's ids itself."""
    query = urlencode({STUDY_PARAM: study, KEY_PARAM: key})
    placeholders = (
        "PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}"
    )
    return f"{(base_url or app_url()).rstrip('/')}/?{query}&{placeholders}"


def enrol(
    engine: Engine, *, study: str, key: str, participant_id: str, session_id: str
) -> Enrolment:
    """Create or find the participant's account, give it a fresh token and a pair to rate."""
    participant_id = (participant_id or "").strip()
    session_id = (session_id or "").strip()
    if not _PLATFORM_ID.match(participant_id):
        raise EnrolmentError("This study link is incomplete: the participant id is missing.")
    if not _PLATFORM_ID.match(session_id):
        raise EnrolmentError("This study link is incomplete: the session id is missing.")
    visit = (study, key, participant_id, session_id)
    try:
        annotator_id, name, token, created, study_id = _account_for(engine, *visit)
    except IntegrityError:
        # The same person enrolled twice at once (a double click): the other request won.
        annotator_id, name, token, created, study_id = _account_for(engine, *visit)
    with write_session(engine) as session:
        assignment_id = pull_next(session, annotator_id, study_id)
    return Enrolment(annotator_id, name, token, created, assignment_id)


def _account_for(
    engine: Engine, study_name: str, key: str, participant_id: str, session_id: str
) -> tuple[int, str, str, bool, int]:
    with write_session(engine) as session:
        study = _open_study(session, study_name, key)
        wanted = external_id(participant_id)
        session_hash = accounts.hash_token(session_id)
        account = session.exec(select(Annotator).where(Annotator.external_id == wanted)).first()
        if account is None:
            account, token = accounts.create_account(session, wanted)
            account.external_id = wanted
            account.enrolment_session_hash = session_hash
            session.add(account)
            session.flush()
            return account.id, account.name, token, True, study.id  # type: ignore[return-value]
        _check_returning(account, session_hash)
        account.enrolment_session_hash = session_hash  # first bound here if enrolled before
        session.add(account)
        token = accounts.rotate_token(session, account.name)
        return account.id, account.name, token, False, study.id  # type: ignore[return-value]


def _check_returning(account: Annotator, session_hash: str) -> None:
    """A returning participant must come back from the same platform session."""
    if not account.active:
        raise EnrolmentError(
            "Your participation in this study has ended. Please contact the researchers."
        )
    known = account.enrolment_session_hash
    if known is not None and not hmac.compare_digest(known, session_hash):
        raise EnrolmentError(
            "This participant id is already taking part from another session. Please go back "
            "to the browser tab where you started, or contact the researchers."
        )


def _open_study(session: Session, name: str, key: str) -> Study:
    try:
        study = get_study(session, (name or "").strip())
    except StudyNotFound:
        raise EnrolmentError(INVALID_LINK) from None
    if not study.enrolment_open:
        raise EnrolmentError("This study is not taking new participants at the moment.")
    if not study.enrolment_key or not hmac.compare_digest(
        study.enrolment_key.encode(), (key or "").strip().encode()
    ):
        raise EnrolmentError(INVALID_LINK)
    return study
