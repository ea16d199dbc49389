"""End to end in headless Chromium against a real `streamlit run` server, the pair drawn by the
pair component (the default rating view, issue 36 item 5).

One server for the module, on a fresh SQLite file holding the demo study (several annotators) and
a study of hostile texts. Every test opens its own browser context (a new session).
Screenshots go to $PRB_SCREENSHOT_DIR when set, else to a pytest temp folder.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import select

from annotate.app import keyboard
from annotate.db import make_engine, read_session, write_session
from annotate.db.tables import Annotator, Assignment, Pair, Rating
from annotate.domain.crowd import outcomes
from annotate.domain.study.permissions import SYSTEM
from annotate.domain.study.studies import get_or_create_study
from annotate.services.admin.data import import_files
from annotate.services.admin.demo import set_up_demo
from annotate.services.participant.rating import submit_rating
from tests.helpers import hostile
from tests.helpers.apptest_helpers import (
    SCORES,
    count_ratings,
    expected_scores,
    queue_ids,
    stored_scores,
)
from tests.helpers.browser_helpers import (
    BROWSER_MARKS,
    Recorder,
    add_annotator,
    all_attributes,
    closer_to,
    current_assignment,
    screenshot_dir,
    settle,
    start_server,
    wait_for_loads,
    wait_for_pair,
)
from tests.helpers.component_entry import PAIR, focus_in, score_group, wait_other, wait_shows

pytestmark = BROWSER_MARKS

DIMENSIONS = ("factuality", "relevance", "helpfulness", "rubric_alignment")
ANCHORS = {1: "Very poor", 2: "Poor", 3: "Acceptable", 4: "Good", 5: "Excellent"}


@dataclass
class World:
    db: Path
    engine: Engine
    tokens: dict[str, str]
    url: str
    shots: Path

    def link(self, who: str) -> str:
        return f"{self.url}/?token={self.tokens[who]}"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    folder = tmp_path_factory.mktemp("browser")
    db = folder / "e2e.db"
    engine = make_engine(str(db))
    demo = set_up_demo(engine)
    tokens = {"demo": demo.token}
    for name in ("second", "third", "keyboard", "double", "finished"):
        tokens[name] = add_annotator(engine, "demo", name)
    with read_session(engine) as session:
        finished_id = session.exec(select(Annotator.id).where(Annotator.name == "finished")).one()
    for assignment_id in queue_ids(engine, "finished"):
        submit_rating(
            engine,
            annotator_id=finished_id,
            assignment_id=assignment_id,
            scores=SCORES,
            seconds=3.0,
        )
    with write_session(engine) as session:
        # the completion code is a crowd participant's stored outcome (issue 34.1, 34.5):
        # "finished" as one, of a study whose crowd enrolment was opened, who completed it
        finished = session.get(Annotator, finished_id)
        finished.external_id = "prolific:5f1a2b3c4d5e6f7a8b9c0d1e"
        demo_study = get_or_create_study(session, "demo")
        demo_study.enrolment_key = "k" * 16
        outcomes.settle(session, demo_study, finished, outcomes.COMPLETED, "You rated 27 pairs.")
        get_or_create_study(session, "hostile", seed=7)
    import_files(
        engine, SYSTEM, [hostile.write_hostile_dataset(folder / "hostile")], study="hostile"
    )
    tokens["hostile"] = add_annotator(engine, "hostile", "hostile")

    server = start_server(db, folder / "server.log")
    try:
        yield World(db, engine, tokens, server.url, screenshot_dir(folder / "shots"))
    finally:
        server.stop()
        engine.dispose()


APP = keyboard.SCRIPT.parent  # the app's own scripts: rate.js, page.js


def open_link(page: Any, url: str) -> None:
    page.goto(url)
    settle(page)


def click_score(page: Any, dim: str, side: str, score: int) -> None:
    """Click the score's words in the component's question, as a person does."""
    score_group(page, side, dim).get_by_text(f"{score} · {ANCHORS[score]}", exact=True).click()


def shown_scores(page: Any) -> dict[str, dict[str, int | None]]:
    """The score each of the component's questions shows checked (None: none), by side."""
    shown: dict[str, dict[str, int | None]] = {}
    for side in ("A", "B"):
        for dim in DIMENSIONS:
            box = score_group(page, side, dim).locator("input:checked")
            shown.setdefault(side, {})[dim] = (
                int(box.get_attribute("value")) if box.count() else None
            )
    return shown


