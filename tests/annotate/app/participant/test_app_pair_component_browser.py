"""The pair drawn by our own component (issue 36, `annotate.app.participant.pair_component`), in
headless Chromium against a real `streamlit run` server started with PRB_RATING_VIEW=component.

The demo study asks six questions (five scales and a choice list,
`tests.helpers.questionnaire_helpers`);
every test rates through the component and reads the database rows: exactly the values entered
on each pair, by mouse and by keyboard only; a double click saves once; nothing the browser
receives says which response is chosen; dataset text with markup stays text.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func
from sqlmodel import select

from annotate.app.participant.pair_component import pair_data
from annotate.db import make_engine, read_session, write_session
from annotate.db.tables import Assignment, Rating, Study
from annotate.domain.dataset.shapes import Shape, ShapeOptions
from annotate.domain.rating.queue import pair_view
from annotate.domain.study.permissions import SYSTEM
from annotate.domain.study.studies import get_or_create_study, update_study
from annotate.questionnaire import DEFAULT_QUESTIONNAIRE
from annotate.services.admin.data import import_files
from annotate.services.admin.demo import demo_data_folder, set_up_demo
from support.appserver import AppServer
from support.own_postgres import available as postgres_available
from tests.annotate.app.participant.test_app_chat_browser import HISTORY
from tests.annotate.app.test_app_accessibility_browser import severe_findings
from tests.annotate.app.test_app_outage_browser import demo_on_own_postgres
from tests.helpers import hostile
from tests.helpers.browser_helpers import (
    BROWSER_MARKS,
    LAPTOP,
    PHONE,
    SERVER_START_TIMEOUT_S,
    Recorder,
    add_annotator,
    screenshot_dir,
    settle,
    wait_for_loads,
)
from tests.helpers.component_entry import open_pair, shown, wait_other
from tests.helpers.questionnaire_helpers import SIX

pytestmark = BROWSER_MARKS

PAIR = ".prb-pair"
OFFLINE_WORDS = "Not saved: the database did not answer. Your entries are still here"
NOT_SAVED_YET = "Not saved yet: the server does not answer. Your entries are kept in this tab"
KEYS = [q.key for q in SIX.questions]  # clarity, tone, accuracy, safety, creativity, format


@dataclass
class World:
    engine: Any
    url: str
    shots: Path

    def link(self, study: str, name: str) -> str:
        return f"{self.url}/?token={add_annotator(self.engine, study, name)}"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    folder = tmp_path_factory.mktemp("pair_component")
    db = folder / "pair_component.db"
    engine = make_engine(str(db))
    set_up_demo(engine)
    with write_session(engine) as session:
        study = session.exec(select(Study).where(Study.name == "demo")).one()
        study.questionnaire = SIX.stored()
        session.add(study)
        get_or_create_study(session, "hostile", seed=7)
    import_files(
        engine, SYSTEM, [hostile.write_hostile_dataset(folder / "hostile")], study="hostile"
    )
    chat = folder / "garden_test.jsonl"  # two pairs of a conversation (test_app_chat_browser)
    chat.write_text(
        "".join(
            json.dumps(
                {
                    "id": f"chat_{n}",
                    "chosen": [*HISTORY, {"role": "assistant", "content": "Water less."}],
                    "rejected": [*HISTORY, {"role": "assistant", "content": "Water more."}],
                }
            )
            + "\n"
            for n in range(2)
        ),
        encoding="utf-8",
    )
    import_files(engine, SYSTEM, [chat], study="chat", shape=ShapeOptions(shape=Shape.HF))
    with write_session(engine) as session:  # the chat study also asks the direct preference
        update_study(session, "chat", ask_preference=True, rationale="optional")
    server = AppServer(
        str(db), folder / "server.log", environment={"PRB_RATING_VIEW": "component"}
    ).start(timeout=SERVER_START_TIMEOUT_S)
    try:
        yield World(engine, server.url, screenshot_dir(folder / "shots"))
    finally:
        server.stop()
        engine.dispose()


def answers(shift: int) -> dict[str, dict[str, int]]:
    """Different on every question and across sides (a swapped question or side cannot pass),
    and different for each `shift` (a value carried to another pair cannot pass)."""
    out: dict[str, dict[str, int]] = {}
    for side, start in (("A", 0), ("B", 2)):
        out[side] = {}
        for index, key in enumerate(KEYS):
            points = 4 if key == "format" else 5  # the choice list has four choices
            out[side][key] = (index + start + shift) % points + 1
    return out


def question(page: Any, side: str, key: str) -> Any:
    return page.locator(f"{PAIR} fieldset.q[data-side='{side}'][data-key='{key}']")


def checked(page: Any, keys: Sequence[str] = KEYS) -> dict[str, dict[str, int]]:
    """The answers the component shows checked, by side and question."""
    out: dict[str, dict[str, int]] = {}
    for side in "AB":
        for key in keys:
            box = question(page, side, key).locator("input:checked")
            if box.count():
                out.setdefault(side, {})[key] = int(box.get_attribute("value"))
    return out


def stored_annotator(engine: Any, assignment_id: int) -> int:
    with read_session(engine) as session:
        found = session.get(Assignment, assignment_id)
        assert found is not None
        return found.annotator_id


def stored(engine: Any, assignment_id: int) -> tuple[str, dict[str, dict[str, int]], str, str]:
    """The pair's status, its scores by side shown (through the assignment's chosen side), its
    comment and flag, as the database holds them."""
    with read_session(engine) as session:
        done = session.get(Assignment, assignment_id)
        assert done is not None
        rows = session.exec(select(Rating).where(Rating.assignment_id == assignment_id)).all()
    other = "B" if done.chosen_side == "A" else "A"
    side_of = {"chosen": done.chosen_side, "rejected": other}
    scores: dict[str, dict[str, int]] = {}
    for row in rows:
        scores.setdefault(side_of[row.response], {})[row.dimension] = row.score
    return done.status, scores, done.comment or "", done.flag_reason or ""


# The focused element, inside the component's shadow root (the page sees only its host).
DEEP_FOCUS = """let a = document.activeElement;
    while (a && a.shadowRoot && a.shadowRoot.activeElement) {
        a = a.shadowRoot.activeElement;
    }"""


def focused(page: Any) -> str | None:
    """The focused control inside the component: a radio's name, 'submit', or None."""
    return page.evaluate(
        """() => { """
        + DEEP_FOCUS
        + """
                   if (!a) return null;
                   if (a.type === 'radio') return a.name;
                   return a.classList && a.classList.contains('submit') ? 'submit' : null; }"""
    )


