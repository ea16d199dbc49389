"""What the crowd-operations and security work added to the rating page, with the pair drawn by
our own component (issue 36, item 5), in headless Chromium against a real `streamlit run` server
with PRB_RATING_VIEW=component: the demo as a crowd study (its pairs from the open pool) with a
practice pair, the aspect checklist, the direct preference with an optional rationale and an
instructed-response check after the first pair; and the same pairs with the same questions in a
study of accounts with a login link ("plain").

- A participant by keyboard alone: each step puts the focus where the work goes on (the
  practice pair's first question, Continue, Start, each pair's first question, the first
  missing answer after a refused Submit); the quality signals (two focus losses, one paste into
  the rationale) are stored with their pair and the next pair counts from zero; the check comes
  between pairs, a wrong answer is warned above the next pair and stored; Withdraw is in the
  side panel and Log out ends the session. An annotator with a login link has no Withdraw.
- axe finds no serious or critical violation on a pair with data (aspects on) at 1366x768 and
  390x844, every control of the component has a name, and Tab walks them in reading order.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import select

from annotate.db import make_engine, read_session, write_session
from annotate.db.tables import Assignment, CheckAnswer
from annotate.domain.crowd.checks import WARNING
from annotate.domain.study.permissions import SYSTEM
from annotate.domain.study.studies import get_or_create_study, update_study
from annotate.services.admin import studies
from annotate.services.admin.data import import_files
from annotate.services.admin.demo import demo_data_folder, set_up_demo
from support.appserver import AppServer
from tests.annotate.app.test_app_accessibility_browser import severe_findings
from tests.annotate.domain.crowd.test_training import PRACTICE_PAIRS
from tests.helpers.browser_helpers import (
    BROWSER_MARKS,
    FULL_CHROMIUM,
    LAPTOP,
    PHONE,
    SERVER_START_TIMEOUT_S,
    UI_TIMEOUT_MS,
    Recorder,
    add_annotator,
    screenshot_dir,
    settle,
)
from tests.helpers.component_entry import (
    FOCUSED,
    PAIR,
    enter_by_keyboard,
    n_marks,
    shown,
    wait_focus_in,
    wait_other,
)
from tests.helpers.rating_entry import PairEntry, uniform

pytestmark = BROWSER_MARKS
BROWSER = FULL_CHROMIUM  # another tab takes the focus (the headless shell keeps every page focused)

CHECK = {
    "text": "For this item, select Somewhat.",
    "options": ["Not at all", "Somewhat", "Very much"],
    "expected": "Somewhat",
    "after": 1,
}
PASTED = "Response B keeps to the steps this user asked for."
FIRST_QUESTION = "fieldset.q[data-side='A'][data-key='factuality']"
FOCUS_IN = "(sel) => !!document.activeElement?.closest(sel)"


@dataclass
class World:
    engine: Any
    url: str
    link: str  # the crowd link, with the platform's placeholders
    shots: Path

    def participant(self, number: int) -> str:
        ids = {"PROLIFIC_PID": f"5f1a2b3c4d5e6f7a8b9c0d{number:02d}", "STUDY_ID": "s1",
               "SESSION_ID": f"6a7b8c9d0e1f2a3b4c5d6e{number:02d}"}  # fmt: skip
        link = self.link
        for name, value in ids.items():
            link = link.replace(f"{{{{%{name}%}}}}", value)
        return link


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    folder = tmp_path_factory.mktemp("component_crowd")
    db = folder / "crowd.db"
    engine = make_engine(str(db))
    set_up_demo(engine)
    with write_session(engine) as session:
        update_study(
            session,
            "demo",
            pool_open=True,
            enrolment_open=True,
            overlap=3,
            aspect_checklist=True,
            ask_preference=True,
            rationale="optional",
            practice_pairs=PRACTICE_PAIRS[:1],
            instructed_checks=[CHECK],
        )
        get_or_create_study(session, "plain", seed=7)  # for accounts with a login link
    import_files(engine, SYSTEM, sorted(demo_data_folder().glob("*.jsonl")), study="plain")
    with write_session(engine) as session:  # the same questions, no training
        update_study(
            session, "plain", aspect_checklist=True, ask_preference=True, rationale="optional"
        )
    link = studies.study_enrolment_link(engine, SYSTEM, "demo", "BASE")
    server = AppServer(
        str(db), folder / "server.log", environment={"PRB_RATING_VIEW": "component"}
    ).start(timeout=SERVER_START_TIMEOUT_S)
    try:
        yield World(engine, server.url, link.replace("BASE", server.url), screenshot_dir(folder))
    finally:
        server.stop()
        engine.dispose()


def _focus_in_page(page: Any, selector: str) -> None:
    """The focus on a Streamlit element of the page (outside the component)."""
    page.wait_for_function(FOCUS_IN, arg=selector, timeout=UI_TIMEOUT_MS)


def _front(page: Any) -> None:
    page.bring_to_front()
    page.wait_for_function("() => document.hasFocus()", timeout=UI_TIMEOUT_MS)


def _practice_by_keyboard(page: Any) -> None:
    page.get_by_role("heading", name="Practice pair 1 of 1").wait_for()
    wait_focus_in(page, FIRST_QUESTION)  # the step's first question, not the page's top
    enter_by_keyboard(page, _answers_only(uniform(n_marks(page), score=4, mark=1, preference=2)))
    page.keyboard.press("Control+Enter")
    page.get_by_role("heading", name="Practice pair 1: feedback").wait_for()
    _focus_in_page(page, ".st-key-practice_continue")
    page.keyboard.press("Enter")
    page.get_by_role("heading", name="Welcome").wait_for()
    _focus_in_page(page, ".st-key-crowd_start")
    page.keyboard.press("Enter")


def _answers_only(entry: PairEntry) -> PairEntry:
    """The entry's answers, its boxes left as they are."""
    return PairEntry(scores=entry.scores, marks=entry.marks, preference=entry.preference)


