"""Instructed-response checks (issue 34, point 6): defined in a study's settings, shown to crowd
participants between pairs, answers stored, acted on in session: a warning after the first
failure, the end after the second (status "failed checks", no completion code, no further
pair). Services on SQLite or PostgreSQL, the rating page with AppTest."""

from __future__ import annotations

import json
import re

import pytest
from sqlmodel import select
from typer.testing import CliRunner

from annotate.cli import app
from annotate.cli.common import State
from annotate.db import read_session, write_session
from annotate.db.tables import Annotator, CheckAnswer
from annotate.domain.crowd.checks import (
    ENDED,
    WARNING,
    CheckRefused,
    check_failures,
    due_check,
)
from annotate.domain.crowd.outcomes import FAILED_CHECKS
from annotate.domain.crowd.participants import participant_rows
from annotate.domain.exports.export import ratings_dataframe
from annotate.domain.rating.queue import finished_studies
from annotate.domain.study import accounts
from annotate.domain.study.studies import StudyError, get_study, update_study
from annotate.domain.study.study_settings import read_settings, settings_text
from annotate.services.participant.checks import answer_check
from annotate.services.participant.enrolment import enrol, finish_offers, start
from annotate.services.participant.work import pull_next
from annotate.vocabulary import PROVENANCE_EXPORT_COLUMNS
from tests.helpers.admin_helpers import assignments, make_study, page_texts, rate
from tests.helpers.apptest_helpers import sent_elements

PID = "5f1a2b3c4d5e6f7a8b9c0d1e"
SESSION = "6a7b8c9d0e1f2a3b4c5d6e7f"
OPTIONS = ["Not at all", "Somewhat", "Very much"]
CHECKS = [
    {"text": "For this item, select Somewhat.", "options": OPTIONS, "expected": "Somewhat",
     "after": 1},
    {"text": "For this item, select Very much.", "options": OPTIONS, "expected": "Very much",
     "after": 2},
]  # fmt: skip


def _crowd_study(engine, **settings) -> int:
    return make_study(
        engine, "crowd", pairs=8, overlap=1, pool_open=True, enrolment_open=True,
        pool_quota=4, completion_code="DONE-1", instructed_checks=CHECKS, **settings,
    )  # fmt: skip


def _participant(engine, pid: str = PID):
    with read_session(engine) as session:
        key = get_study(session, "crowd").enrolment_key
    visit = enrol(engine, study="crowd", key=key, participant_id=pid, session_id=SESSION)
    start(engine, visit.annotator_id, study="crowd", key=key)
    return visit


def _due(engine, annotator_id: int):
    with read_session(engine) as session:
        return due_check(session, annotator_id)


def _answer(engine, visit, index: int, answer: str):
    return answer_check(
        engine, visit.annotator_id, study="crowd", index=index, answer=answer, token=visit.token
    )


def test_checks_are_refused_unless_complete_and_travel_in_the_settings_file(engine):
    _crowd_study(engine)
    wrong = [
        {"text": "", "options": ["Yes"], "expected": "No", "after": 9, "extra": 1},
        "not a check",
    ]
    with pytest.raises(StudyError) as refused, write_session(engine) as session:
        update_study(session, "crowd", instructed_checks=wrong)
    message = str(refused.value)
    for expected in (
        "instructed check 1: unknown field(s) extra",
        "instructed check 1, field 'text'",
        "instructed check 1, field 'options'",
        "instructed check 1, field 'expected'",
        "instructed check 1, field 'after': 9 pairs is past the pairs per person (4)",
        "instructed check 2: expected an object",
    ):
        assert expected in message, message
    with read_session(engine) as session:
        text = settings_text(get_study(session, "crowd"), "yaml")
    assert read_settings("s.yaml", text.encode())["instructed_checks"] == CHECKS


def test_the_command_line_sets_and_shows_the_checks(engine, db_url, tmp_path, monkeypatch):
    make_study(engine, "crowd", pairs=2, pool_open=True, pool_quota=4)
    path = tmp_path / "checks.json"
    path.write_text(json.dumps(CHECKS), encoding="utf-8")
    monkeypatch.delenv("PRB_DATABASE_URL", raising=False)
    command = ["--db", db_url, "studies", "edit", "crowd", "--checks-file", str(path)]
    try:
        result = CliRunner().invoke(app, command)
    finally:
        if State._engine is not None:
            State._engine.dispose()
    assert result.exit_code == 0, result.output
    assert re.search(r"instructed checks\s+2, after pairs 1 and 2\n", result.output)
    with read_session(engine) as session:
        assert get_study(session, "crowd").instructed_checks == CHECKS


