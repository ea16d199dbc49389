"""Consent, the survey and the crowd's way out (issue 14, items 4 and 5).

The rules (`annotate.domain.crowd.consent`) on the shared engine (SQLite, or PostgreSQL with
PRB_TEST_DATABASE_URL); the pages with AppTest on the crowd link, as a participant sees them.
"""

from __future__ import annotations

import json

import pytest
from sqlmodel import select

from annotate.db import read_session, write_session
from annotate.db.tables import Participation
from annotate.domain.crowd.consent import ACCEPTED, DECLINED, ConsentError, completion_link
from annotate.domain.crowd.enrolment import EnrolmentError
from annotate.domain.exports.export import ratings_dataframe
from annotate.domain.study.studies import (
    DEFAULT_CROWD_QUOTA,
    StudyError,
    get_study,
    update_study,
)
from annotate.services.participant.consent import answer_survey, decide, participant_step
from annotate.services.participant.enrolment import enrol, start
from annotate.services.participant.rating import skip_pair
from annotate.services.participant.work import pull_next
from annotate.vocabulary import PROVENANCE_EXPORT_COLUMNS
from tests.helpers.admin_helpers import active_markdown, as_read, assignments, make_study, rate

PID = "5f1a2b3c4d5e6f7a8b9c0d1e"
SESSION = "6a7b8c9d0e1f2a3b4c5d6e7f"
CONSENT = "You will rate answers for about **20 minutes**. Your answers are anonymous."
QUESTIONS = [
    {"id": "age", "text": "Your age band", "kind": "choice", "options": ["18-29", "30-49", "50+"]},
    {"id": "language", "text": "Your first language", "kind": "text"},
]
PROLIFIC = "https://app.prolific.com/submissions/complete?cc={code}"


def _crowd(engine, **settings):
    settings.setdefault("overlap", 1)
    return make_study(engine, "crowd", pairs=3, pool_open=True, enrolment_open=True, **settings)


def _key(engine):
    with read_session(engine) as session:
        return get_study(session, "crowd").enrolment_key


def _visit(engine, pid=PID):
    return enrol(engine, study="crowd", key=_key(engine), participant_id=pid, session_id=SESSION)


def _link(engine):
    return {"study": "crowd", "key": _key(engine)}


def _participation(engine, annotator_id):
    with read_session(engine) as session:
        return session.exec(
            select(Participation).where(Participation.annotator_id == annotator_id)
        ).first()


# ---------------------------------------------------------------- settings


def test_a_new_study_has_every_design_option_off(engine):
    _crowd(engine)
    with read_session(engine) as session:
        study = get_study(session, "crowd")
    assert (study.consent_text, study.survey_questions, study.screenout_code) == ("", [], None)
    assert (study.completion_url, study.ask_preference, study.rationale) == (None, False, "off")
    visit = _visit(engine)
    assert participant_step(engine, visit.annotator_id, **_link(engine)).step == "ready"
    assert start(engine, visit.annotator_id, **_link(engine)) is not None


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (
            {"survey_questions": [{"id": "Age", "text": "x", "kind": "text"}]},
            "question 1, field 'id'",
        ),
        (
            {"survey_questions": [{"id": "a", "text": "x", "kind": "choice", "options": ["y"]}]},
            "question 1, field 'options': expected 2 or more",
        ),
        (
            {"survey_questions": [QUESTIONS[1], {**QUESTIONS[1], "text": "again"}]},
            "question 2, field 'id': 'language' is used twice",
        ),
        ({"survey_questions": [{"id": "a", "text": "", "kind": "scale"}]}, "field 'kind'"),
        ({"completion_url": "javascript:alert(1)"}, "completion URL: expected an https://"),
        ({"rationale": "sometimes"}, "rationale must be one of off, optional, required"),
    ],
)
def test_bad_design_settings_are_refused_with_their_place(engine, settings, message):
    _crowd(engine)
    with pytest.raises(StudyError, match=message), write_session(engine) as session:
        update_study(session, "crowd", **settings)
    with read_session(engine) as session:
        study = get_study(session, "crowd")
    assert (study.survey_questions, study.completion_url, study.rationale) == ([], None, "off")


def test_the_completion_link_carries_the_code():
    from annotate.db.tables import Study

    study = Study(name="x", seed=1, completion_url=PROLIFIC)
    assert completion_link(study, "C0DE 1") == (
        "https://app.prolific.com/submissions/complete?cc=C0DE%201"
    )
    assert completion_link(Study(name="y", seed=1), "C") is None


# ---------------------------------------------------------------- consent and survey