def submit_button(page: Any) -> Any:
    return page.get_by_role("button", name="Submit and go to the next pair")


def rate_in_browser(page: Any, scores: dict[str, dict[str, int]]) -> int:
    assignment_id = current_assignment(page)
    for side, by_dim in scores.items():
        for dim, score in by_dim.items():
            click_score(page, dim, side, score)
    submit_button(page).click()
    return assignment_id


def response_column_text(page: Any, side: str) -> str:
    return page.locator(f"{PAIR} .side-{side} .response").inner_text()


def pair_texts(engine: Engine, assignment_id: int) -> tuple[Pair, str]:
    with read_session(engine) as session:
        assignment = session.get(Assignment, assignment_id)
        assert assignment is not None
        pair = session.get(Pair, assignment.pair_id)
        assert pair is not None
        return pair, assignment.chosen_side


def assert_sides_match_storage(page: Any, engine: Engine, assignment_id: int) -> str:
    """The text the browser shows as Response A is the one stored for side A; return that side."""
    pair, chosen_side = pair_texts(engine, assignment_id)
    on_a, on_b = (
        (pair.chosen, pair.rejected) if chosen_side == "A" else (pair.rejected, pair.chosen)
    )
    assert closer_to(response_column_text(page, "A"), on_a, on_b)
    assert closer_to(response_column_text(page, "B"), on_b, on_a)
    return "chosen" if chosen_side == "A" else "rejected"


def test_login_page_and_a_bad_link(world: World, new_page):
    page = new_page({"width": 1400, "height": 900})
    open_link(page, world.url)
    page.get_by_text("Your access token").wait_for()
    page.screenshot(path=str(world.shots / "01_login.png"))
    assert page.locator(f"{PAIR}, [data-testid='stRadio']").count() == 0

    open_link(page, f"{world.url}/?token=not-a-token")
    page.get_by_text("This login link is not valid", exact=False).wait_for()
    assert page.locator(f"{PAIR}, [data-testid='stRadio']").count() == 0
    assert page.get_by_text("Pair 1 of", exact=False).count() == 0

    # Pasting the right token logs in.
    page.get_by_label("Your access token", exact=True).fill(world.tokens["second"])
    page.get_by_role("button", name="Log in").click()
    wait_for_pair(page, 1)
    current_assignment(page)  # the component's pair, with its 8 score questions
    assert page.locator(f"{PAIR} fieldset.q").count() == 8


