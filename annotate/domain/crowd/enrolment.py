"""Crowd enrolment: a study link that turns a platform participant into an annotator.

    https://app.example/?study=<name>&key=<secret>&PROLIFIC_PID=<pid>&SESSION_ID=<id>...

The link carries the study's secret `key` (set when enrolment opens), so only people given the
link can enrol; a missing study, a closed one and a wrong key get the same answer, so the link
cannot be used to find out which studies exist. A visit writes nothing (`visit`): the
participant's first deliberate action (agreeing or declining on the consent page, or Start where
there is none) creates an account named after the participant (external id `prolific:<pid>`)
and remembers (a hash of) the platform's SESSION_ID. A later visit with the same participant
*and* session id finds the same account again, so one person never gets two accounts or the
same pair twice; the same participant id with another session id is refused at its first
deliberate action, so knowing someone's participant id is not enough to take over their
account. Until then such a visit sees the page an unknown id sees, and the refusal is the same
whether the id is taking part or has withdrawn, so the link tells nobody which ids take part.
Because tokens are stored only as hashes, a visit without a token issues a new one (the app puts
it in the URL, so reloads keep working) and the previous token stops working. Only studies with
`enrolment_open` (which needs `pool_open`) accept enrolment; a study whose enrolment its
group-sequential plan closed (`Study.enrolment_closed`) tells the holders of its link that it is
closed (`CLOSED`).

Opening the link reserves nothing: a participant reserves their first pair only by a deliberate
Start (`start`), and until they submit a pair every reservation of theirs is limited
(`assignment.crowd`: a cap on the study's participants, reservations per minute, short
reservations), so everyone who has the link (every participant has it) cannot drain the pool
with made-up ids. A participant who has started gets their pair on every later visit.

These functions work in the caller's transaction; `annotate.services.participant.enrolment` opens
it.
"""

from __future__ import annotations

import hmac
import re
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urlencode

from sqlmodel import Session, col, select

from annotate.config import app_url
from annotate.db.tables import Annotator, Assignment, Study, stored_id
from annotate.domain.assignment import as_utc, crowd, lock_study, pull_next, release_lapsed
from annotate.domain.assignment.pool import live_reservation
from annotate.domain.crowd import consent, training
from annotate.domain.study import accounts
from annotate.domain.study.studies import StudyNotFound, get_study
from annotate.errors import Invalid

PLATFORM = "prolific"
PARTICIPANT_PARAM = "PROLIFIC_PID"
SESSION_PARAM = "SESSION_ID"
STUDY_PARAM = "study"
KEY_PARAM = "key"
_PLATFORM_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
INVALID_LINK = "This study link is not valid: please open the study again from the platform."
ENDED = "Your participation in this study has ended. Please contact the researchers."
FULL = "This study has all the participants it needs. Thank you for your interest."
OTHER_SESSION = (
    "This study link belongs to another session. Please open the study from the platform in "
    "the browser tab where you started, or contact the researchers."
)
CLOSED = (
    "This study is closed: it has the data it needs. Thank you for your interest; please "
    "return it on the platform."
)
BUSY = "Many people are starting this study right now. Please wait a minute and press Start again."


class EnrolmentError(Invalid):
    """The link cannot enrol anyone; the message is meant for the participant."""


@dataclass(frozen=True)
class Enrolment:
    annotator_id: int
    name: str
    token: str
    created: bool  # False when the participant was found again
    assignment_id: int | None  # the pair to work on now; None when the pool has none for them


@dataclass(frozen=True)
class Enrolled:
    """The participant's account, with a fresh token, in the study whose link they used."""

    annotator_id: int
    name: str
    token: str
    created: bool
    study_id: int


def external_id(participant_id: str, platform: str = PLATFORM) -> str:
    return f"{platform}:{participant_id}"


def enrolment_link(study: str, key: str, base_url: str | None = None) -> str:
    """The link to give the crowd platform; it fills in the participant's ids itself."""
    query = urlencode({STUDY_PARAM: study, KEY_PARAM: key})
    placeholders = (
        "PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}"
    )
    return f"{(base_url or app_url()).rstrip('/')}/?{query}&{placeholders}"


def check_platform_ids(participant_id: str, session_id: str) -> tuple[str, str]:
    """The participant and session ids of the link, stripped; EnrolmentError if malformed."""
    participant_id = (participant_id or "").strip()
    session_id = (session_id or "").strip()
    if not _PLATFORM_ID.match(participant_id):
        raise EnrolmentError("This study link is incomplete: the participant id is missing.")
    if not _PLATFORM_ID.match(session_id):
        raise EnrolmentError("This study link is incomplete: the session id is missing.")
    return participant_id, session_id


