"""Security 5 for reward models: hostile model output, model name, record id and comment stay
inert on the results page's Reward models and Label audit tabs (issue 13), in Chromium against
the production server.

The world: one hostile pair (tests/security/security_helpers.py) whose one annotator prefers the
rejected response (so it is in the label audit) with a hostile comment, and a pairwise judge
whose name and raw output carry active content.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from security_helpers import HOSTILE_ID, all_hostile_record, in_chromium, payloads, write_jsonl
from sqlmodel import select
from test_security_hostile_text import assert_inert, choose_in_sidebar

from annotate.db import make_engine, read_session, write_session
from annotate.db.tables import Assignment, stored_id
from annotate.domain.assignment import assign_pairs, study_pairs
from annotate.domain.study import accounts
from annotate.domain.study.permissions import SYSTEM
from annotate.domain.study.studies import get_study
from annotate.services.admin.data import import_files
from annotate.services.participant.rating import submit_rating
from annotate.services.results.reward_models import import_model
from annotate.vocabulary import DIMENSIONS, Role
from tests.helpers.browser_helpers import Recorder, settle, start_server

pytestmark = in_chromium

STUDY = "models"
MODEL = "judge<img src=x onerror=\"window.__pwned='model name'\">"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """(server url, researcher token)."""
    folder = tmp_path_factory.mktemp("models")
    db = folder / "models.db"
    engine = make_engine(str(db))
    path = write_jsonl(folder / "Society_and_Culture_test.jsonl", [all_hostile_record(HOSTILE_ID)])
    import_files(engine, SYSTEM, [path], study=STUDY)
    with write_session(engine) as session:
        annotator, _ = accounts.create_account(session, "ann")
        study = get_study(session, STUDY)
        assign_pairs(session, study, annotator, study_pairs(session, study))
        _, token = accounts.create_account(session, "rita", role=Role.RESEARCHER)
        annotator_id = stored_id(annotator)
    with read_session(engine) as session:
        assignment = session.exec(select(Assignment)).one()
    chosen_side = assignment.chosen_side
    other = "B" if chosen_side == "A" else "A"
    scores = {  # the rejected response wins on the rubric: the pair goes into the audit
        chosen_side: {dim: 1 if dim == "rubric_alignment" else 3 for dim in DIMENSIONS},
        other: {dim: 5 if dim == "rubric_alignment" else 3 for dim in DIMENSIONS},
    }
    submit_rating(
        engine,
        annotator_id=annotator_id,
        assignment_id=stored_id(assignment),
        scores=scores,
        seconds=4.0,
        comment=payloads("comment"),
    )
    judge = folder / "judge.jsonl"
    record = {"id": HOSTILE_ID, "pos_in_a": True, "prediction": "B", "parse_failed": False}
    judge.write_text(json.dumps({**record, "raw_output": payloads("raw_output")}) + "\n")
    import_model(engine, SYSTEM, [judge], study=STUDY, model=MODEL)
    server = start_server(db, folder / "server.log")
    try:
        yield server.url, token
    finally:
        server.stop()
        engine.dispose()


def test_the_reward_model_tabs_keep_hostile_text_inert(world, new_page):
    url, token = world
    page: Any = new_page()
    record = Recorder().attach(page)
    page.goto(f"{url}/?token={token}")
    settle(page)
    choose_in_sidebar(page, STUDY)  # a new session has no study picked
    page.get_by_role("heading", name="Reward models against the humans").wait_for()
    assert_inert(page, record, url, "Reward models tab")
    page.get_by_role("tab", name="Label audit").click()
    settle(page)
    page.locator(".st-key-audit_pair [data-testid='stSelectbox']").click()
    page.get_by_role("option").first.click()
    settle(page)
    page.get_by_text("(as the judge wrote it)", exact=False).wait_for()
    assert_inert(page, record, url, "Label audit drill-down")
    text = page.locator("[data-testid='stMain']").inner_text()
    for where in ("raw_output", "comment", "question", "chosen"):
        assert f"window.__pwned='{where} script'" in text, where  # shown, as text
