"""Every value entered on a pair belongs to that pair (issue 22, item 1), in headless Chromium
against a real `streamlit run` server on the demo study with the aspect checklist and the
direct preference with an optional rationale.

For each way of leaving a pair (Ctrl+Enter after keyboard rating as the page teaches, Ctrl+S,
the mouse, Alt+N / Alt+P, "Go to pair", a skip, a reload), the pair left holds its own values in
the database, and the next pair opens empty and is stored with only what was entered on it.
`test_keyboard_rating_keeps_each_rationale_with_its_pair` reproduced point 1 of the issue: with
widget keys shared by every pair, the second pair's rationale was carried into the third.

The fallback view ($PRB_RATING_VIEW=streamlit, `FALLBACK_VIEW`): the pair drawn with Streamlit's
widgets. The default view's counterpart: `test_app_pair_component_leaving_browser.py` (every way of
leaving a pair, a revision).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from sqlmodel import select

from annotate.db import make_engine, read_session, write_session
from annotate.db.tables import AspectMark, Assignment, Rating
from annotate.domain.study import accounts
from annotate.domain.study.studies import get_study, update_study
from annotate.services.admin.demo import set_up_demo
from annotate.services.participant.work import pull_next
from annotate.vocabulary import DIMENSIONS
from tests.helpers.browser_helpers import (
    BROWSER_MARKS,
    FALLBACK_VIEW,
    LAPTOP,
    PHONE,
    add_annotator,
    choose_option,
    click_until,
    current_assignment,
    settle,
    start_server,
    wait_for_focus,
    wait_for_pair,
)
from tests.helpers.rating_entry import (
    SKIP_LABEL,
    PairEntry,
    enter_by_keyboard,
    enter_by_pointer,
    filled_in,
    n_aspects,
    uniform,
)

pytestmark = BROWSER_MARKS


@dataclass
class World:
    engine: Any
    url: str

    def link(self, name: str) -> str:
        return f"{self.url}/?token={add_annotator(self.engine, 'demo', name)}"

    def pool_link(self, name: str) -> str:
        """An account that takes its pairs from the open pool, one at a time (its first
        pulled)."""
        with write_session(self.engine) as session:
            account, token = accounts.create_account(session, name)
            study_id = get_study(session, "demo").id
        assert account.id is not None
        assert study_id is not None
        pull_next(self.engine, account.id, study_id)
        return f"{self.url}/?token={token}"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    folder = tmp_path_factory.mktemp("pair_state")
    db = folder / "pair_state.db"
    engine = make_engine(str(db))
    set_up_demo(engine)
    with write_session(engine) as session:
        update_study(  # the open pool gives pairs to accounts that pull (not to the others,
            session,  # who have every pair; each holds a slot of every pair, hence the k)
            "demo",
            ask_preference=True,
            rationale="optional",
            aspect_checklist=True,
            pool_open=True,
            overlap=50,
        )
    server = start_server(db, folder / "server.log", FALLBACK_VIEW)
    try:
        yield World(engine, server.url)
    finally:
        server.stop()
        engine.dispose()


@dataclass(frozen=True)
class Entry:
    """What one pair is given: a score for every question (one value), the same mark for
    every aspect, the preference (1-5 on the page) and the texts."""

    score: int
    mark: int
    preference: int
    rationale: str = ""
    comment: str = ""
    flag: str = ""

    def on(self, page: Any) -> PairEntry:
        """The entry for the pair on the page (its number of aspects); empty texts left out."""
        return uniform(
            n_aspects(page),
            score=self.score,
            mark=self.mark,
            preference=self.preference,
            **{k: v for k, v in vars(self).items() if k in TEXTS and v},
        )


TEXTS = ("rationale", "comment", "flag")


def _open(page: Any, world: World, name: str) -> None:
    page.goto(world.link(name))
    settle(page)
    wait_for_pair(page, 1)


def _enter_by_keyboard(page: Any, entry: Entry) -> None:
    enter_by_keyboard(page, entry.on(page))


def _enter_by_mouse(page: Any, entry: Entry) -> None:
    enter_by_pointer(page, entry.on(page))


def _stored(engine: Any, assignment_id: int) -> dict[str, Any]:
    """The pair's rows, by what the page showed: scores and marks by side, the preference 1-5."""
    with read_session(engine) as session:
        done = session.get(Assignment, assignment_id)
        assert done is not None
        ratings = session.exec(select(Rating).where(Rating.assignment_id == assignment_id)).all()
        marks = session.exec(
            select(AspectMark).where(AspectMark.assignment_id == assignment_id)
        ).all()
    side_of = {"chosen": done.chosen_side, "rejected": "B" if done.chosen_side == "A" else "A"}
    return {
        "status": done.status,
        "scores": {(side_of[r.response], r.dimension): r.score for r in ratings},
        "marks": {(side_of[m.response], m.aspect_index): m.coverage for m in marks},
        "preference": None if done.side_preference is None else done.side_preference + 3,
        "rationale": done.rationale or "",
        "comment": done.comment or "",
        "flag": done.flag_reason or "",
        "skip": done.skip_reason or "",
    }