def wait_focus(page: Any, name: str) -> None:
    page.wait_for_function(
        """(name) => { """
        + DEEP_FOCUS
        + """
                       return !!a && (a.name === name ||
                              (name === 'submit' && a.classList.contains('submit'))); }""",
        arg=name,
    )


def test_three_pairs_store_exactly_what_was_entered(world: World, new_page):
    page = new_page(LAPTOP)
    current = open_pair(page, world.link("demo", "mouse"))
    rated = []
    for number in range(3):
        assert checked(page) == {}, f"pair {number + 1} opened with another pair's values"
        given = answers(number)
        for side, by_key in given.items():
            for key, value in by_key.items():
                question(page, side, key).locator(f"input[value='{value}']").check()
        comment = f"comment on pair {number + 1}"
        page.locator(f"{PAIR} #prb-comment").fill(comment)
        flag = "odd wording" if number == 1 else ""
        page.locator(f"{PAIR} #prb-flag").fill(flag)
        for _ in range(number):  # the window left `number` times (a quality signal)
            page.evaluate(
                "() => { window.dispatchEvent(new Event('blur'));"
                " window.dispatchEvent(new Event('focus')); }"
            )
        page.locator(f"{PAIR} button.submit").click()
        rated.append((current, given, comment, flag))
        current = wait_other(page, current)
    for number, (assignment_id, given, comment, flag) in enumerate(rated):
        assert stored(world.engine, assignment_id) == ("done", given, comment, flag)
        with read_session(world.engine) as session:
            row = session.get(Assignment, assignment_id)
            assert row is not None
            assert row.focus_losses == number
    assert stored(world.engine, current) == ("pending", {}, "", "")


