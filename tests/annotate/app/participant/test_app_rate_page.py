"""The rating page in headless Chromium: where the eye and the focus go, keyboard rating, long
texts, and screenshots at three screen sizes (issue 11), with the pair drawn by the pair
component, the default view (issue 36, item 5).

One server for the module, on a fresh SQLite file holding the demo study and a one-pair study
whose response is a single 200,000-character word under a heading that imitates the page's own.
Screenshots go to $PRB_SCREENSHOT_DIR when set, else to a pytest temp folder.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import select

from annotate.db import make_engine, read_session, write_session
from annotate.db.tables import Annotator, Assignment, Rating
from annotate.domain.study import accounts
from annotate.domain.study.permissions import SYSTEM
from annotate.domain.study.studies import get_or_create_study
from annotate.services.admin.data import import_files
from annotate.services.admin.demo import set_up_demo
from tests.annotate.app.test_app_browser import pair_texts
from tests.helpers.apptest_helpers import SCORES, expected_scores, stored_ratings, stored_scores
from tests.helpers.browser_helpers import (
    BROWSER_MARKS,
    DESKTOP,
    LAPTOP,
    PHONE,
    UI_TIMEOUT_MS,
    add_annotator,
    current_assignment,
    next_frame,
    screenshot_dir,
    settle,
    start_server,
    wait_for_pair,
)
from tests.helpers.component_entry import PAIR, wait_focus_in, wait_other

pytestmark = BROWSER_MARKS

GROUPS = [(side, dim) for side in ("A", "B") for dim in SCORES["A"]]  # page order
LONG_WORD = "y" * 200_000


@dataclass
class World:
    engine: Engine
    tokens: dict[str, str]
    url: str
    shots: Path

    def link(self, who: str) -> str:
        return f"{self.url}/?token={self.tokens[who]}"


def _long_word_dataset(folder: Path, word: str = LONG_WORD) -> Path:
    record = {
        "id": "long_1",
        "question": "Is a very long word a problem?",
        "profile": [{"id": "p1", "category": "words", "text": "I like words."}],
        "rubric_aspects": [{"aspect": "Short", "evidence": "said so", "reason": "reads fast"}],
        "narrative": "A narrative.",
        "category": "words",
        "chosen": f"# Response B\n\n{word}",
        "rejected": "Your scores\n===========\n\nA short answer.",
    }
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "Society_and_Culture_test.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    folder = tmp_path_factory.mktemp("rate_page")
    db = folder / "rate.db"
    engine = make_engine(str(db))
    set_up_demo(engine)
    names = ("focus", "missing", "keys", "shots", "stale")
    tokens = {name: add_annotator(engine, "demo", name) for name in names}
    with write_session(engine) as session:
        get_or_create_study(session, "long", seed=3)
    import_files(engine, SYSTEM, [_long_word_dataset(folder / "long")], study="long")
    tokens["long"] = add_annotator(engine, "long", "long")
    with write_session(engine) as session:
        study = get_or_create_study(session, "pref", seed=5)
        study.ask_preference, study.rationale = True, "optional"
    short = _long_word_dataset(folder / "pref", word="short")
    import_files(engine, SYSTEM, [short], study="pref")
    tokens["pref"] = add_annotator(engine, "pref", "pref")
    server = start_server(db, folder / "server.log")
    try:
        yield World(engine, tokens, server.url, screenshot_dir(folder / "shots"))
    finally:
        server.stop()
        engine.dispose()


def open_pair(page: Any, url: str, number: int = 1, total: int = 27) -> None:
    page.goto(url)
    settle(page)
    wait_for_pair(page, number, total)
    current_assignment(page)  # the component has drawn its pair


def group(side: str, dim: str) -> str:
    """A score question's fieldset in the component."""
    return f"fieldset.q[data-side='{side}'][data-key='{dim}']"


def in_viewport(page: Any, locator: Any) -> bool:
    box = locator.bounding_box()
    height = page.viewport_size["height"]
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height


def press_scores(page: Any, scores: dict[str, dict[str, int]]) -> int:
    """Type the 8 scores as digits, from the focused first group (each digit moves the focus
    on to the next group); return the keys pressed."""
    presses = 0
    for side, dim in GROUPS:
        wait_focus_in(page, group(side, dim))
        page.keyboard.press(str(scores[side][dim]))
        presses += 1
    return presses