def _losses_and_pastes(engine: Any, assignment_id: int) -> tuple[int | None, int | None]:
    with read_session(engine) as session:
        row = session.get(Assignment, assignment_id)
    assert row is not None
    return row.focus_losses, row.pastes


def test_a_participant_by_keyboard_signals_check_withdraw_and_log_out(world: World, new_page):
    page = new_page(LAPTOP, permissions=["clipboard-read", "clipboard-write"])
    record = Recorder().attach(page)
    page.goto(world.participant(1))
    settle(page)
    page.locator(".st-key-crowd_begin button").click()
    _practice_by_keyboard(page)
    page.get_by_text(re.compile(r"^Pair 1 of \d+")).first.wait_for()
    first = shown(page)
    wait_focus_in(page, FIRST_QUESTION)
    # Playwright tells every page it has the focus: turned off, another tab blurs this one.
    page.context.new_cdp_session(page).send(
        "Emulation.setFocusEmulationEnabled", {"enabled": False}
    )
    page.keyboard.press("Control+Enter")  # nothing given: refused, the focus on what is missing
    page.locator(f"{PAIR} .error").get_by_text("Please give every score").wait_for()
    wait_focus_in(page, FIRST_QUESTION)
    enter_by_keyboard(page, _answers_only(uniform(n_marks(page), score=3, mark=2, preference=4)))
    other = page.context.new_page()  # another tab in front, then back, twice: two losses
    page.wait_for_function("() => !document.hasFocus()", timeout=UI_TIMEOUT_MS)
    _front(page)
    other.bring_to_front()
    page.wait_for_function("() => !document.hasFocus()", timeout=UI_TIMEOUT_MS)
    _front(page)
    page.evaluate("(text) => navigator.clipboard.writeText(text)", PASTED)
    page.locator(f"{PAIR} #prb-rationale").click()
    page.keyboard.press("Control+V")
    page.wait_for_function(
        "() => (" + FOCUSED + ")().value.length > 0", timeout=UI_TIMEOUT_MS
    )  # pasted
    page.keyboard.press("Control+Enter")

    # The check between pairs, answered wrong: stored, and warned above the next pair.
    form = page.locator("[data-testid='stForm']")
    form.get_by_text(CHECK["text"]).wait_for()
    settle(page)  # the run's end: until then the pair's element may still be on the page
    assert page.locator(PAIR).count() == 0
    form.get_by_text("Not at all", exact=True).click()
    page.locator(".st-key-check_submit button").click()
    page.get_by_text(WARNING).wait_for()
    second = wait_other(page, first)
    wait_focus_in(page, FIRST_QUESTION)  # the new pair's first question
    assert _losses_and_pastes(world.engine, first) == (2, 1)
    assert _losses_and_pastes(world.engine, second) == (None, None)
    with read_session(world.engine) as session:
        (answer,) = session.exec(select(CheckAnswer)).all()
    assert (answer.answer, answer.passed) == ("Not at all", False)
    record.snapshot(page, "pair 2")
    assert any(f"{first}:2:1".encode() in frame for frame in record.sent)  # with its submit
    assert record.label_leaks() == []

    # Withdraw is the participant's (in the side panel); Log out ends the session.
    page.get_by_role("button", name="Expand sidebar").click()
    page.get_by_text("Withdraw from this study").wait_for()
    page.get_by_role("button", name="Log out").click()
    page.get_by_text("You are logged out").wait_for()
    settle(page)
    assert page.locator(PAIR).count() == 0
    other.close()


