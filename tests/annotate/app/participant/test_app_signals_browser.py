"""Quality signals per rating (issue 34, point 6) in headless Chromium against a real
`streamlit run` server: an annotator scores a pair, leaves the tab for another twice, pastes
into the rationale and submits; the pair's row holds 2 focus losses and 1 paste, and the next
pair starts again from zero (its counts are never the first pair's). Nothing the page sent or
received holds a label ("chosen"/"rejected"): the hidden field carries the pair's token and two
counts only.

Playwright tells every page it has the focus; the test turns that emulation off (Chromium's
DevTools `Emulation.setFocusEmulationEnabled`), so bringing another tab to the front blurs the
rating page as it does for a person.

The fallback view ($PRB_RATING_VIEW=streamlit, `FALLBACK_VIEW`): the pair drawn with Streamlit's
widgets. The default view's counterpart: `test_app_pair_component_crowd_browser.py` (focus losses
and pastes stored with their pair, a new pair from zero) and `test_app_pair_component_browser.py`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from annotate.db import make_engine, read_session, write_session
from annotate.db.tables import Assignment
from annotate.domain.study.studies import update_study
from annotate.services.admin.demo import set_up_demo
from tests.helpers.browser_helpers import (
    BROWSER_MARKS,
    FALLBACK_VIEW,
    FULL_CHROMIUM,
    UI_TIMEOUT_MS,
    Recorder,
    add_annotator,
    current_assignment,
    settle,
    start_server,
    wait_for_pair,
)
from tests.helpers.rating_entry import enter_by_pointer, uniform

pytestmark = BROWSER_MARKS
BROWSER = FULL_CHROMIUM  # another tab takes the focus (the headless shell keeps every page focused)

PASTED = "Response B keeps to the steps this user asked for."


@dataclass
class World:
    engine: Any
    link: str


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    folder = tmp_path_factory.mktemp("signals")
    db = folder / "signals.db"
    engine = make_engine(str(db))
    set_up_demo(engine)
    with write_session(engine) as session:
        update_study(session, "demo", ask_preference=True, rationale="optional")
    server = start_server(db, folder / "server.log", FALLBACK_VIEW)
    try:
        yield World(engine, f"{server.url}/?token={add_annotator(engine, 'demo', 'ann')}")
    finally:
        server.stop()
        engine.dispose()


def _wait_for_signals(page: Any, expected: str) -> None:
    """Wait until the pair's hidden field holds `expected` ('pair:losses:pastes')."""
    try:
        page.wait_for_function(
            """(text) => { const box = document.querySelector(".st-key-pair_signals input");
                           return !!box && box.value === text; }""",
            arg=expected,
            timeout=UI_TIMEOUT_MS,
        )
    except Exception:
        shown = page.evaluate(
            """() => [...document.querySelectorAll(".st-key-pair_signals input")]
                     .map(box => box.value)"""
        )
        raise AssertionError(f"expected {expected!r}, the page holds {shown}") from None


def _front(page: Any) -> None:
    """The tab in front, with the focus (without focus emulation a new tab has none)."""
    page.bring_to_front()
    page.wait_for_function("() => document.hasFocus()", timeout=UI_TIMEOUT_MS)


def test_focus_losses_and_pastes_are_stored_with_their_pair(world, new_page):
    page = new_page(permissions=["clipboard-read", "clipboard-write"])
    record = Recorder().attach(page)
    page.goto(world.link)
    wait_for_pair(page, 1)
    # (after the page's navigation: the renderer of the app's address is a new one)
    page.context.new_cdp_session(page).send(
        "Emulation.setFocusEmulationEnabled", {"enabled": False}
    )
    first = current_assignment(page)
    _wait_for_signals(page, f"{first}:0:0")
    enter_by_pointer(page, uniform(0, score=3, mark=0, preference=4))
    other = page.context.new_page()  # the participant opens another tab (in front)...
    _wait_for_signals(page, f"{first}:1:0")
    _front(page)  # ... comes back, looks at the other tab again, and comes back
    other.bring_to_front()
    _wait_for_signals(page, f"{first}:2:0")
    _front(page)
    page.evaluate("(text) => navigator.clipboard.writeText(text)", PASTED)
    page.locator(".st-key-rationale textarea").click()
    page.keyboard.press("Control+V")
    _wait_for_signals(page, f"{first}:2:1")
    record.snapshot(page, "pair 1, counted")
    page.locator(".st-key-submit button").click()
    wait_for_pair(page, 2)
    second = current_assignment(page)
    _wait_for_signals(page, f"{second}:0:0")  # a new pair counts from zero
    settle(page)
    record.snapshot(page, "pair 2")
    with read_session(world.engine) as session:
        rated = session.get(Assignment, first)
        shown = session.get(Assignment, second)
    assert rated is not None
    assert shown is not None
    assert (rated.status, rated.focus_losses, rated.pastes) == ("done", 2, 1)
    assert rated.rationale == PASTED  # the text is the rationale's; the signal only counts
    assert (shown.focus_losses, shown.pastes) == (None, None)
    assert any(f"{first}:2:1".encode() in frame for frame in record.sent)  # sent with the submit
    assert record.label_leaks() == []


def test_the_page_script_survives_streamlit_s_sanitiser():
    """DOMPurify drops a script whose text holds '<' before a letter, '/' or '!' (a comment
    once read "<pair>:<losses>:<pastes>", and the page had no script at all)."""
    from annotate.app.keyboard import SCRIPT

    assert not re.search(r"<[/\w!]", SCRIPT.read_text(encoding="utf-8"))