def test_rate_two_pairs_reload_resume_revisit_and_nothing_reveals_the_label(world: World, new_page):
    page = new_page()
    record = Recorder().attach(page)
    open_link(page, world.link("demo"))
    wait_for_pair(page, 1)
    record.snapshot(page, "pair 1")
    page.screenshot(path=str(world.shots / "02_rating_page.png"))

    shown_as_a = []
    rated = []
    for number in (1, 2):
        assignment_id = current_assignment(page)
        shown_as_a.append(assert_sides_match_storage(page, world.engine, assignment_id))
        rated.append(rate_in_browser(page, SCORES))
        wait_for_pair(page, number + 1)
        record.snapshot(page, f"after submitting pair {number}")
    assert page.get_by_text("Pair 2 saved.").count() == 1

    page.reload()
    settle(page)
    wait_for_pair(page, 3)
    assert page.get_by_text("· 2 rated", exact=False).count() == 1
    third = current_assignment(page)
    assert third == queue_ids(world.engine, "demo-annotator")[2]
    shown_as_a.append(assert_sides_match_storage(page, world.engine, third))
    record.snapshot(page, "after reload")

    # Submitting with no scores: an error naming them, nothing stored.
    submit_button(page).click()
    page.locator(f"{PAIR} .error").get_by_text("Please give every score", exact=False).wait_for()
    settle(page)
    record.snapshot(page, "missing scores")
    page.locator(f"{PAIR} .error").scroll_into_view_if_needed()
    page.screenshot(path=str(world.shots / "03_missing_scores.png"))
    assert count_ratings(world.engine) == 27 * 8 + 16  # the finished annotator's + ours

    for number in (2, 1):
        page.locator(".st-key-nav_previous button").click()
        wait_for_pair(page, number)
        wait_shows(page, rated[number - 1])
        record.snapshot(page, f"back at pair {number}")
    assert current_assignment(page) == rated[0]
    assert shown_scores(page) == SCORES
    assert page.get_by_text("You have rated this pair already", exact=False).count() == 1

    for assignment_id in rated:
        _, chosen_side = pair_texts(world.engine, assignment_id)
        assert stored_scores(world.engine, assignment_id) == expected_scores(chosen_side)
    with read_session(world.engine) as session:
        mine = session.exec(
            select(Rating)
            .join(Assignment, Assignment.id == Rating.assignment_id)
            .join(Annotator, Annotator.id == Assignment.annotator_id)
            .where(Annotator.name == "demo-annotator")
        ).all()
    assert len(mine) == 16
    assert {r.assignment_id for r in mine} == set(rated)

    # Side A held the chosen response on some of the pairs seen and the rejected one on others
    # (the demo seed puts chosen on A, A, B for this annotator's first three pairs).
    assert set(shown_as_a) == {"chosen", "rejected"}

    # Blinding, on what the browser actually received and holds.
    assert len(record.received) > 20, "the websocket frames were not recorded"
    assert len(record.snapshots) >= 10
    assert record.label_leaks() == []


def test_pair_order_differs_between_annotators(world: World, new_page):
    """Two fresh annotators of the same study: each browser shows that annotator's own first
    pair, and the two queues are different orders of the same pairs."""
    shown_first = {}
    for name in ("second", "third"):
        page = new_page()
        open_link(page, world.link(name))
        wait_for_pair(page, 1)
        pair, _ = pair_texts(world.engine, current_assignment(page))
        assert pair.question[:60] in page.locator(f"{PAIR} .context").inner_text()
        shown_first[name] = pair.record_id
    with read_session(world.engine) as session:
        orders = {
            name: session.exec(
                select(Pair.record_id)
                .join(Assignment, Assignment.pair_id == Pair.id)
                .join(Annotator, Annotator.id == Assignment.annotator_id)
                .where(Annotator.name == name)
                .order_by(Assignment.position)
            ).all()
            for name in shown_first
        }
    assert {name: order[0] for name, order in orders.items()} == shown_first
    assert orders["second"] != orders["third"]
    assert sorted(orders["second"]) == sorted(orders["third"])
    # (The study seed puts different pairs first for these two names.)
    assert shown_first["second"] != shown_first["third"]


def test_keyboard_shortcuts_submit_and_go_back(world: World, new_page):
    page = new_page()
    open_link(page, world.link("keyboard"))
    wait_for_pair(page, 1)
    first = current_assignment(page)
    for side, by_dim in SCORES.items():
        for dim, score in by_dim.items():
            click_score(page, dim, side, score)
    # The focus is on the radio just clicked, as it is for an annotator.
    assert focus_in(page, f"{PAIR} fieldset.q[data-side='B'][data-key='rubric_alignment']")
    page.keyboard.press("Control+s")
    wait_for_pair(page, 2)
    wait_other(page, first)
    _, chosen_side = pair_texts(world.engine, first)
    assert stored_scores(world.engine, first) == expected_scores(chosen_side)

    second = current_assignment(page)
    click_score(page, "factuality", "A", 3)
    page.keyboard.press("Alt+p")
    wait_for_pair(page, 1)
    wait_shows(page, first)
    page.keyboard.press("Alt+n")
    wait_for_pair(page, 2)
    wait_shows(page, second)