def test_start_waits_for_consent_and_the_decision_is_recorded_with_its_time(engine):
    _crowd(engine, consent_text=CONSENT)
    visit = _visit(engine)
    assert participant_step(engine, visit.annotator_id, **_link(engine)).step == "consent"
    with pytest.raises(EnrolmentError, match="consent"):
        start(engine, visit.annotator_id, **_link(engine))
    assert assignments(engine, 1) == []
    step = decide(engine, visit.annotator_id, accept=True, **_link(engine))
    assert step.step == "ready"
    record = _participation(engine, visit.annotator_id)
    assert record.consent == ACCEPTED
    assert record.consent_at is not None
    assert start(engine, visit.annotator_id, **_link(engine)) is not None
    decide(engine, visit.annotator_id, accept=False, **_link(engine))  # a late click: ignored
    assert _participation(engine, visit.annotator_id).consent == ACCEPTED


def test_declining_ends_with_the_screen_out_code_and_nothing_is_reserved(engine):
    _crowd(engine, consent_text=CONSENT, screenout_code="SCREENED", completion_url=PROLIFIC)
    visit = _visit(engine)
    step = decide(engine, visit.annotator_id, accept=False, **_link(engine))
    assert (step.step, step.screenout_code) == ("declined", "SCREENED")
    assert step.screenout_link == PROLIFIC.replace("{code}", "SCREENED")
    assert _participation(engine, visit.annotator_id).consent == DECLINED
    with pytest.raises(EnrolmentError, match="declined"):
        start(engine, visit.annotator_id, **_link(engine))
    decide(engine, visit.annotator_id, accept=True, **_link(engine))  # the first decision stands
    assert participant_step(engine, visit.annotator_id, **_link(engine)).step == "declined"
    assert assignments(engine, 1) == []


def test_the_survey_is_checked_stored_and_joined_to_the_export(engine):
    _crowd(engine, consent_text=CONSENT, survey_questions=QUESTIONS)
    visit = _visit(engine)
    with pytest.raises(ConsentError, match="consent"):
        answer_survey(engine, visit.annotator_id, answers={"age": "50+"}, **_link(engine))
    assert decide(engine, visit.annotator_id, accept=True, **_link(engine)).step == "survey"
    with pytest.raises(EnrolmentError, match="survey"):
        start(engine, visit.annotator_id, **_link(engine))
    with pytest.raises(ConsentError, match="please answer: Your age band"):
        answer_survey(engine, visit.annotator_id, answers={"age": "99"}, **_link(engine))
    answers = {"age": "30-49", "language": "  Welsh "}
    assert answer_survey(engine, visit.annotator_id, answers=answers, **_link(engine)).step == (
        "ready"
    )
    assert _participation(engine, visit.annotator_id).survey == {
        "age": "30-49",
        "language": "Welsh",
    }
    rate(engine, visit.annotator_id, start(engine, visit.annotator_id, **_link(engine)))
    other = _visit(engine, pid="0123456789abcdef01234567")  # enrolled, no survey yet
    frame = ratings_dataframe(engine, "crowd")
    design = list(frame.columns[: -len(PROVENANCE_EXPORT_COLUMNS)])
    assert design[-2:] == ["survey_age", "survey_language"]
    assert set(frame["survey_age"]) == {"30-49"}
    assert set(frame["survey_language"]) == {"Welsh"}
    assert len(frame) == 8
    assert other.annotator_id != visit.annotator_id


def test_the_survey_answers_are_on_the_participant_s_skip_rows_too(engine):
    """A survey answer is an annotator attribute: on every row of theirs, the row of a pair
    they skipped (no scores) too (found by the pilot's end-to-end test: empty there)."""
    study_id = _crowd(engine, survey_questions=QUESTIONS)
    visit = _visit(engine)
    answers = {"age": "50+", "language": "Basque"}
    answer_survey(engine, visit.annotator_id, answers=answers, **_link(engine))
    rate(engine, visit.annotator_id, start(engine, visit.annotator_id, **_link(engine)))
    second = pull_next(engine, visit.annotator_id, study_id)
    assert second is not None
    skip_pair(engine, annotator_id=visit.annotator_id, assignment_id=second, reason="not mine")
    frame = ratings_dataframe(engine, "crowd")
    assert frame["status"].tolist().count("skipped") == 1
    assert set(frame["survey_age"]) == {"50+"}
    assert set(frame["survey_language"]) == {"Basque"}
    design = list(frame.columns[: -len(PROVENANCE_EXPORT_COLUMNS)])
    assert design[-2:] == ["survey_age", "survey_language"]  # before the provenance, as always


