"""The aspect checklist drawn by the pair component (issue 36, item 1), in headless Chromium
against a real `streamlit run` server with PRB_RATING_VIEW=component, on the demo study with the
aspect checklist and the direct preference with an optional rationale.

The marks are stored as the Streamlit view stores them (one `AspectMark` per aspect and
response, by the side the page showed); by mouse and by keyboard alone (the digits 0-2 answer a
mark and move on, in the page's order: A's scores, B's, each aspect's A then B, the preference);
a missing mark is named and outlined and nothing is saved; nothing the browser receives says
which response is chosen, and the checklist's data is the same whichever side holds it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from annotate.app.participant.pair_component import pair_data
from annotate.db import make_engine, write_session
from annotate.db.tables import Assignment
from annotate.domain.rating.queue import pair_view
from annotate.domain.study.studies import update_study
from annotate.services.admin.demo import set_up_demo
from annotate.vocabulary import DIMENSIONS, SIDES
from support.appserver import AppServer
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
    NOTHING,
    PAIR,
    as_stored,
    enter_by_keyboard,
    enter_by_pointer,
    filled_in,
    mark_group,
    n_marks,
    shown,
    stored,
    wait_other,
)
from tests.helpers.rating_entry import PairEntry

pytestmark = BROWSER_MARKS


@dataclass
class World:
    engine: Any
    url: str
    shots: Path

    def open(self, page: Any, name: str) -> int:
        page.goto(f"{self.url}/?token={add_annotator(self.engine, 'demo', name)}")
        settle(page)
        return shown(page)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    folder = tmp_path_factory.mktemp("component_aspects")
    db = folder / "aspects.db"
    engine = make_engine(str(db))
    set_up_demo(engine)
    with write_session(engine) as session:
        update_study(
            session, "demo", aspect_checklist=True, ask_preference=True, rationale="optional"
        )
    server = AppServer(
        str(db), folder / "server.log", environment={"PRB_RATING_VIEW": "component"}
    ).start(timeout=SERVER_START_TIMEOUT_S)
    try:
        yield World(engine, server.url, screenshot_dir(folder / "shots"))
    finally:
        server.stop()
        engine.dispose()


def entry(n_aspects: int, shift: int, **texts: str) -> PairEntry:
    """Different on every score, mark and side (a swapped side, question or aspect cannot
    pass), and for every `shift` (a value carried to another pair cannot pass)."""
    return PairEntry(
        scores={
            (side, dim): (index + 2 * s + shift) % 5 + 1
            for s, side in enumerate(SIDES)
            for index, dim in enumerate(DIMENSIONS)
        },
        marks={
            (side, i): (i + s + shift) % 3 for s, side in enumerate(SIDES) for i in range(n_aspects)
        },
        preference=shift % 5 + 1,
        **texts,
    )


def test_marks_by_mouse_are_stored_by_response_and_nothing_says_which_is_chosen(
    world: World, new_page
):
    page = new_page(LAPTOP)
    record = Recorder().attach(page)
    current = world.open(page, "aspects-mouse")
    seen = []
    for number in range(3):
        n = n_marks(page)
        assert n >= 1
        assert filled_in(page) == {}, f"pair {number + 1} opened with another pair's values"
        given = entry(n, number, rationale=f"why {number}", comment=f"c{number}")
        enter_by_pointer(page, given)
        record.snapshot(page, f"pair {number + 1}")
        page.locator(f"{PAIR} button.submit").click()
        seen.append((current, given))
        current = wait_other(page, current)
    for assignment_id, given in seen:
        assert stored(world.engine, assignment_id) == as_stored(given)
    assert len(record.received) > 10, "the websocket frames were not recorded"
    assert record.label_leaks() == []
    assert b"chosen_side" not in b"".join(record.received)
    for assignment_id, _ in seen:  # drawn with its saved marks: the same data either way
        as_drawn, swapped = _both_ways(world.engine, assignment_id)
        assert as_drawn["aspects"] is not None
        assert as_drawn["aspects"] == swapped["aspects"]
        marks = as_drawn["saved"]["marks"]
        assert swapped["saved"]["marks"] == {"A": marks["B"], "B": marks["A"]}


def _both_ways(engine: Any, assignment_id: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """The component's data for the pair as drawn, and with the chosen side swapped."""
    with write_session(engine) as session:
        assignment = session.get(Assignment, assignment_id)
        assert assignment is not None
        annotator = assignment.annotator_id
        as_drawn = pair_data(pair_view(session, annotator, assignment_id), [])
        assignment.chosen_side = "B" if assignment.chosen_side == "A" else "A"
        session.flush()
        swapped = pair_data(pair_view(session, annotator, assignment_id), [])
        assignment.chosen_side = "B" if assignment.chosen_side == "A" else "A"
    return as_drawn, swapped


