"""Crowd enrolment: one account per participant, whatever they click, with work from the pool."""

from __future__ import annotations

import threading

import pytest
from sqlmodel import select

from annotate.db import read_session, write_session
from annotate.db.tables import Annotator
from annotate.domain.crowd.enrolment import EnrolmentError, enrolment_link
from annotate.domain.rating.queue import completion_codes
from annotate.domain.study.accounts import find_account, set_active
from annotate.domain.study.studies import get_study, update_study
from annotate.services.participant.enrolment import enrol, start
from tests.helpers.admin_helpers import assignments, make_study, rate

PID = "5f1a2b3c4d5e6f7a8b9c0d1e"
SESSION = "6a7b8c9d0e1f2a3b4c5d6e7f"


def _crowd(engine, **settings):
    settings.setdefault("overlap", 2)
    return make_study(engine, "crowd", pairs=4, pool_open=True, enrolment_open=True, **settings)


def _key(engine, study="crowd"):
    with read_session(engine) as session:
        return get_study(session, study).enrolment_key


def _visit(engine, study="crowd", pid=PID, session_id=SESSION, key=None):
    """The participant opening the study link the platform built for them."""
    key = _key(engine, study) if key is None else key
    return enrol(engine, study=study, key=key, participant_id=pid, session_id=session_id)


def _start(engine, visit, study="crowd", key=None):
    """The participant pressing Start on the study's first page."""
    key = _key(engine, study) if key is None else key
    return start(engine, visit.annotator_id, study=study, key=key)


def test_first_visit_creates_an_account_and_start_pulls_a_pair(engine):
    study_id = _crowd(engine)
    first = _visit(engine)
    assert first.created
    assert first.name == f"prolific:{PID}"
    assert first.assignment_id is None
    assert assignments(engine, study_id) == []
    with read_session(engine) as session:
        account = find_account(session, first.token)
        assert account is not None
        assert account.external_id == f"prolific:{PID}"
        assert account.role == "annotator"
    started = _start(engine, first)
    (item,) = assignments(engine, study_id)
    assert item.id == started
    assert item.reserved_until is not None


def test_a_second_visit_finds_the_same_account_and_the_same_pair(engine):
    _crowd(engine)
    first = _visit(engine)
    started = _start(engine, first)
    again = _visit(engine)
    assert not again.created
    assert again.annotator_id == first.annotator_id
    assert again.assignment_id == started  # the live reservation, not a new one
    assert _start(engine, again) == started  # a second Start changes nothing
    with read_session(engine) as session:
        assert find_account(session, first.token) is None  # replaced by the new token
        assert find_account(session, again.token).id == first.annotator_id
        assert len(session.exec(select(Annotator)).all()) == 1


def test_simultaneous_first_visits_make_one_account(engine):
    _crowd(engine)
    results, errors = [], []

    def visit() -> None:
        try:
            results.append(_visit(engine))
        except Exception as error:
            errors.append(error)

    threads = [threading.Thread(target=visit) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert len({r.annotator_id for r in results}) == 1
    assert sum(r.created for r in results) == 1
    with read_session(engine) as session:
        assert len(session.exec(select(Annotator)).all()) == 1


def test_the_completion_code_comes_when_the_pool_has_nothing_left(engine):
    _crowd(engine, overlap=1, pool_quota=2, completion_code="C0DE-42")
    visit = _visit(engine)
    rate(engine, visit.annotator_id, _start(engine, visit))
    from annotate.services.participant.work import pull_for_annotator

    second = pull_for_annotator(engine, visit.annotator_id)
    assert second is not None
    with read_session(engine) as session:
        assert completion_codes(session, visit.annotator_id) == []
    rate(engine, visit.annotator_id, second)
    assert pull_for_annotator(engine, visit.annotator_id) is None  # quota of 2 reached
    with read_session(engine) as session:
        assert completion_codes(session, visit.annotator_id) == ["C0DE-42"]


@pytest.mark.parametrize(
    ("study", "pid", "message"),
    [
        ("crowd", "", "participant id is missing"),
        ("crowd", "x y", "participant id is missing"),
        ("nope", PID, "link is not valid"),
        ("closed", PID, "link is not valid"),  # as a missing study: no probing
    ],
)
def test_bad_links_are_refused_with_a_message(engine, study, pid, message):
    _crowd(engine)
    make_study(engine, "closed", pairs=1, pool_open=True)
    with pytest.raises(EnrolmentError, match=message):
        _visit(engine, study, pid, key="" if study == "nope" else None)
    with read_session(engine) as session:
        assert session.exec(select(Annotator)).all() == []


def test_a_deactivated_participant_is_not_let_back_in(engine):
    _crowd(engine)
    first = _visit(engine)
    with write_session(engine) as session:
        set_active(session, first.name, False)
    with pytest.raises(EnrolmentError, match="ended"):
        _visit(engine)


def test_the_link_carries_the_study_key_and_the_platform_placeholders():
    link = enrolment_link("my study", "s3cret", "https://rate.example.org/")
    assert link.startswith(
        "https://rate.example.org/?study=my+study&key=s3cret&PROLIFIC_PID={{%PROLIFIC_PID%}}"
    )
    assert "STUDY_ID={{%STUDY_ID%}}" in link
    assert "SESSION_ID={{%SESSION_ID%}}" in link


# ---------------------------------------------------------------- takeover and guessing


def test_a_link_without_the_study_key_enrols_nobody(engine):
    _crowd(engine)
    for wrong in ("", "guess", _key(engine)[:-1]):
        with pytest.raises(EnrolmentError, match="link is not valid"):
            _visit(engine, key=wrong)
    with read_session(engine) as session:
        assert session.exec(select(Annotator)).all() == []


def test_the_study_key_is_random_and_survives_closing_and_reopening(engine):
    _crowd(engine)
    make_study(engine, "second", pairs=1, pool_open=True, enrolment_open=True)
    key = _key(engine)
    assert len(key) >= 22
    assert key != _key(engine, "second")
    for open_now in (False, True):
        with write_session(engine) as session:
            update_study(session, "crowd", enrolment_open=open_now)
    assert _key(engine) == key  # links already posted on the platform keep working


def test_someone_else_with_the_participant_id_cannot_take_the_account_over(engine):
    _crowd(engine)
    first = _visit(engine)
    with pytest.raises(EnrolmentError, match="another session"):
        _visit(engine, session_id="attacker-session")
    with read_session(engine) as session:
        assert find_account(session, first.token).id == first.annotator_id  # still logged in


def test_a_missing_session_id_is_refused(engine):
    _crowd(engine)
    with pytest.raises(EnrolmentError, match="session id is missing"):
        _visit(engine, session_id="")


def test_a_participant_enrolled_before_session_binding_is_bound_on_the_next_visit(engine):
    _crowd(engine)
    first = _visit(engine)
    with write_session(engine) as session:
        session.get(Annotator, first.annotator_id).enrolment_session_hash = None
    again = _visit(engine, session_id="their-session")
    assert again.annotator_id == first.annotator_id
    with pytest.raises(EnrolmentError, match="another session"):
        _visit(engine, session_id="someone-else")