def test_a_study_without_the_options_exports_the_fixed_columns(engine):
    from annotate.vocabulary import EXPORT_COLUMNS, PROVENANCE_EXPORT_COLUMNS

    _crowd(engine)
    visit = _visit(engine)
    rate(engine, visit.annotator_id, start(engine, visit.annotator_id, **_link(engine)))
    columns = EXPORT_COLUMNS + PROVENANCE_EXPORT_COLUMNS  # no design columns
    assert tuple(ratings_dataframe(engine, "crowd").columns) == columns


# ---------------------------------------------------------------- the pages (AppTest)


def _texts(at) -> str:
    parts = [m.value for m in at.markdown] + [as_read(e.value) for e in at.error]
    parts += [s.value for s in at.success] + [c.value for c in at.code]
    return "\n".join(str(p) for p in parts)


def _open_link(page_engine, open_page):
    return open_page(**_link(page_engine), PROLIFIC_PID=PID, SESSION_ID=SESSION)


def test_the_crowd_link_asks_consent_then_the_survey_then_start(page_engine, open_page):
    _crowd(page_engine, consent_text=CONSENT, survey_questions=QUESTIONS)
    at = _open_link(page_engine, open_page)
    assert "**20 minutes**" in _texts(at)
    shown = [b.key for b in at.button if not b.key.startswith("withdraw")]  # the sidebar's way out
    assert shown == ["consent_accept", "consent_decline"]
    at.button(key="consent_accept").click().run()
    assert at.title[0].value == "A few questions about you"
    at.button[0].click().run()  # Continue without answering the choice
    assert "please answer: Your age band" in _texts(at)
    assert assignments(page_engine, 1) == []
    at.radio(key="survey_age").set_value("50+")
    at.text_input(key="survey_language").input("Basque")
    at.button[0].click().run()
    assert not at.exception
    assert at.button(key="crowd_start")  # the Start page, nothing reserved yet
    assert assignments(page_engine, 1) == []
    at.button(key="crowd_start").click().run()
    assert any(m.value.startswith(f"**Pair 1 of {DEFAULT_CROWD_QUOTA}**") for m in at.markdown)
    record = _participation(page_engine, assignments(page_engine, 1)[0].annotator_id)
    assert (record.consent, record.survey) == (ACCEPTED, {"age": "50+", "language": "Basque"})


def test_an_error_quoting_a_question_shows_its_text_not_its_markup(page_engine, open_page):
    """The survey's questions are the organisers' text; an error naming one shows it as typed."""
    question = {**QUESTIONS[0], "text": "Your [age](https://example.org/x) ![band](x.png)"}
    _crowd(page_engine, consent_text=CONSENT, survey_questions=[question])
    at = _open_link(page_engine, open_page)
    at.button(key="consent_accept").click().run()
    at.button[0].click().run()  # Continue without answering
    [error] = [e.value for e in at.error]
    assert as_read(error) == "please answer: Your [age](https://example.org/x) ![band](x.png)"
    assert active_markdown(error) == set(), error


def test_declining_on_the_page_shows_the_screen_out_code_and_its_link(page_engine, open_page):
    _crowd(page_engine, consent_text=CONSENT, screenout_code="NOCONSENT", completion_url=PROLIFIC)
    at = _open_link(page_engine, open_page)
    at.button(key="consent_decline").click().run()
    assert "NOCONSENT" in _texts(at)
    target = PROLIFIC.replace("{code}", "NOCONSENT")
    assert [b.url for b in at.get("link_button")] == [target]
    # No script (the Content-Security-Policy would block it): the button is the way back.
    assert not [h for h in at.get("html") if target in str(h.proto)]
    assert assignments(page_engine, 1) == []
    again = _open_link(page_engine, open_page)  # coming back: still screened out
    assert "NOCONSENT" in _texts(again)
    assert not [b for b in again.button if b.key == "crowd_start"]


def test_the_done_page_gives_the_way_back_with_the_completion_code(page_engine, open_page):
    _crowd(page_engine, pool_quota=1, completion_code="FINISHED-1", completion_url=PROLIFIC)
    at = _open_link(page_engine, open_page)
    at.button(key="crowd_start").click().run()
    (item,) = assignments(page_engine, 1)
    rate(page_engine, item.annotator_id, item.id)
    at.run()
    assert "FINISHED-1" in _texts(at)
    target = PROLIFIC.replace("{code}", "FINISHED-1")
    assert [b.url for b in at.get("link_button")] == [target]
    assert not any(target in str(h.proto) for h in at.get("html"))  # a button, no redirect