def test_marks_by_keyboard_alone(world: World, new_page):
    """Digits only, from the first score to the preference: the focus moves from the last
    score to the first aspect's Response A, through every mark, to the preference and "Why?";
    Ctrl+Enter sends it."""
    page = new_page(LAPTOP)
    current = world.open(page, "aspects-keys")
    rated = []
    for number in range(2):
        given = entry(n_marks(page), number + 3, rationale=f"reason {number}")
        enter_by_keyboard(page, given)
        page.keyboard.press("Control+Enter")
        rated.append((current, given))
        current = wait_other(page, current)
    for assignment_id, given in rated:
        assert stored(world.engine, assignment_id) == as_stored(given)


def test_a_keyboard_pass_needs_no_tab(world: World, new_page):
    """The order the digits walk: after the last score the focus is on aspect 1's Response A,
    then its Response B, then aspect 2's A..."""
    page = new_page(LAPTOP)
    world.open(page, "aspects-order")
    walked = []
    groups = page.locator(f"{PAIR} fieldset.q").count()
    for _ in range(groups):
        walked.append(page.evaluate(_FOCUSED_NAME))
        page.keyboard.press("1")
    n = n_marks(page)
    scores = [f"{side}__{dim}" for side in SIDES for dim in DIMENSIONS]
    marks = [f"aspect_{side}_{i}" for i in range(n) for side in SIDES]
    assert walked == [*scores, *marks, "preference"]
    assert page.evaluate(_FOCUSED_ID) == "prb-rationale"


_DEEP = """let a = document.activeElement;
    while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;"""
_FOCUSED_NAME = "() => { " + _DEEP + " return a ? a.name : null; }"
_FOCUSED_ID = "() => { " + _DEEP + " return a ? a.id : null; }"


def test_a_missing_mark_is_named_and_nothing_is_saved(world: World, new_page):
    page = new_page(LAPTOP)
    current = world.open(page, "aspects-missing")
    n = n_marks(page)
    full = entry(n, 1)
    partial = PairEntry(
        scores=full.scores,
        marks={k: v for k, v in full.marks.items() if k != ("B", n - 1)},
        preference=full.preference,
    )
    enter_by_pointer(page, partial)
    page.locator(f"{PAIR} button.submit").click()
    page.locator(f"{PAIR} .error").get_by_text(f"Aspect {n}, Response B").wait_for()
    assert shown(page) == current
    assert page.locator(f"{PAIR} fieldset.q.missing").count() == 1
    assert mark_group(page, "B", n - 1).get_attribute("class") == "q aspect missing"
    assert stored(world.engine, current) == NOTHING
    enter_by_pointer(page, PairEntry(marks={("B", n - 1): full.marks[("B", n - 1)]}))
    page.locator(f"{PAIR} button.submit").click()
    wait_other(page, current)
    assert stored(world.engine, current) == as_stored(full)


@pytest.mark.parametrize("size", ["laptop", "phone"])
def test_screenshots_of_the_checklist(world: World, new_page, size: str):
    """For a person to look at: the checklist under the responses at 1366x768 (one row per
    aspect) and 390x844 (stacked, each mark's side and aspect named)."""
    page = new_page(LAPTOP if size == "laptop" else PHONE)
    world.open(page, f"aspects-shots-{size}")
    page.locator(f"{PAIR} .aspects").scroll_into_view_if_needed()
    page.screenshot(path=str(world.shots / f"component_aspects_{size}.png"))
    legend = mark_group(page, "A", 0).locator("legend")
    assert legend.inner_text() == "Response A, aspect 1"
    box = legend.bounding_box()  # on a laptop, clipped to a point (read, not shown)
    assert box is not None
    assert (box["width"] > 20) == (size == "phone")


def test_marks_are_kept_in_the_tab_through_a_reload(world: World, new_page):
    """The outbox (issue 36.4) keeps the marks with the other entries: a reload draws the pair
    with them; sent, they are stored as entered."""
    page = new_page(LAPTOP)
    current = world.open(page, "aspects-reload")
    given = entry(n_marks(page), 2, comment="kept")
    enter_by_pointer(page, given)
    page.reload()
    settle(page)
    assert shown(page) == current
    kept = filled_in(page)
    for (side, index), mark in given.marks.items():
        assert kept.get(f"aspect_{side}_{index}") == str(mark), kept
    page.locator(f"{PAIR} button.submit").click()
    wait_other(page, current)
    assert stored(world.engine, current) == as_stored(given)