def test_a_check_is_due_after_its_pairs_and_its_answer_is_stored_once(engine):
    study_id = _crowd_study(engine)
    visit = _participant(engine)
    me = visit.annotator_id
    assert _due(engine, me) is None  # no pair handled yet
    rate(engine, me, pull_next(engine, me, study_id))
    due = _due(engine, me)
    assert (due.study, due.check.index, due.check.options) == ("crowd", 0, tuple(OPTIONS))
    with pytest.raises(CheckRefused, match="one of the options"):
        _answer(engine, visit, 0, "Maybe")
    result = _answer(engine, visit, 0, "Somewhat")
    assert (result.passed, result.failures, result.ended) == (True, 0, False)
    again = _answer(engine, visit, 0, "Not at all")  # a second click: the first answer stands
    assert (again.passed, again.failures) == (True, 0)
    assert _due(engine, me) is None
    with read_session(engine) as session:
        (row,) = session.exec(select(CheckAnswer)).all()
    assert (row.study_id, row.annotator_id, row.check_index, row.answer, row.passed) == (
        study_id, me, 0, "Somewhat", True
    )  # fmt: skip
    with pytest.raises(Exception, match="no longer valid"):
        answer_check(engine, me, study="crowd", index=1, answer="Somewhat", token="stale")


def test_the_second_failure_ends_the_work_with_no_code_and_no_further_pair(engine):
    study_id = _crowd_study(engine, finish_minimum=3)
    visit = _participant(engine)
    me = visit.annotator_id
    rate(engine, me, pull_next(engine, me, study_id))
    first = _answer(engine, visit, 0, "Not at all")
    assert (first.passed, first.failures, first.ended) == (False, 1, False)
    rate(engine, me, pull_next(engine, me, study_id))
    held = pull_next(engine, me, study_id)  # the next pair is reserved already
    assert _due(engine, me).check.index == 1  # but the check comes first
    second = _answer(engine, visit, 1, "Somewhat")
    assert (second.passed, second.failures, second.ended) == (False, 2, True)
    statuses = {a.id: a.status for a in assignments(engine, study_id)}
    assert statuses[held] == "released"  # back to the pool for someone else
    assert pull_next(engine, me, study_id) is None  # no further pair
    assert _due(engine, me) is None
    assert finish_offers(engine, me) == []
    with read_session(engine) as session:
        assert [s.name for s in finished_studies(session, me)] == ["crowd"]
        assert check_failures(session, study_id) == {me: 2}
        (row,) = participant_rows(session, get_study(session, "crowd"))
    assert (row.status, row.completion_code) == (FAILED_CHECKS, "")
    frame = ratings_dataframe(engine, "crowd")  # the two pairs rated, 8 rows each
    assert len(frame) == 16
    assert frame["checks_failed"].tolist() == [2] * 16
    assert frame.columns[-len(PROVENANCE_EXPORT_COLUMNS) - 1] == "checks_failed"
    assert "failed checks" in ENDED
    assert "No completion code" in ENDED


def test_gold_speed_and_the_study_s_own_annotators_never_meet_a_check(engine):
    study_id = _crowd_study(engine)
    with write_session(engine) as session:
        annotator, _ = accounts.create_account(session, "staff")
    staff = annotator.id
    for _ in range(2):
        rate(engine, staff, pull_next(engine, staff, study_id), seconds=0.5)
    assert _due(engine, staff) is None  # not a crowd participant
    visit = _participant(engine)
    rate(engine, visit.annotator_id, pull_next(engine, visit.annotator_id, study_id), seconds=0.1)
    _answer(engine, visit, 0, "Somewhat")
    with read_session(engine) as session:
        assert check_failures(session, study_id) == {visit.annotator_id: 0}
        rows = participant_rows(session, get_study(session, "crowd"))
    assert [r.status for r in rows] == ["in progress"]  # a very fast pair ends nothing