def test_an_annotator_with_a_login_link_has_no_withdraw(world: World, new_page):
    page = new_page(LAPTOP)
    page.goto(f"{world.url}/?token={add_annotator(world.engine, 'plain', 'linked')}")
    settle(page)
    shown(page)
    expand = page.get_by_role("button", name="Expand sidebar")
    if expand.count():
        expand.click()
    settle(page)
    assert page.get_by_text("Withdraw from this study").count() == 0
    page.get_by_role("button", name="Log out").wait_for()


# The component's controls in Tab order: (tag, name or label, type) of each Tab stop.
TAB_STOPS = """() => { const a = (FOCUSED)(); if (!a) return null;
    const host = a.getRootNode().host;
    if (!host || !host.shadowRoot.querySelector('.prb-pair')) return ['page', a.tagName, ''];
    const label = a.getAttribute('aria-label') || a.name || a.id
        || a.innerText || a.textContent || '';
    return [a.tagName.toLowerCase(), label.trim().slice(0, 40), a.type || '']; }""".replace(
    "FOCUSED", FOCUSED
)


@pytest.mark.parametrize("size", ["1366x768", "390x844"])
def test_axe_names_and_tab_order_on_a_pair_with_aspects(world: World, new_page, size: str):
    page = new_page(LAPTOP if size == "1366x768" else PHONE)
    page.goto(f"{world.url}/?token={add_annotator(world.engine, 'plain', f'axe-{size}')}")
    settle(page)
    shown(page)
    wait_focus_in(page, FIRST_QUESTION)
    page.screenshot(path=str(world.shots / f"component_crowd_pair_{size}.png"))
    page.locator(f"{PAIR} .aspects").scroll_into_view_if_needed()
    page.screenshot(path=str(world.shots / f"component_crowd_aspects_{size}.png"))
    assert severe_findings(page, "pair component with aspects", size) == []
    if size == "390x844":  # each question's choices in one row, within the screen
        rows = page.locator(f"{PAIR} fieldset.q").evaluate_all(
            """all => all.map(g => [...g.querySelectorAll("label.opt")].map(l => {
                const r = l.getBoundingClientRect(); return [r.top, r.bottom, r.right]; }))"""
        )
        for labels in rows:
            assert max(top for top, _, _ in labels) < min(bottom for _, bottom, _ in labels)
            assert max(right for _, _, right in labels) <= 390, labels
    unnamed = page.locator(PAIR).evaluate(
        """root => [...root.querySelectorAll('input, textarea, button, [tabindex]')]
            .filter(el => !(el.labels && el.labels.length) && !el.getAttribute('aria-label')
                          && !el.innerText.trim() && !el.closest('label'))
            .map(el => el.outerHTML.slice(0, 80))"""
    )
    assert unnamed == []
    n = n_marks(page)
    stops = []
    page.locator(f"{PAIR} .response").first.focus()
    for _ in range(60):
        stop = page.evaluate(TAB_STOPS)
        if stop[0] == "page" or (stops and stop == stops[0]):
            break
        stops.append(stop)
        page.keyboard.press("Tab")
    names = [stop[1] for stop in stops]
    questions = ["factuality", "relevance", "helpfulness", "rubric_alignment"]
    expected = ["Response A", *(f"A__{q}" for q in questions)]
    expected += ["Response B", *(f"B__{q}" for q in questions)]
    expected += [f"aspect_{side}_{i}" for i in range(n) for side in "AB"]
    expected += ["preference", "prb-rationale", "prb-comment", "prb-flag"]
    expected += ["Submit and go to the next pair", "Skip this pair"]
    assert names == expected