def test_a_double_click_on_submit_saves_once(world: World, new_page):
    page = new_page()
    record = Recorder().attach(page)
    open_link(page, world.link("double"))
    wait_for_pair(page, 1)
    first = current_assignment(page)
    for side, by_dim in SCORES.items():
        for dim, score in by_dim.items():
            click_score(page, dim, side, score)
    submit_button(page).dblclick()
    wait_for_pair(page, 2)
    second = wait_other(page, first)
    # The server answers a page's messages in the order they were sent: once a later message
    # (Alt+P, then Alt+N) has been answered, the second click's submit, if one was sent, has
    # been handled too (saved, ignored, or refused with an error that `record` received).
    page.keyboard.press("Alt+p")
    wait_for_pair(page, 1)
    wait_shows(page, first)
    page.keyboard.press("Alt+n")
    wait_for_pair(page, 2)
    wait_shows(page, second)

    with read_session(world.engine) as session:
        mine = session.exec(
            select(Rating)
            .join(Assignment, Assignment.id == Rating.assignment_id)
            .join(Annotator, Annotator.id == Assignment.annotator_id)
            .where(Annotator.name == "double")
        ).all()
    assert len(mine) == 8
    assert {r.assignment_id for r in mine} == {first}
    assert all(r.revision == 1 for r in mine)
    assert page.get_by_text("Pair 2 of 27", exact=True).count() == 1
    assert not [f for f in record.received if b"Please give every score" in f]


def test_done_screen_shows_the_completion_code(world: World, new_page):
    page = new_page({"width": 1400, "height": 900})
    open_link(page, world.link("finished"))
    page.get_by_text("All done, thank you!").wait_for()
    settle(page)
    # The copyable code box (its highlighter renders a moment after the run ends).
    page.locator("[data-testid='stCode']").get_by_text("PRB-DEMO-2026").wait_for()
    assert page.locator(f"{PAIR}, [data-testid='stRadio']").count() == 0
    page.screenshot(path=str(world.shots / "04_done.png"))


def test_hostile_text_is_inert_and_non_latin_text_displays(world: World, new_page):
    page = new_page()
    record = Recorder().attach(page)
    open_link(page, world.link("hostile"))
    page.get_by_text("Pair 1 of 1", exact=True).wait_for()
    current_assignment(page)
    settle(page)
    # every section of the context open: its text drawn and shown (13 posts, all of them)
    page.locator(f"{PAIR} details").evaluate_all("all => all.forEach(d => { d.open = true; })")
    page.locator(PAIR).get_by_text("Later post 13").wait_for()
    wait_for_loads(page)  # whatever the page holds has tried to load
    page.screenshot(path=str(world.shots / "05_hostile_text.png"))

    assert page.evaluate("() => typeof window.__pwned") == "undefined"
    main = page.locator("[data-testid='stMain']")
    for tag in ("img", "iframe", "object", "embed", "frame", "video", "audio"):
        assert main.locator(tag).count() == 0, f"a <{tag}> from the dataset is in the page"
    scripts = page.evaluate(
        """() => [...document.querySelectorAll("[data-testid='stMain'] script")]
                 .map(el => el.textContent)"""
    )
    own = {(APP / name).read_text(encoding="utf-8") for name in ("rate.js", "page.js")}
    assert len(scripts) == 2, "only the page's own scripts"
    assert set(scripts) == own, "only the page's own scripts"
    assert main.locator("svg circle[r='5']").count() == 0  # the dataset's <svg>
    assert main.locator("a[href^='javascript:' i]").count() == 0
    handlers = [a for a in all_attributes(page) if a.split(": ", 1)[1].startswith("on")]
    assert handlers == []
    assert [u for u in record.requests if hostile.EVIL_HOST in u] == []

    text = page.locator(PAIR).inner_text()  # the rubric shown: its aspect, evidence and reason
    for expected in (hostile.CJK, hostile.ARABIC, hostile.EMOJI, hostile.LONG_END):
        assert expected in text
    # The markup is shown as text, not swallowed.
    assert "<script>window.__pwned=1</script>" in text
    assert 'onerror="window.__pwned=2"' in text
    # Long unbroken text wraps inside the page instead of widening it.
    overflow = page.evaluate(
        """() => { const m = document.querySelector("[data-testid='stMain']");
                   return m.scrollWidth - m.clientWidth; }"""
    )
    assert overflow <= 0
    response_a = page.locator(f"{PAIR} .side-A .response")
    response_a.get_by_text("[image: t]").scroll_into_view_if_needed()  # after the long text
    page.screenshot(path=str(world.shots / "06_hostile_long_text_end.png"))
