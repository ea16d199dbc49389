"""Withdrawal is a participant's act (issue 32, deliverable 2; point 8 of the attack pass).

Only a crowd participant of the study, through their own enrolment (the study's key and their
login), can withdraw: an admin, a researcher, an adjudicator and an annotator with a login link
are refused by the service whatever link they hold, and so are a crowd participant of another
study and a participant without the study's key. Withdrawing *with erasure* needs the login
token the participant's own tab received at enrolment: the session value an onlooker can read
in the address withdraws without erasure only. The study link answers an unknown id, an id
taking part and an id that has withdrawn the same way (another session id: no oracle).

The pages (the Withdraw box absent for each role, the erase choice absent in a tab holding only
the session value, the link's first page the same for the three ids) are in
`tests/annotate/app/participant/test_withdrawal_page.py`. Runs on SQLite and on PostgreSQL
(`PRB_TEST_DATABASE_URL`).
"""

from __future__ import annotations

import pytest
from sqlmodel import select

from annotate.db import read_session, write_session
from annotate.db.tables import Annotator, Assignment
from annotate.domain.assignment import assign_pairs, study_pairs
from annotate.domain.crowd.enrolment import EnrolmentError
from annotate.domain.study import accounts
from annotate.domain.study.studies import create_study, get_study
from annotate.errors import Forbidden
from annotate.services.admin.erasure import ERASE_NEEDS_OWN_TAB, may_withdraw, withdraw_me
from annotate.services.participant.consent import decide
from annotate.services.participant.enrolment import enrol, visit
from tests.helpers.admin_helpers import rate
from tests.security.participants_world import STUDY, crowd_study, study_key

PID = "5f8e2b1c9d3a4e0012345678"
SESSION = "6a7b8c9d0e1f2a3b4c5d6e7f"


def _participant(engine, pid: str = PID, session_id: str = SESSION, study: str = STUDY):
    with read_session(engine) as session:
        key = get_study(session, study).enrolment_key or ""
    found = enrol(engine, study=study, key=key, participant_id=pid, session_id=session_id)
    decide(engine, found.annotator_id, study=study, key=key, accept=True)
    return found


def _account(engine, name: str, role: str) -> tuple[int, str]:
    """An account with a login link; an annotator's holds the study's pairs, one rated."""
    with write_session(engine) as session:
        account, token = accounts.create_account(session, name, role=role)
        if role == "annotator":
            study = get_study(session, STUDY)
            assign_pairs(session, study, account, study_pairs(session, study))
        account_id = int(account.id)  # type: ignore[arg-type]
    if role == "annotator":
        with read_session(engine) as session:
            held = session.exec(
                select(Assignment.id).where(Assignment.annotator_id == account_id)
            ).first()
        assert held is not None
        rate(engine, account_id, held, side_preference=1)
    return account_id, token


@pytest.fixture
def crowd(engine):
    crowd_study(engine)
    return engine, study_key(engine)


@pytest.mark.parametrize("role", ["admin", "researcher", "adjudicator", "annotator"])
def test_no_other_role_can_withdraw_even_with_the_study_link(crowd, role):
    engine, key = crowd
    account_id, token = _account(engine, f"{role}-1", role)
    assert not may_withdraw(engine, account_id, study=STUDY, key=key)
    for erase in (True, False):
        with pytest.raises(Forbidden, match="Only a participant of this study"):
            withdraw_me(engine, account_id, study=STUDY, key=key, token=token, erase_data=erase)
    with read_session(engine) as session:
        account = session.get(Annotator, account_id)
        assert account is not None
        assert account.active


def test_a_crowd_account_made_admin_cannot_withdraw(crowd):
    engine, key = crowd
    found = _participant(engine)
    with write_session(engine) as session:
        accounts.set_role(session, found.name, "admin")
    assert not may_withdraw(engine, found.annotator_id, study=STUDY, key=key)
    with pytest.raises(Forbidden):
        withdraw_me(
            engine, found.annotator_id, study=STUDY, key=key, token=found.token, erase_data=True
        )


def test_only_the_study_s_own_participant_with_its_key_may_withdraw(crowd):
    engine, key = crowd
    with write_session(engine) as session:
        create_study(session, "other", pool_open=True, enrolment_open=True)
    elsewhere = _participant(
        engine, "60aa11bb22cc33dd44ee55ff", "7b8c9d0e1f2a3b4c5d6e7f80", "other"
    )
    mine = _participant(engine)
    assert not may_withdraw(engine, elsewhere.annotator_id, study=STUDY, key=key)
    with pytest.raises(Forbidden):
        withdraw_me(
            engine, elsewhere.annotator_id, study=STUDY, key=key, token=elsewhere.token,
            erase_data=True,
        )  # fmt: skip
    assert not may_withdraw(engine, mine.annotator_id, study=STUDY, key="not-the-key")
    with pytest.raises(Forbidden):
        withdraw_me(
            engine, mine.annotator_id, study=STUDY, key="x", token=mine.token, erase_data=True
        )
    assert may_withdraw(engine, mine.annotator_id, study=STUDY, key=key)
    done = withdraw_me(
        engine, mine.annotator_id, study=STUDY, key=key, token=mine.token, erase_data=True
    )
    assert done.account_removed


def test_a_session_value_seen_in_the_address_cannot_erase(crowd):
    engine, key = crowd
    found = _participant(engine)
    with read_session(engine) as session:
        account = session.get(Annotator, found.annotator_id)
        assert account is not None
        seen = accounts.session_value(account)
    with pytest.raises(Forbidden) as refused:
        withdraw_me(engine, found.annotator_id, study=STUDY, key=key, token=seen, erase_data=True)
    assert str(refused.value) == ERASE_NEEDS_OWN_TAB
    with read_session(engine) as session:
        assert session.get(Annotator, found.annotator_id) is not None  # nothing erased
    done = withdraw_me(  # the same value withdraws without erasure
        engine, found.annotator_id, study=STUDY, key=key, token=seen, erase_data=False
    )
    assert not done.account_removed


def test_the_link_answers_unknown_active_and_withdrawn_ids_the_same(crowd):
    engine, key = crowd
    active = "60aa11bb22cc33dd44ee55ff"
    gone = "70bb22cc33dd44ee55ff6600"
    _participant(engine, active, "session-of-the-active-one")
    left = _participant(engine, gone, "session-of-the-one-who-left")
    withdraw_me(engine, left.annotator_id, study=STUDY, key=key, token=left.token, erase_data=False)
    link = {"study": STUDY, "key": key, "session_id": "someone-else-s-session"}
    seen = [visit(engine, participant_id=pid, **link) for pid in (PID, active, gone)]
    assert seen[0] == seen[1] == seen[2]
    assert not seen[0].returning
    answers = []
    for pid in (active, gone):
        with pytest.raises(EnrolmentError) as refused:
            enrol(engine, participant_id=pid, **link)
        answers.append(str(refused.value))
    assert answers[0] == answers[1]
    # the person themselves (their session id) is told their participation has ended
    again = visit(
        engine, participant_id=gone, study=STUDY, key=key, session_id="session-of-the-one-who-left"
    )
    assert again.returning
    with read_session(engine) as session:
        assert len(session.exec(select(Annotator)).all()) == 2  # nothing was created
