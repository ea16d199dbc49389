"""`prb-annotate studies create/edit` with the design options of issue 14 (consent, survey,
codes, completion URL, preference), and their refusals naming the file and the question."""

from __future__ import annotations

import json
import re
from pathlib import Path

from annotate.db import make_engine, read_session
from annotate.domain.study.studies import get_study

SURVEY = [
    {"id": "age", "text": "Your age band", "kind": "choice", "options": ["18-29", "30+"]},
    {"id": "domain", "text": "Your field", "kind": "text"},
]


def _study(db_url: str):
    engine = make_engine(db_url)
    try:
        with read_session(engine) as session:
            return get_study(session, "crowd")
    finally:
        engine.dispose()


def test_create_and_edit_a_study_with_every_design_option(run, db_url, tmp_path: Path):
    consent, survey = tmp_path / "consent.md", tmp_path / "survey.json"
    consent.write_text("Do you agree to **take part**?", encoding="utf-8")
    survey.write_text(json.dumps(SURVEY), encoding="utf-8")
    run(
        "studies", "create", "crowd", "--consent-file", str(consent), "--survey-file", str(survey),
        "--screenout-code", "OUT-1", "--completion-url",
        "https://app.prolific.com/submissions/complete?cc={code}",
        "--preference", "--rationale", "required",
    )  # fmt: skip
    study = _study(db_url)
    assert study.consent_text == "Do you agree to **take part**?"
    assert study.survey_questions == SURVEY
    assert (study.screenout_code, study.ask_preference, study.rationale) == (
        "OUT-1",
        True,
        "required",
    )
    shown = run("studies", "show", "crowd")
    assert re.search(r"survey questions\s+age, domain", shown)
    assert re.search(r"preference\s+asked, rationale required", shown)
    run("studies", "edit", "crowd", "--no-consent", "--no-preference", "--survey-file", "/dev/null",
        code=1)  # fmt: skip
    survey.write_text("[]", encoding="utf-8")
    run("studies", "edit", "crowd", "--no-consent", "--no-preference", "--survey-file", str(survey))
    study = _study(db_url)
    assert (study.consent_text, study.survey_questions, study.ask_preference) == ("", [], False)


def test_the_adjudication_threshold_is_set_on_create_and_edit(run, db_url):
    run("studies", "create", "crowd", "--adjudication-threshold", "2.5")
    assert _study(db_url).adjudication_threshold == 2.5
    assert re.search(r"adjudication threshold\s+2.5", run("studies", "show", "crowd"))
    run("studies", "edit", "crowd", "--adjudication-threshold", "-1", code=1)  # refused
    run("studies", "edit", "crowd", "--adjudication-threshold", "3")
    assert _study(db_url).adjudication_threshold == 3.0


def test_a_bad_survey_file_is_refused_with_its_place(run, db_url, tmp_path: Path):
    run("studies", "create", "crowd")
    survey = tmp_path / "survey.json"
    survey.write_text('[\n{"id": "age",\n', encoding="utf-8")
    assert f"{survey}, line 3: not JSON" in run(
        "studies", "edit", "crowd", "--survey-file", str(survey), code=1
    )
    survey.write_text(json.dumps([{"id": "age", "text": "Age", "kind": "choice"}]), "utf-8")
    out = run("studies", "edit", "crowd", "--survey-file", str(survey), code=1)
    assert "survey question 1, field 'options'" in out
    assert _study(db_url).survey_questions == []
    out = run("studies", "edit", "crowd", "--rationale", "maybe", code=1)
    assert "rationale must be one of off, optional, required" in out


def test_the_minimum_before_finish_is_set_on_create_and_edit(run, db_url):
    """`--finish-minimum` beside `--pool-quota` (issue 22.4): stored, shown, 0 goes back to the
    quota, and a minimum above the quota is refused with nothing changed."""
    run("studies", "create", "crowd", "--pool", "--pool-quota", "6", "--finish-minimum", "4")
    study = _study(db_url)
    assert (study.pool_quota, study.finish_minimum) == (6, 4)
    assert re.search(r"pairs before Finish\s+4", run("studies", "show", "crowd"))
    refused = run("studies", "edit", "crowd", "--finish-minimum", "7", code=1)
    assert "cannot exceed the pairs per person (6)" in refused
    assert _study(db_url).finish_minimum == 4
    run("studies", "edit", "crowd", "--finish-minimum", "0")
    assert _study(db_url).finish_minimum is None
    assert re.search(r"pairs before Finish\s+the pool quota", run("studies", "show", "crowd"))