def test_keyboard_only_rating(world: World, new_page):
    """The keys the page teaches: a digit answers the focused question and moves on; after the
    last question the focus is on Submit, and Enter sends it; Ctrl+Enter and Ctrl+S send it
    from anywhere; Alt+P goes back to the pair before, drawn with what was saved."""
    page = new_page(LAPTOP)
    current = open_pair(page, world.link("demo", "keys"))
    rated = []
    for number, send in enumerate(["Enter", "Control+Enter", "Control+s"]):
        wait_focus(page, f"A__{KEYS[0]}")
        given = answers(number + 5)
        for side in "AB":
            for key in KEYS:
                assert focused(page) == f"{side}__{key}"
                page.keyboard.press(str(given[side][key]))
        assert focused(page) == "submit"
        page.keyboard.press(send)
        rated.append((current, given))
        current = wait_other(page, current)
    for assignment_id, given in rated:
        assert stored(world.engine, assignment_id) == ("done", given, "", "")
    page.keyboard.press("Alt+p")
    assert wait_other(page, current) == rated[-1][0]
    assert checked(page) == rated[-1][1]
    page.get_by_text("You have rated this pair already").wait_for()
    assert page.locator(f"{PAIR} button.skip-open").count() == 0


def test_missing_answers_are_said_and_entries_kept(world: World, new_page):
    page = new_page(LAPTOP)
    current = open_pair(page, world.link("demo", "missing"))
    question(page, "A", KEYS[0]).locator("input[value='2']").check()
    page.locator(f"{PAIR} #prb-comment").fill("kept")
    page.locator(f"{PAIR} button.submit").click()
    page.locator(f"{PAIR} .error").get_by_text("Please give every score").wait_for()
    assert shown(page) == current
    assert checked(page) == {"A": {KEYS[0]: 2}}
    assert page.locator(f"{PAIR} #prb-comment").input_value() == "kept"
    assert page.locator(f"{PAIR} fieldset.q.missing").count() == 2 * len(KEYS) - 1
    assert stored(world.engine, current)[0] == "pending"
    given = answers(2)  # then completed: saved, and Submit works again after the refusal
    for side, by_key in given.items():
        for key, value in by_key.items():
            question(page, side, key).locator(f"input[value='{value}']").check()
    page.locator(f"{PAIR} button.submit").click()
    wait_other(page, current)
    assert stored(world.engine, current) == ("done", given, "kept", "")


def test_a_double_submit_is_ignored(world: World, new_page):
    page = new_page(LAPTOP)
    first = open_pair(page, world.link("demo", "double"))
    given = answers(1)
    for side, by_key in given.items():
        for key, value in by_key.items():
            question(page, side, key).locator(f"input[value='{value}']").check()
    page.locator(f"{PAIR} button.submit").dblclick()
    second = wait_other(page, first)
    page.keyboard.press("Control+Enter")  # nothing entered: refused, not saved anywhere
    page.locator(f"{PAIR} .error").get_by_text("Please give every score").wait_for()
    assert stored(world.engine, first) == ("done", given, "", "")
    assert stored(world.engine, second) == ("pending", {}, "", "")
    assert checked(page) == {}
    with read_session(world.engine) as session:
        rows = session.exec(select(Rating).where(Rating.assignment_id == first)).all()
    assert len(rows) == 2 * len(KEYS)


def test_skip_with_a_reason(world: World, new_page):
    page = new_page(PHONE)
    first = open_pair(page, world.link("demo", "skipper"))
    page.locator(f"{PAIR} button.skip-open").click()
    page.locator(f"{PAIR} #prb-skip-reason").fill("cannot judge this one")
    page.locator(f"{PAIR} button.skip").click()
    wait_other(page, first)
    with read_session(world.engine) as session:
        skipped = session.get(Assignment, first)
    assert skipped is not None
    assert (skipped.status, skipped.skip_reason) == ("skipped", "cannot judge this one")


# The pair held behind the one shown (held.js, issue 36.2), once built off-screen: its id and
# its nodes as HTML, attributes included.
HELD_JS = """() => { const s = globalThis[Symbol.for('prb-annotate.held')];
    const held = s && s.pairs.get(s.latest);
    if (!held || !held.built) return null;
    return {pair: Number(JSON.parse(s.latest).pair),
            html: held.built.nodes.map(n => n.outerHTML ?? n.textContent).join('')}; }"""