def _expected(entry: Entry, n_aspects: int) -> dict[str, Any]:
    return {
        "status": "done",
        "scores": {(side, dim): entry.score for side in "AB" for dim in DIMENSIONS},
        "marks": {(side, i): entry.mark for side in "AB" for i in range(n_aspects)},
        "preference": entry.preference,
        "rationale": entry.rationale,
        "comment": entry.comment,
        "flag": entry.flag,
        "skip": "",
    }


def test_keyboard_rating_keeps_each_rationale_with_its_pair(world, new_page):
    """Point 1 as reported: three pairs rated by keyboard, each rationale typed in "Why?" and
    sent with Ctrl+Enter (then Ctrl+S for the third, the other key the page teaches)."""
    page = new_page(LAPTOP)
    _open(page, world, "keyboard-reasons")
    entries = [
        Entry(score=4, mark=2, preference=5, rationale="reason for pair 1", comment="c1"),
        Entry(score=3, mark=1, preference=1, rationale="reason for pair 2", flag="f2"),
        Entry(score=2, mark=0, preference=4, rationale="reason for pair 3"),
    ]
    rated = []
    for number, (entry, key) in enumerate(
        zip(entries, ["Control+Enter", "Control+Enter", "Control+s"], strict=True), 1
    ):
        assert filled_in(page) == {}, f"pair {number} opened with another pair's values"
        rated.append((current_assignment(page), entry, n_aspects(page)))
        _enter_by_keyboard(page, entry)
        page.keyboard.press(key)
        wait_for_pair(page, number + 1)
    for assignment_id, entry, n in rated:
        assert _stored(world.engine, assignment_id) == _expected(entry, n)


FIRST = Entry(score=5, mark=2, preference=1, rationale="first pair's reason", comment="first c")
SECOND = Entry(score=2, mark=1, preference=4, rationale="second pair's reason", flag="second f")


def _submit_by_mouse(page: Any, number: int) -> None:
    page.get_by_role("button", name="Submit and go to the next pair").click()
    page.get_by_text(f"Pair {number} saved.").wait_for()


NOTHING = {
    "status": "pending",
    "scores": {},
    "marks": {},
    "preference": None,
    "rationale": "",
    "comment": "",
    "flag": "",
    "skip": "",
}


def test_mouse_submit_keeps_each_pairs_values(world, new_page):
    page = new_page(LAPTOP)
    _open(page, world, "mouse-values")
    first, n = current_assignment(page), n_aspects(page)
    _enter_by_mouse(page, FIRST)
    _submit_by_mouse(page, 1)
    wait_for_pair(page, 2)
    assert filled_in(page) == {}
    second, n2 = current_assignment(page), n_aspects(page)
    _enter_by_mouse(page, SECOND)
    _submit_by_mouse(page, 2)
    wait_for_pair(page, 3)
    assert filled_in(page) == {}
    assert _stored(world.engine, first) == _expected(FIRST, n)
    assert _stored(world.engine, second) == _expected(SECOND, n2)


def test_alt_n_and_alt_p_leave_unsaved_entries_behind(world, new_page):
    """Entries on a pair left with Alt+N are not shown on, nor saved with, the next pair; Alt+P
    back finds the first pair as it is stored (nothing)."""
    page = new_page(LAPTOP)
    _open(page, world, "alt-values")
    first = current_assignment(page)
    _enter_by_keyboard(page, FIRST)
    page.keyboard.press("Alt+n")
    wait_for_pair(page, 2)
    assert filled_in(page) == {}
    second, n = current_assignment(page), n_aspects(page)
    _enter_by_keyboard(page, SECOND)
    page.keyboard.press("Alt+p")
    wait_for_pair(page, 1)
    assert filled_in(page) == {}
    page.keyboard.press("Alt+n")
    wait_for_pair(page, 2)
    assert filled_in(page) == {}
    _enter_by_keyboard(page, SECOND)
    page.keyboard.press("Control+Enter")
    page.get_by_text("Pair 2 saved.").wait_for()
    wait_for_pair(page, 3)
    assert filled_in(page) == {}
    assert _stored(world.engine, first) == NOTHING
    assert _stored(world.engine, second) == _expected(SECOND, n)


def test_go_to_pair_leaves_unsaved_entries_behind(world, new_page):
    page = new_page(LAPTOP)
    _open(page, world, "jump-values")
    first = current_assignment(page)
    _enter_by_mouse(page, FIRST)
    jump = page.locator(".st-key-nav_jump [data-testid='stSelectbox']")
    choose_option(page, jump, "Pair 3 (to do)", what="go to pair")
    wait_for_pair(page, 3)
    assert filled_in(page) == {}
    third, n = current_assignment(page), n_aspects(page)
    _enter_by_mouse(page, SECOND)
    _submit_by_mouse(page, 3)
    wait_for_pair(page, 4)
    assert _stored(world.engine, first) == NOTHING
    assert _stored(world.engine, third) == _expected(SECOND, n)