def account_for(
    session: Session, *, study: str, key: str, participant_id: str, session_id: str
) -> Enrolled:
    """Create or find the participant's account in an open study and give it a fresh token."""
    target = open_study(session, study, key)
    study_id = stored_id(target)
    wanted = external_id(participant_id)
    session_hash = accounts.hash_token(session_id)
    account = session.exec(select(Annotator).where(col(Annotator.external_id) == wanted)).first()
    if account is None:
        account, token = accounts.create_account(session, wanted)
        account.external_id = wanted
        account.enrolment_session_hash = session_hash
        session.add(account)
        session.flush()
        return Enrolled(stored_id(account), account.name, token, True, study_id)
    _check_returning(account, session_hash)
    account.enrolment_session_hash = session_hash  # first bound here if enrolled before
    session.add(account)
    token = accounts.rotate_token(session, account.name)
    return Enrolled(stored_id(account), account.name, token, False, study_id)


def _same_session(account: Annotator, session_hash: str) -> bool:
    """Whether the link comes from the platform session the account enrolled from."""
    known = account.enrolment_session_hash
    return known is not None and hmac.compare_digest(known, session_hash)


def _check_returning(account: Annotator, session_hash: str) -> None:
    """A returning participant must come back from the same platform session. Another session
    gets one answer whether the id's account is active or has withdrawn (issue 32.5): only the
    person who holds the session id learns that their participation has ended."""
    if account.enrolment_session_hash is not None and not _same_session(account, session_hash):
        raise EnrolmentError(OTHER_SESSION)
    if not account.active:
        raise EnrolmentError(ENDED)


def open_study(session: Session, name: str, key: str) -> Study:
    """The study whose link this is, if it accepts enrolment (EnrolmentError otherwise)."""
    try:
        study = get_study(session, (name or "").strip())
    except StudyNotFound:
        raise EnrolmentError(INVALID_LINK) from None
    # compared even when closed, so a closed study answers as a missing one, as fast
    matches = hmac.compare_digest(
        (study.enrolment_key or "").encode(), (key or "").strip().encode()
    )
    if study.enrolment_key and matches and not study.enrolment_open and study.enrolment_closed:
        raise EnrolmentError(CLOSED)  # closed by its plan: only the link's holders learn it
    if not (study.enrolment_open and study.enrolment_key and matches):
        raise EnrolmentError(INVALID_LINK)
    return study


@dataclass(frozen=True)
class Visit:
    """What a visitor's link leads to, before anything is written for them."""

    returning: bool  # the participant has an account already (they acted before)
    consent_text: str  # the study's consent page ("" when it has none)
    straight_to_work: bool  # no survey and no training: Start reserves the first pair
    task: str = ""  # what a pair asks (the Start page says it)


def visit(session: Session, *, study: str, key: str, participant_id: str, session_id: str) -> Visit:
    """Check a visitor's link and say what they see first; nothing is written: an account is
    created only at the participant's first deliberate action (consent, or Start).

    A visitor is `returning` only when the link also carries the platform session the account
    enrolled from: an id unknown here, an id taking part and an id that has withdrawn, each
    with another session id, see the same first page (issue 32.5: no oracle)."""
    target = open_study(session, study, key)
    wanted = external_id(participant_id)
    found = session.exec(select(Annotator).where(col(Annotator.external_id) == wanted)).first()
    returning = found is not None and _same_session(found, accounts.hash_token(session_id))
    plain = not target.survey_questions and not training.needs_training(target)
    consent_page = target.consent_text.strip() and target.consent_text
    return Visit(returning, consent_page, plain, consent.task_summary(target))


# ---------------------------------------------------------------- the Start step


def has_started(session: Session, annotator_id: int, study: str) -> bool:
    """Whether the participant pressed Start in `study` (they have had a pair of it)."""
    found = session.exec(select(Study.id).where(col(Study.name) == (study or "").strip())).first()
    if found is None:
        return False
    return _started(session, annotator_id, found)


def _started(session: Session, annotator_id: int, study_id: int) -> bool:
    return (
        session.exec(
            select(Assignment.id).where(
                Assignment.annotator_id == annotator_id, Assignment.study_id == study_id
            )
        ).first()
        is not None
    )


def start(
    session: Session,
    *,
    annotator_id: int,
    study: str,
    key: str,
    now: datetime | None = None,
) -> int | None:
    """The participant's Start: reserve their first pair (or give back the one they hold).

    Refused, with a message for the participant, when the link is not valid (as at enrolment),
    the account has ended, or the study link's limits say no (`assignment.crowd.refusal`: the
    study is full, or too many people started in the last minute). None when the pool has
    nothing for them.
    """
    now = as_utc(now)
    target = open_study(session, study, key)
    study_id = stored_id(target)
    lock_study(session, study_id)  # the limits and the pull see the same state
    account = session.get(Annotator, annotator_id)
    if account is None or not account.active:
        raise EnrolmentError(ENDED)
    try:
        consent.require_ready(session, annotator_id, target)
    except consent.ConsentError as error:
        raise EnrolmentError(str(error)) from None
    try:
        training.require_passed(session, annotator_id, target)
    except training.TrainingError as error:
        raise EnrolmentError(str(error)) from None
    release_lapsed(session, study_id, now)
    if live_reservation(session, annotator_id, study_id, now) is None:
        refused = crowd.refusal(session, target, account, now)
        if refused is not None:
            raise EnrolmentError(FULL if refused == crowd.Refusal.FULL else BUSY)
    return pull_next(session, annotator_id, study_id, now=now)