def first_words(tree: list[Any]) -> str:
    """The first text of a text tree (`text_tree`)."""
    for node in tree:
        found = node if isinstance(node, str) else first_words(node[1])
        if found.strip():
            return found
    return ""


def test_nothing_sent_to_the_browser_says_which_response_is_chosen(world: World, new_page):
    """Every websocket frame and the page's DOM on three pairs, and the pair held behind each
    (sent ahead, built off-screen: issue 36.2); and the component's data is the same whichever
    side holds the chosen response, but for the two texts' places."""
    page = new_page(LAPTOP)
    record = Recorder().attach(page)
    current = open_pair(page, world.link("demo", "blind"))
    seen, held = [], []
    for number in range(3):
        record.snapshot(page, f"pair {number + 1}")
        seen.append(current)
        page.wait_for_function(HELD_JS)
        ahead = page.evaluate(HELD_JS)
        record.snapshots.append((f"pair {number + 1}: the pair held", ahead["html"]))
        held.append(ahead["pair"])
        for side, by_key in answers(number).items():
            for key, value in by_key.items():
                question(page, side, key).locator(f"input[value='{value}']").check()
        page.locator(f"{PAIR} button.submit").click()
        current = wait_other(page, current)
    assert held == [*seen[1:], current]  # each pair was held before it was shown
    page.wait_for_function(HELD_JS)
    last_held = page.evaluate(HELD_JS)["pair"]  # held, not shown: sent all the same
    assert record.label_leaks() == []
    received = b"".join(record.received)
    assert b"chosen_side" not in received
    with read_session(world.engine) as session:
        ahead = pair_data(
            pair_view(session, stored_annotator(world.engine, last_held), last_held), []
        )
    for response in ahead["responses"]:
        assert first_words(response["body"]).encode() in received
    with write_session(world.engine) as session:
        for assignment_id in [*seen, current, last_held]:
            assignment = session.get(Assignment, assignment_id)
            assert assignment is not None
            annotator = assignment.annotator_id
            as_drawn = pair_data(pair_view(session, annotator, assignment_id), [])
            assignment.chosen_side = "B" if assignment.chosen_side == "A" else "A"
            session.flush()
            swapped = pair_data(pair_view(session, annotator, assignment_id), [])
            assignment.chosen_side = "B" if assignment.chosen_side == "A" else "A"
            session.flush()
            assert as_drawn["responses"] != swapped["responses"]
            moved = [
                {"side": r["side"], "body": s["body"]}
                for r, s in zip(as_drawn["responses"], reversed(swapped["responses"]), strict=True)
            ]
            assert moved == as_drawn["responses"]
            assert {k: v for k, v in as_drawn.items() if k not in ("responses", "saved")} == {
                k: v for k, v in swapped.items() if k not in ("responses", "saved")
            }


def _component_root_js(body: str) -> str:
    return (
        "() => { const host = [...document.querySelectorAll('*')].find("
        "h => h.shadowRoot && h.shadowRoot.querySelector('.prb-pair'));"
        "const root = host.shadowRoot;" + body + "}"
    )


def test_hostile_text_is_inert_in_the_component(world: World, new_page):
    page = new_page(LAPTOP)
    record = Recorder().attach(page)
    open_pair(page, world.link("hostile", "hostile-reader"))
    # every section open: its text drawn and shown
    page.locator(f"{PAIR} details").evaluate_all("all => all.forEach(d => { d.open = true; })")
    wait_for_loads(page)
    page.screenshot(path=str(world.shots / "component_hostile.png"))
    assert page.evaluate("() => typeof window.__pwned") == "undefined"
    tags = page.evaluate(
        _component_root_js(
            "return [...root.querySelectorAll('*')].map(el => el.tagName.toLowerCase());"
        )
    )
    for tag in ("img", "iframe", "object", "embed", "svg", "a", "script", "video", "audio"):
        assert tag not in tags, f"a <{tag}> from the dataset is in the component"
    handlers = page.evaluate(
        _component_root_js(
            "return [...root.querySelectorAll('*')].flatMap(el =>"
            " [...el.attributes].filter(a => a.name.startsWith('on')).map(a => a.name));"
        )
    )
    assert handlers == []
    assert [u for u in record.requests if hostile.EVIL_HOST in u] == []
    text = page.locator(PAIR).inner_text()
    for shown_as_text in (hostile.SCRIPT, hostile.IMG, hostile.CJK, hostile.EMOJI):
        assert shown_as_text in text
    assert "[image: t]" in text
    assert hostile.MD_JS_LINK in text  # a javascript: link is no link: its characters