def test_after_a_submit_the_next_pair_opens_at_its_top_with_the_focus_on_its_first_score(
    world: World, new_page
):
    page = new_page(LAPTOP)
    open_pair(page, world.link("focus"))
    wait_focus_in(page, group(*GROUPS[0]))  # a fresh page too
    first = current_assignment(page)
    press_scores(page, SCORES)
    submit = page.locator(f"{PAIR} button.submit")
    submit.scroll_into_view_if_needed()
    submit.click()  # by mouse, from the bottom of the page
    wait_for_pair(page, 2)
    wait_other(page, first)
    wait_focus_in(page, group(*GROUPS[0]))
    saved = page.get_by_text("Pair 1 saved.")
    page.wait_for_function(
        "() => document.querySelector(\"[data-testid='stMain']\").scrollTop === 0"
    )
    assert in_viewport(page, saved)
    page.screenshot(path=str(world.shots / "rate_after_submit_1366.png"))
    assert in_viewport(page, page.get_by_text("Pair 2 of 27", exact=True))
    assert in_viewport(page, page.locator(f"{PAIR} .context"))
    # Both responses start on the first screen of a 1366x768 laptop, under the context.
    for side in ("A", "B"):
        heading = page.get_by_role("heading", name=f"Response {side}", exact=True)
        assert heading.bounding_box()["y"] < LAPTOP["height"]
    _, chosen_side = pair_texts(world.engine, first)
    assert stored_scores(world.engine, first) == expected_scores(chosen_side)
    # Scores of a new pair start empty: nothing carried over from the pair before.
    assert page.locator(f"{PAIR} fieldset.q input:checked").count() == 0


def test_a_missing_score_error_is_in_view_and_marks_the_empty_groups(world: World, new_page):
    page = new_page(LAPTOP)
    open_pair(page, world.link("missing"))
    assignment = current_assignment(page)
    wait_focus_in(page, group(*GROUPS[0]))
    for digit in "345":  # three of eight
        page.keyboard.press(digit)
    page.keyboard.press("Control+Enter")
    error = page.locator(f"{PAIR} .error")
    error.get_by_text("Please give every score before submitting", exact=False).wait_for()
    page.wait_for_function(
        """(error) => { const r = error.getBoundingClientRect();
                        return r.top >= 0 && r.bottom <= window.innerHeight; }""",
        arg=error.element_handle(),
        timeout=UI_TIMEOUT_MS,
    )
    missing = page.locator(f"{PAIR} fieldset.q.missing")
    marked = [(m.get_attribute("data-side"), m.get_attribute("data-key")) for m in missing.all()]
    assert marked == GROUPS[3:]
    wait_focus_in(page, group(*GROUPS[3]))  # the first empty group, ready for a digit
    assert stored_ratings(world.engine, assignment) == []
    page.screenshot(path=str(world.shots / "rate_missing_scores_1366.png"))


def test_a_pair_rated_and_submitted_by_keyboard_alone_in_nine_presses(world: World, new_page):
    page = new_page(LAPTOP)
    open_pair(page, world.link("keys"))
    first = current_assignment(page)
    wait_focus_in(page, group(*GROUPS[0]))
    page.keyboard.press("Tab")  # one Tab stop per group: Tab reaches the next group
    wait_focus_in(page, group(*GROUPS[1]))
    page.keyboard.press("Shift+Tab")
    wait_focus_in(page, group(*GROUPS[0]))

    presses = press_scores(page, SCORES)
    wait_focus_in(page, "button.submit")  # after the last group, the focus is on Submit
    page.keyboard.press("Enter")
    presses += 1
    wait_for_pair(page, 2)
    wait_other(page, first)
    wait_focus_in(page, group(*GROUPS[0]))
    assert presses == 9  # the target: at most 12
    _, chosen_side = pair_texts(world.engine, first)
    assert stored_scores(world.engine, first) == expected_scores(chosen_side)