def test_the_rating_page_asks_the_check_warns_then_ends_without_a_code(page_engine, open_page):
    study_id = _crowd_study(page_engine)
    visit = _participant(page_engine)
    me = visit.annotator_id
    rate(page_engine, me, pull_next(page_engine, me, study_id))
    at = open_page(visit.token)
    assert "Before the next pair, one question." in page_texts(at)
    (radio,) = [r for r in at.radio if r.key == "check_answer_0"]
    assert list(radio.options) == OPTIONS
    assert not [t for t in at.text_input if t.key == "pair_token"]  # no pair drawn with it
    sent = " ".join(sent_elements(at._tree)).lower()  # what the check page sends the browser
    assert "chosen" not in sent
    assert "rejected" not in sent
    radio.set_value("Very much")
    next(b for b in at.button if b.label == "Continue").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert WARNING in [w.value for w in at.warning]
    assert "**Pair 2 of 4** · 1 rated" in page_texts(at)
    (pair,) = [a for a in assignments(page_engine, study_id) if a.status == "pending"]
    rate(page_engine, me, pair.id)
    at = open_page(visit.token)
    (radio,) = [r for r in at.radio if r.key == "check_answer_1"]
    radio.set_value("Not at all")
    next(b for b in at.button if b.label == "Continue").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert "Thank you" in [t.value for t in at.title]  # not "All done": no code earned
    assert ENDED in [w.value for w in at.warning]
    assert "DONE-1" not in page_texts(at) + "".join(str(e.proto) for e in at.main)
    again = open_page(visit.token)  # a reload: still ended, no new pair, no code
    assert "Thank you" in [t.value for t in again.title]
    assert "DONE-1" not in page_texts(again)


def test_the_card_s_protocol_states_the_checks_only_when_the_study_has_them():
    from annotate.domain.exports.publish import Protocol, protocol_lines

    base = {"study": "crowd", "scale_min": 1, "scale_max": 5, "anchors": {}, "margin": 0.5,
            "overlap": 3, "n_annotators": 4, "n_simulated": 0, "n_rows": 96}  # fmt: skip
    with_checks = "\n".join(protocol_lines(Protocol(**base, instructed_checks=2), {}))
    assert "**Instructed-response checks**: 2 item(s)" in with_checks
    assert "failed checks" in with_checks
    assert "Instructed" not in "\n".join(protocol_lines(Protocol(**base), {}))


def test_the_admin_sets_the_checks_on_the_studies_page_and_confirms_them(page_engine, open_page):
    _crowd_study(page_engine, finish_minimum=None)
    with write_session(page_engine) as session:
        update_study(session, "crowd", instructed_checks=[])
        _, token = accounts.create_account(session, "boss", role="admin")
        key = f"study_{get_study(session, 'crowd').id}"
    at = open_page(token, page="admin_studies.py", pick="crowd")
    at.text_area(key=f"{key}_checks").input('[{"text": "Pick Somewhat",')
    next(b for b in at.button if b.label == "Save settings").click().run()
    assert "Instructed-response checks, line 1, column" in page_texts(at)
    at.text_area(key=f"{key}_checks").input(json.dumps(CHECKS))
    next(b for b in at.button if b.label == "Save settings").click().run()
    (shown,) = at.table  # the confirmation's table: what will change
    assert list(shown.value["setting"]) == ["instructed-response checks"]
    assert "The design settings" not in page_texts(at)  # no module text drawn by Streamlit
    next(b for b in at.button if b.label == "Confirm").click().run()
    assert "Settings of crowd saved." in page_texts(at)
    with read_session(page_engine) as session:
        assert get_study(session, "crowd").instructed_checks == CHECKS


def test_an_erased_participant_s_check_answers_go_with_them(engine):
    from annotate.domain.study.permissions import SYSTEM
    from annotate.services.admin.erasure import erase_person

    study_id = _crowd_study(engine)
    visit = _participant(engine)
    me = visit.annotator_id
    rate(engine, me, pull_next(engine, me, study_id))
    _answer(engine, visit, 0, "Not at all")
    with read_session(engine) as session:
        name = session.get(Annotator, me).name
    done = erase_person(engine, SYSTEM, name, "crowd")
    assert done.account_removed
    with read_session(engine) as session:
        assert session.exec(select(CheckAnswer)).all() == []
        assert check_failures(session, study_id) == {}