def test_a_skip_saves_only_its_reason_and_the_next_pair_opens_empty(world, new_page):
    page = new_page(LAPTOP)
    _open(page, world, "skip-values")
    first = current_assignment(page)
    _enter_by_mouse(page, FIRST)
    _open_skip(page, new_pair=False).fill("not my field")
    page.get_by_role("button", name="Skip", exact=True).click()
    page.get_by_text("Pair 1 skipped.").wait_for()
    wait_for_pair(page, 2)
    assert filled_in(page) == {}
    second, n = current_assignment(page), n_aspects(page)
    assert _open_skip(page).input_value() == ""
    page.keyboard.press("Escape")
    _enter_by_mouse(page, SECOND)
    _submit_by_mouse(page, 2)
    wait_for_pair(page, 3)
    assert _stored(world.engine, first) == NOTHING | {"status": "skipped", "skip": "not my field"}
    assert _stored(world.engine, second) == _expected(SECOND, n)


def test_a_reload_opens_the_pair_as_stored(world, new_page):
    page = new_page(LAPTOP)
    _open(page, world, "reload-values")
    first, n = current_assignment(page), n_aspects(page)
    _enter_by_keyboard(page, FIRST)
    page.reload()
    settle(page)
    wait_for_pair(page, 1)
    assert current_assignment(page) == first
    assert filled_in(page) == {}
    _enter_by_keyboard(page, SECOND)
    page.keyboard.press("Control+Enter")
    wait_for_pair(page, 2)
    assert filled_in(page) == {}
    assert _stored(world.engine, first) == _expected(SECOND, n)


def _open_skip(page: Any, *, new_pair: bool = True) -> Any:
    if new_pair:
        # The page script has seen the new pair (it puts the focus on its first score); else its
        # late "new pair" step (scroll to the top, focus) could move the popover under the click.
        wait_for_focus(page, "scores_A")
    box = page.get_by_label(SKIP_LABEL)
    click_until(page, page.get_by_role("button", name="Skip this pair"), box, what="skip popover")
    return box


def test_enter_in_the_skip_reason_skips_and_tab_keeps_the_text(world, new_page):
    """Issue 22.9: Tab in the skip reason moves to the Skip button with the popover open and
    the text kept, and Enter there skips; Enter in the box itself skips too."""
    page = new_page(LAPTOP)
    _open(page, world, "skip-keys")
    first = current_assignment(page)
    box = _open_skip(page)
    box.click()
    box.press_sequentially("broken pair")
    page.keyboard.press("Tab")
    settle(page)
    assert box.is_visible()
    assert box.input_value() == "broken pair"
    assert page.evaluate("() => document.activeElement.innerText.trim()") == "Skip"
    page.keyboard.press("Enter")
    page.get_by_text("Pair 1 skipped.").wait_for()
    wait_for_pair(page, 2)
    second = current_assignment(page)
    box = _open_skip(page)
    box.click()
    box.press_sequentially("not my field")
    page.keyboard.press("Enter")
    page.get_by_text("Pair 2 skipped.").wait_for()
    wait_for_pair(page, 3)
    assert _stored(world.engine, first) == NOTHING | {"status": "skipped", "skip": "broken pair"}
    assert _stored(world.engine, second) == NOTHING | {"status": "skipped", "skip": "not my field"}


@pytest.mark.parametrize(("name", "viewport"), [("mouse", LAPTOP), ("touch", PHONE)])
def test_the_skip_popover_closes_with_the_pair_it_skipped(world, new_page, name, viewport):
    """The skip's popover belongs to its pair (a key of its own, as every field of the pair):
    once the pair is skipped, the next pair opens with its own, closed. With one popover for
    every pair, the pilot's phone participant found it still open over the next pair, its box
    empty, covering the navigation (tests/annotate/app/test_app_pilot_e2e_browser.py)."""
    touch = name == "touch"
    page = new_page(viewport, has_touch=touch, is_mobile=touch)
    page.goto(world.pool_link(f"skip-closes-{name}"))
    settle(page)
    page.get_by_text("Pair 1 of 1", exact=True).wait_for()
    box = page.get_by_label(SKIP_LABEL)
    opener = page.get_by_role("button", name="Skip this pair")
    wait_for_focus(page, "scores_A")
    if touch:
        opener.tap()
        box.wait_for()
    else:
        click_until(page, opener, box, what="skip popover")
    box.tap() if touch else box.click()
    box.press_sequentially("not for me")
    skip = page.get_by_role("button", name="Skip", exact=True)
    skip.tap() if touch else skip.click()
    page.get_by_text("Pair 1 skipped.").wait_for()
    page.get_by_text("Pair 2 of 2", exact=True).wait_for()
    settle(page)
    wait_for_focus(page, "scores_A")
    popover = f".st-key-skip_popover_p{current_assignment(page)}"
    assert page.locator(popover).count() == 1
    assert not box.is_visible()
    previous = page.get_by_role("button", name="Previous pair")
    previous.tap() if touch else previous.click()  # nothing lies over it
    page.get_by_text("Pair 1 of 2", exact=True).wait_for()