def test_the_keyboard_goes_on_from_the_scores_to_the_preference_and_its_rationale(
    world: World, new_page
):
    page = new_page(LAPTOP)
    open_pair(page, world.link("pref"), total=1)
    page.get_by_text("in the preference, 1-5 pick A much better", exact=False).wait_for()
    assignment = current_assignment(page)
    wait_focus_in(page, group(*GROUPS[0]))
    press_scores(page, SCORES)
    wait_focus_in(page, "fieldset.pref")  # not Submit: the preference comes first
    page.keyboard.press("4")  # the fourth option: "B better"
    wait_focus_in(page, "#prb-rationale")
    page.keyboard.type("B follows the rubric.")
    page.keyboard.press("Control+Enter")
    page.get_by_text("All done, thank you!").wait_for()
    with read_session(world.engine) as session:
        stored = session.get(Assignment, assignment)
        assert stored is not None
        assert (stored.side_preference, stored.rationale) == (1, "B follows the rubric.")
    _, chosen_side = pair_texts(world.engine, assignment)
    assert stored_scores(world.engine, assignment) == expected_scores(chosen_side)


def test_a_200000_character_word_and_fake_headings_stay_in_their_box(world: World, new_page):
    page = new_page(LAPTOP)
    open_pair(page, world.link("long"), 1, 1)
    sizes = page.evaluate(
        """() => { const m = document.querySelector("[data-testid='stMain']");
                   return [m.scrollHeight, m.scrollWidth - m.clientWidth]; }"""
    )
    assert sizes[0] < 4 * LAPTOP["height"], sizes  # a few screens, not ~69,000 px
    assert sizes[1] <= 0, sizes  # nothing wider than the page
    for side in ("A", "B"):  # nor wider than its response's box
        box = page.locator(f"{PAIR} .side-{side} .response")
        assert box.evaluate("el => el.scrollWidth - el.clientWidth") <= 0
    # The dataset's "# Response B" and "Your scores ===" are bold text, not headings.
    headings = page.locator("[data-testid='stMain']").locator("h1, h2, h3, h4, h5, h6")
    texts = [t.strip() for t in headings.all_inner_texts()]
    assert texts.count("Response B") == 1, texts
    assert "Your scores" not in texts, texts
    page.screenshot(path=str(world.shots / "rate_long_word_1366.png"))


@pytest.mark.parametrize(
    ("size", "name"), [(LAPTOP, "1366x768"), (DESKTOP, "1920x1080"), (PHONE, "390x844")]
)
def test_screenshots_and_each_response_followed_by_its_own_scores(world, new_page, size, name):
    page = new_page(size)
    open_pair(page, world.link("shots"))
    page.screenshot(path=str(world.shots / f"rate_{name}.png"))
    # The page keeps a new pair at its top until one acts: scroll as a person does, with the
    # wheel, then bring Response A's heading to the top.
    page.locator("[data-testid='stMain']").hover()
    page.mouse.wheel(0, 100)
    heading = page.get_by_role("heading", name="Response A", exact=True)
    heading.evaluate("el => el.scrollIntoView({block: 'start'})")
    next_frame(page)
    page.screenshot(path=str(world.shots / f"rate_{name}_scrolled.png"))  # one scroll down

    def top(selector: str) -> float:
        return page.locator(f"{PAIR} {selector}").first.bounding_box()["y"]

    for side in ("A", "B"):  # each response, then its own scores
        assert top(f".side-{side} .response") < top(f".side-{side} fieldset.q")
    if size is PHONE:  # stacked: A, A's scores, then B, B's scores
        assert top(".side-A fieldset.q:last-of-type") < top(".side-B .response")


def test_a_submit_after_the_link_was_deactivated_saves_nothing_says_so_and_keeps_the_scores(
    world: World, new_page
):
    page = new_page(LAPTOP)
    open_pair(page, world.link("stale"))
    wait_focus_in(page, group(*GROUPS[0]))
    press_scores(page, SCORES)
    with write_session(world.engine) as session:
        accounts.set_active(session, "stale", False)  # while the annotator was rating
    page.keyboard.press("Control+Enter")
    words = "Not saved: this login link is no longer valid"
    page.locator(f"{PAIR} .error").get_by_text(words, exact=False).wait_for()
    settle(page)
    with read_session(world.engine) as session:
        saved = session.exec(
            select(Rating.id)
            .join(Assignment, Assignment.id == Rating.assignment_id)
            .join(Annotator, Annotator.id == Assignment.annotator_id)
            .where(Annotator.name == "stale")
        ).all()
    assert saved == []
    checked = page.locator(f"{PAIR} fieldset.q input:checked")
    assert checked.count() == 8  # the entries are still on the page
    assert page.get_by_text("saved.", exact=False).count() == 0