def test_a_conversation_is_drawn_as_a_chat(world: World, new_page):
    """Each earlier turn under its role's name (the page's words), its markup inert, the box
    opened at its last turn; then the two responses."""
    page = new_page(PHONE)
    open_pair(page, world.link("chat", "chat-reader"))
    turns = page.locator(f"{PAIR} .conversation .turn")
    assert turns.count() == len(HISTORY)
    names = [turns.nth(i).locator(".who").inner_text() for i in range(turns.count())]
    assert names == ["Instructions to the assistant", "User", "Assistant", "User"]
    assert hostile.SCRIPT in turns.nth(3).inner_text()
    assert page.evaluate("() => typeof window.__pwned") == "undefined"
    page.wait_for_function(  # opened at its last turn
        _component_root_js(
            "const box = root.querySelector('.conversation');"
            "return box.scrollTop + box.clientHeight >= box.scrollHeight - 2;"
        )
    )
    texts = page.locator(f"{PAIR} .response").all_inner_texts()
    assert sorted(texts) == ["Water less.", "Water more."]
    page.screenshot(path=str(world.shots / "component_chat_phone.png"))


def test_the_direct_preference_by_keyboard(world: World, new_page):
    """The chat study asks the preference with an optional rationale: after the last score the
    focus is on the preference (a digit picks the option at its place: 5 = B much better),
    then on "Why?"; Ctrl+Enter saves the preference by side and the rationale."""
    page = new_page(LAPTOP)
    current = open_pair(page, world.link("chat", "prefers"))
    keys = DEFAULT_QUESTIONNAIRE.keys
    wait_focus(page, f"A__{keys[0]}")
    for side in "AB":
        for _ in keys:
            page.keyboard.press("4" if side == "A" else "2")
    assert focused(page) == "preference"
    page.keyboard.press("5")
    page.keyboard.type("B waters less")
    page.keyboard.press("Control+Enter")
    wait_other(page, current)
    with read_session(world.engine) as session:
        row = session.get(Assignment, current)
        assert row is not None
        assert (row.status, row.side_preference, row.rationale) == ("done", 2, "B waters less")
    scores = {"A": dict.fromkeys(keys, 4), "B": dict.fromkeys(keys, 2)}
    assert stored(world.engine, current)[1] == scores


@pytest.mark.parametrize("size", ["laptop", "phone"])
def test_screenshots(world: World, new_page, size: str):
    """1366x768 and 390x844, for a person to look at (`screenshot_dir`); axe finds no serious
    or critical violation; nothing wider than the screen."""
    page = new_page(LAPTOP if size == "laptop" else PHONE)
    open_pair(page, world.link("demo", f"shots-{size}"))
    page.screenshot(path=str(world.shots / f"component_{size}_top.png"))
    assert severe_findings(page, "pair component", size) == []
    question(page, "B", KEYS[-1]).scroll_into_view_if_needed()
    page.screenshot(path=str(world.shots / f"component_{size}_questions.png"))
    overflow = page.evaluate(
        """() => { const m = document.querySelector("[data-testid='stMain']");
                   return m.scrollWidth - m.clientWidth; }"""
    )
    assert overflow <= 0


@pytest.fixture
def outage_server(tmp_path: Path) -> Iterator[tuple[Any, AppServer, str, Any]]:
    """The demo on a PostgreSQL server of the test's own (never the shared one), the component
    view on."""
    with demo_on_own_postgres(tmp_path / "server.log", {"PRB_RATING_VIEW": "component"}) as found:
        yield found


