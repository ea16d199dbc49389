"""The training's practice pairs drawn by the pair component (issue 36, items 1 and 5), in
headless Chromium against a real `streamlit run` server with PRB_RATING_VIEW=component: a study
with two practice pairs, the aspect checklist and the direct preference with a required
rationale.

The practice pair asks what the rating page asks (scores, marks, preference, "Why?"), with the
same keys; its Submit records exactly what was entered (the `Training` row, by side) and the
same feedback follows (the training's own page: matched answers, the expected ones, the
explanations); the second practice pair opens empty; a missing answer is said inside the
component and nothing is recorded; axe finds no serious or critical violation on it (390x844).
Nothing the browser receives before an answer holds what is expected (the explanations, the
expected values come with the feedback only).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import col, select

from annotate.db import make_engine, read_session, write_session
from annotate.db.tables import Annotator, Training
from annotate.domain.study.studies import update_study
from annotate.services.admin.demo import set_up_demo
from support.appserver import AppServer
from tests.annotate.app.test_app_accessibility_browser import severe_findings
from tests.helpers.browser_helpers import (
    BROWSER_MARKS,
    LAPTOP,
    PHONE,
    SERVER_START_TIMEOUT_S,
    Recorder,
    add_annotator,
    screenshot_dir,
    settle,
)
from tests.helpers.component_entry import (
    PAIR,
    enter_by_keyboard,
    enter_by_pointer,
    filled_in,
    n_marks,
)
from tests.helpers.rating_entry import PairEntry

pytestmark = BROWSER_MARKS

WHY_1 = "Response B does not answer the question at all."
WHY_2 = "Both responses say the same; neither is better."
PRACTICE = [
    {
        "id": "basil",
        "question": "How do I keep basil alive indoors?",
        "rubric_aspects": [{"aspect": "Short steps", "evidence": "Asks for lists."}],
        "response_a": "Water it when the soil is dry and give it six hours of light.",
        "response_b": "Basil is a herb of the mint family.",
        "expected": {"relevance": {"A": 4, "B": 2}},
        "expected_aspects": {"A": [2], "B": [0]},
        "expected_preference": -2,
        "explanations": {"relevance": WHY_1},
    },
    {
        "id": "mint",
        "question": "Does mint spread in a garden?",
        "rubric_aspects": [{"aspect": "Plain words"}, {"aspect": "A warning"}],
        "response_a": "Yes, it spreads by runners; plant it in a pot.",
        "response_b": "Yes: its runners spread, so a pot is best.",
        "expected": {"factuality": {"A": 5, "B": 5}},
        "expected_preference": 0,
        "explanations": {"preference": WHY_2},
    },
]
DIMS = ("factuality", "relevance", "helpfulness", "rubric_alignment")


@dataclass
class World:
    engine: Any
    url: str
    shots: Path

    def open(self, page: Any, name: str) -> None:
        page.goto(f"{self.url}/?token={add_annotator(self.engine, 'demo', name)}")
        settle(page)
        page.get_by_text("Practice pair 1 of 2").wait_for()
        page.locator(f"{PAIR}[data-pair='demo:basil']").wait_for()


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    folder = tmp_path_factory.mktemp("component_training")
    db = folder / "training.db"
    engine = make_engine(str(db))
    set_up_demo(engine)
    with write_session(engine) as session:
        update_study(
            session,
            "demo",
            ask_preference=True,
            rationale="required",
            aspect_checklist=True,
            practice_pairs=PRACTICE,
        )
    server = AppServer(
        str(db), folder / "server.log", environment={"PRB_RATING_VIEW": "component"}
    ).start(timeout=SERVER_START_TIMEOUT_S)
    try:
        yield World(engine, server.url, screenshot_dir(folder / "shots"))
    finally:
        server.stop()
        engine.dispose()


FIRST = PairEntry(  # relevance of B is 3 where 2 is expected: 4 of the 5 expected answers match
    scores={(side, dim): (4 if side == "A" else 3) for side in "AB" for dim in DIMS},
    marks={("A", 0): 2, ("B", 0): 0},
    preference=1,  # A much better
    rationale="A answers; B does not.",
)
SECOND = PairEntry(
    scores={(side, dim): 5 for side in "AB" for dim in DIMS},
    marks={("A", 0): 1, ("B", 0): 2, ("A", 1): 0, ("B", 1): 1},
    preference=3,  # Tie
    rationale="The same advice.",
)


def _practice(engine: Any, name: str) -> dict[str, Any]:
    """The practice answers recorded for annotator `name` ({} before the first)."""
    with read_session(engine) as session:
        mine = select(Annotator.id).where(Annotator.name == name)
        row = session.exec(select(Training).where(col(Training.annotator_id).in_(mine))).first()
    return {} if row is None else row.practice


def _recorded(entry: PairEntry) -> dict[str, Any]:
    """What `answer_practice` records for `entry` (by side: practice pairs are made up)."""
    scores = {side: {dim: entry.scores[(side, dim)] for dim in DIMS} for side in "AB"}
    n = len(entry.marks) // 2
    marks = {side: [entry.marks[(side, i)] for i in range(n)] for side in "AB"}
    assert entry.preference is not None
    return {"scores": scores, "aspects": marks, "preference": entry.preference - 3}


def _without_time(answers: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in answers.items() if k not in ("at", "rationale")}


def test_the_practice_by_keyboard_then_by_mouse_with_its_feedback(world: World, new_page):
    page = new_page(LAPTOP)
    record = Recorder().attach(page)
    world.open(page, "trainee")
    assert n_marks(page) == 1
    assert page.locator(f"{PAIR} #prb-comment, {PAIR} #prb-flag, {PAIR} .skip-open").count() == 0
    assert "null" not in page.locator(PAIR).inner_text()  # (a part not drawn leaves no trace)
    record.snapshot(page, "practice 1")
    before = len(record.received)
    enter_by_keyboard(page, FIRST)  # digits from the first score to "Why?", as on a pair
    page.keyboard.press("Control+Enter")
    page.get_by_text("Practice pair 1: feedback").wait_for()
    page.get_by_text("Your answers matched 4 of 5 expected answers.").wait_for()
    page.get_by_text(WHY_1).wait_for()
    page.screenshot(path=str(world.shots / "component_practice_feedback.png"))
    received = b"".join(record.received[:before])
    assert WHY_1.encode() not in received  # nothing expected was sent before the answer
    assert b"expected" not in received.lower()
    assert _without_time(_practice(world.engine, "trainee")["basil"]) == _recorded(FIRST)
    assert _practice(world.engine, "trainee")["basil"]["rationale"] == FIRST.rationale

    page.get_by_role("button", name="Continue").click()
    page.get_by_text("Practice pair 2 of 2").wait_for()
    page.locator(f"{PAIR}[data-pair='demo:mint']").wait_for()
    settle(page)
    assert filled_in(page) == {}, "the second practice pair opened with the first's answers"
    assert n_marks(page) == 2
    enter_by_pointer(page, SECOND)
    page.get_by_role("button", name="Submit and see the feedback").click()
    page.get_by_text("Practice pair 2: feedback").wait_for()
    page.get_by_text("Your answers matched 3 of 3 expected answers.").wait_for()
    page.get_by_text(WHY_2).wait_for()
    assert _without_time(_practice(world.engine, "trainee")["mint"]) == _recorded(SECOND)
    assert record.label_leaks() == []


def test_a_missing_answer_is_said_in_the_component_and_nothing_is_recorded(world, new_page):
    page = new_page(PHONE)
    world.open(page, "trainee-missing")
    assert severe_findings(page, "practice pair (component)", "390x844") == []
    partial = PairEntry(scores=FIRST.scores, marks=FIRST.marks, preference=FIRST.preference)
    enter_by_pointer(page, partial)  # no rationale: it is required
    page.locator(f"{PAIR} button.submit").click()
    page.locator(f"{PAIR} .error").get_by_text("rationale", exact=False).wait_for()
    page.screenshot(path=str(world.shots / "component_practice_refused_phone.png"))
    assert page.get_by_text("Practice pair 1 of 2").is_visible()
    assert filled_in(page)["preference"] == "-2"
    assert _practice(world.engine, "trainee-missing") == {}
    enter_by_pointer(page, PairEntry(rationale="A answers."))
    page.locator(f"{PAIR} button.submit").click()
    page.get_by_text("Practice pair 1: feedback").wait_for()
    assert _without_time(_practice(world.engine, "trainee-missing")["basil"]) == _recorded(FIRST)