def test_a_done_page_without_a_completion_url_shows_only_the_code(page_engine, open_page):
    _crowd(page_engine, pool_quota=1, completion_code="FINISHED-2")
    at = _open_link(page_engine, open_page)
    at.button(key="crowd_start").click().run()
    (item,) = assignments(page_engine, 1)
    rate(page_engine, item.annotator_id, item.id)
    at.run()
    assert "FINISHED-2" in _texts(at)
    assert at.get("link_button") == []


def test_the_admin_sets_the_design_options_on_the_studies_page(page_engine, open_page):
    from annotate.domain.study import accounts

    _crowd(page_engine)
    with write_session(page_engine) as session:
        _, token = accounts.create_account(session, "boss", role="admin")
    at = open_page(token, page="admin_studies.py", pick="crowd")
    with read_session(page_engine) as session:
        key = f"study_{get_study(session, 'crowd').id}"
    save = next(b for b in at.button if b.label == "Save settings")
    at.text_area(key=f"{key}_survey").input('[{"id": "age", "text": "Age",')
    save.click().run()
    assert "Survey questions, line 1, column" in _texts(at)
    at.text_area(key=f"{key}_consent").input(CONSENT)
    at.text_area(key=f"{key}_survey").input(json.dumps(QUESTIONS))
    at.text_input(key=f"{key}_screenout").input("OUT-2")
    at.text_input(key=f"{key}_completion_url").input(PROLIFIC)
    at.toggle(key=f"{key}_preference").set_value(True)
    at.selectbox(key=f"{key}_rationale").set_value("optional")
    next(b for b in at.button if b.label == "Save settings").click().run()
    next(b for b in at.button if b.label == "Confirm").click().run()  # shown what will change
    assert "Settings of crowd saved." in _texts(at)
    with read_session(page_engine) as session:
        study = get_study(session, "crowd")
    assert (study.consent_text, study.survey_questions) == (CONSENT, QUESTIONS)
    assert (study.screenout_code, study.completion_url) == ("OUT-2", PROLIFIC)
    assert (study.ask_preference, study.rationale) == (True, "optional")


def test_the_admin_s_texts_are_drawn_inert_on_the_consent_and_survey_pages(page_engine, open_page):
    hostile = '<img src=x onerror="window.__pwned=1">'
    question = {"id": "q", "text": f"Age {hostile}", "kind": "choice", "options": [hostile, "b"]}
    _crowd(page_engine, consent_text=f"Agree? {hostile}", survey_questions=[question])
    at = _open_link(page_engine, open_page)
    assert not any("<img" in m.value for m in at.markdown)
    at.button(key="consent_accept").click().run()
    radio = at.radio(key="survey_q")
    assert "<img" not in radio.label
    assert not any("<img" in option for option in radio.options)
    radio.set_value(hostile)
    at.button[0].click().run()
    assert at.button(key="crowd_start")
    record = _participation(page_engine, 1)
    assert record.survey == {"q": hostile}  # stored as given, drawn inert


def _people(engine) -> list[str]:
    from annotate.db.tables import Annotator

    with read_session(engine) as session:
        return [a.name for a in session.exec(select(Annotator))]


def test_a_visit_that_does_nothing_creates_no_account_consent_creates_it(page_engine, open_page):
    """Issue 24, item 7: an account is created only at the first deliberate action."""
    study_id = _crowd(page_engine, consent_text=CONSENT)
    before = _people(page_engine)
    at = _open_link(page_engine, open_page)
    assert [b.key for b in at.button] == ["consent_accept", "consent_decline"]
    at.run()  # a reload
    assert _people(page_engine) == before
    assert "token" not in at.query_params
    at.button(key="consent_accept").click().run()
    (account,) = [n for n in _people(page_engine) if n not in before]
    assert account == f"prolific:{PID}"
    with read_session(page_engine) as session:
        (found,) = session.exec(select(Participation)).all()
    assert found.consent == ACCEPTED
    assert assignments(page_engine, study_id) == []  # Start still to come


def test_without_a_consent_page_start_creates_the_account_and_reserves(page_engine, open_page):
    study_id = _crowd(page_engine)
    before = _people(page_engine)
    at = _open_link(page_engine, open_page)
    assert at.title[0].value == "Welcome"
    assert _people(page_engine) == before
    at.button(key="crowd_start").click().run()
    assert len(_people(page_engine)) == len(before) + 1
    assert [a.status for a in assignments(page_engine, study_id)] == ["pending"]
    assert not at.exception