@pytest.mark.skipif(not postgres_available(), reason="needs PostgreSQL's binaries and root")
def test_a_submit_during_an_outage_keeps_every_entry_and_saves_once_after(outage_server, new_page):
    """As `test_app_outage_browser` for the Streamlit view: the database stopped, Submit says
    "Not saved" inside the component and keeps every answer and the comment; after the restart
    the same Submit saves the 8 rows exactly once."""
    database, app, token, engine = outage_server
    page = new_page(LAPTOP)
    first = open_pair(page, f"{app.url}/?token={token}")
    given = {
        side: {key: (n + offset) % 5 + 1 for n, key in enumerate(DEFAULT_QUESTIONNAIRE.keys)}
        for side, offset in (("A", 0), ("B", 3))
    }
    for side, by_key in given.items():
        for key, value in by_key.items():
            question(page, side, key).locator(f"input[value='{value}']").check()
    page.locator(f"{PAIR} #prb-comment").fill("typed before the outage")

    database.stop()
    page.locator(f"{PAIR} button.submit").click()
    # the outbox's words (issue 36.4; its own tests: test_app_pair_outbox_browser)
    page.locator(f"{PAIR} .outbox").get_by_text(NOT_SAVED_YET).wait_for()
    settle(page)
    assert shown(page) == first
    assert checked(page, DEFAULT_QUESTIONNAIRE.keys) == given
    assert page.locator(f"{PAIR} #prb-comment").input_value() == "typed before the outage"
    assert page.locator("[data-testid='stException']").count() == 0

    database.start()
    page.locator(f"{PAIR} button.submit").click()
    wait_other(page, first)
    with read_session(engine) as session:
        total = session.exec(select(func.count()).select_from(Rating)).one()
    assert total == 8  # saved exactly once
    assert stored(engine, first) == ("done", given, "typed before the outage", "")


def test_a_pair_with_a_category_and_a_rubric_fetches_no_italic_face(
    world: World, new_page, tmp_path: Path
):
    """Our own words on a pair (its category, the rubric's labels) are not in italics: the
    font's italic face is a file of its own (139 KB), which every first open fetched for them
    (issue 36.2: the throttled first open's bytes). A demo pair, its texts without emphasis."""
    record = json.loads(sorted(demo_data_folder().glob("*.jsonl"))[0].open().readline())
    plain = {"question": "Which anime?", "chosen": "Nana.", "rejected": "K-On!"}  # no emphasis
    dataset = tmp_path / "plain.jsonl"
    dataset.write_text(json.dumps({**record, **plain}) + "\n", encoding="utf-8")
    with write_session(world.engine) as session:
        get_or_create_study(session, "plain", seed=5)
    import_files(world.engine, SYSTEM, [dataset], study="plain")
    page = new_page(LAPTOP)
    open_pair(page, world.link("plain", "italic-reader"))
    assert page.locator(f"{PAIR} .question .category").inner_text() == record["category"]
    assert page.locator(f"{PAIR} details.section[open]").count() == 1  # the rubric, open
    fetched = page.evaluate(
        """async () => {
          await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
          await document.fonts.ready;
          return performance.getEntriesByType('resource').map((e) => e.name)
            .filter((name) => name.includes('/static/media/'));
        }"""
    )
    assert any("Upright" in name for name in fetched)  # the page's font fetches are seen
    assert [name for name in fetched if "Italic" in name] == []


# In every document: when its first websocket opened (page time, ms).
SOCKET_OPEN_MARK = """(() => { const Native = window.WebSocket;
  window.WebSocket = class extends Native { constructor(...args) { super(...args);
    this.addEventListener('open', () => { window.__socketOpen ??= performance.now(); }); } };
})();"""


def test_a_first_open_fetches_no_script_once_the_websocket_is_open(world: World, new_page):
    """Every script the rating page needs is named in the page's preload header
    (`annotate.app.static_compression`): none is asked for only once the pair's elements
    arrive on the websocket, a round trip more before the first pair (0.4 s on the throttled
    link: issue 36.2). A new context: nothing cached; on a server that drew the component
    before (its files are served once it has drawn one)."""
    open_pair(new_page(LAPTOP), world.link("demo", "first-on-server"))
    page = new_page(LAPTOP)
    page.add_init_script(SOCKET_OPEN_MARK)
    open_pair(page, world.link("demo", "preloaded"))
    settle(page)
    late = page.evaluate(
        """() => performance.getEntriesByType('resource')
             .filter((e) => e.startTime > window.__socketOpen && /[.]js([?]|$)/.test(e.name))
             .map((e) => e.name)"""
    )
    assert page.evaluate("() => window.__socketOpen > 0")
    assert late == [], "\n".join(late)
