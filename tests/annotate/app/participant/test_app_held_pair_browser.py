"""The next pair, held (issue 36.2): the component is given the pair after the one it shows,
builds it off-screen (`pair_component/assets/held.js`), and shows exactly those nodes once the
server confirmed the submit stored; in an open pool that pair is a live reservation. Headless
Chromium against a real `streamlit run` server with PRB_RATING_VIEW=component, on a SQLite file.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from sqlmodel import col, select
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from annotate.db import make_engine, read_session, write_session
from annotate.db.tables import Assignment
from annotate.domain.study import accounts
from annotate.domain.study.permissions import SYSTEM
from annotate.domain.study.studies import get_or_create_study, get_study, update_study
from annotate.questionnaire import DEFAULT_QUESTIONNAIRE
from annotate.services.admin.data import import_files
from annotate.services.admin.demo import demo_data_folder
from annotate.services.participant.work import pull_next
from support.appserver import AppServer
from tests.annotate.app.participant.test_app_pair_component_browser import (
    PAIR,
    question,
    stored,
)
from tests.annotate.app.test_app_logout_browser import LOGIN_FIELD
from tests.helpers.browser_helpers import BROWSER_MARKS, LAPTOP, SERVER_START_TIMEOUT_S, settle
from tests.helpers.component_entry import open_pair, shown, wait_other

pytestmark = BROWSER_MARKS

KEYS = DEFAULT_QUESTIONNAIRE.keys
STORE = "globalThis[Symbol.for('prb-annotate.held')]"


@dataclass
class World:
    engine: Any
    url: str

    def pool_link(self, name: str, study: str = "pool") -> tuple[int, str]:
        """A new annotator who pulled their first pair of the open pool; (id, login link)."""
        with write_session(self.engine) as session:
            person, token = accounts.create_account(session, name)
            study_id = get_study(session, study).id
        assert person.id is not None
        assert study_id is not None
        assert pull_next(self.engine, person.id, study_id) is not None
        return person.id, f"{self.url}/?token={token}"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    """The demo's 27 pairs in two open pools: k = 2, and one with a quota of 2 pairs."""
    folder = tmp_path_factory.mktemp("held_pair")
    engine = make_engine(str(folder / "held.db"))
    files = sorted(demo_data_folder().glob("*.jsonl"))
    for name, quota in (("pool", None), ("short", 2)):
        with write_session(engine) as session:
            get_or_create_study(session, name, seed=11)
        import_files(engine, SYSTEM, files, study=name)
        with write_session(engine) as session:
            update_study(session, name, pool_open=True, overlap=2, pool_quota=quota)
    server = AppServer(
        str(folder / "held.db"), folder / "server.log", environment={"PRB_RATING_VIEW": "component"}
    ).start(timeout=SERVER_START_TIMEOUT_S)
    try:
        yield World(engine, server.url)
    finally:
        server.stop()
        engine.dispose()


def live(engine: Any, person: int) -> list[int]:
    """The person's live reservations, in queue order (the pair shown, then the one held)."""
    with read_session(engine) as session:
        rows = session.exec(
            select(Assignment.id)
            .where(Assignment.annotator_id == person, Assignment.status == "pending")
            .order_by(col(Assignment.position))
        ).all()
    return [int(i or 0) for i in rows]


def held_pair(page: Any) -> int | None:
    """The pair the page holds, once built off-screen (None: none held)."""
    page.wait_for_function(
        f"""() => {{ const s = {STORE};
                     return s && (s.latest === null || !!s.pairs.get(s.latest)?.built); }}"""
    )
    key = page.evaluate(f"() => {STORE}.latest")
    return None if key is None else int(json.loads(key)["pair"])


def answer_all(page: Any, value: int) -> dict[str, dict[str, int]]:
    given = {side: dict.fromkeys(KEYS, value) for side in "AB"}
    for side, by_key in given.items():
        for key, point in by_key.items():
            question(page, side, key).locator(f"input[value='{point}']").check()
    return given


def test_the_held_pair_is_a_reservation_shown_from_its_nodes_built_ahead(world: World, new_page):
    person, link = world.pool_link("swap")
    page = new_page(LAPTOP)
    current = open_pair(page, link)
    settle(page)
    held = held_pair(page)
    assert live(world.engine, person) == [current, held]  # a live reservation, the second
    # The nodes built for it, marked; the component's element, kept.
    page.evaluate(
        f"""() => {{ const s = {STORE}; window.__held = s.pairs.get(s.latest).built.nodes;
                     window.__host = [...document.querySelectorAll('*')].find(
                       h => h.shadowRoot && h.shadowRoot.querySelector('.prb-pair')); }}"""
    )
    given = answer_all(page, 4)
    page.locator(f"{PAIR} button.submit").click()
    assert wait_other(page, current) == held
    swapped = page.evaluate(
        """() => { const root = window.__host.shadowRoot.querySelector('.prb-pair');
                   const shown = [...root.childNodes];  // (no stray text between the parts)
                   return window.__host.isConnected && shown.length === window.__held.length
                     && window.__held.every((node, i) => shown[i] === node); }"""
    )
    assert swapped, "the held pair was drawn again instead of shown from its nodes"
    assert stored(world.engine, current) == ("done", given, "", "")
    following = held_pair(page)  # the pool's next, held behind the pair now shown
    assert following not in (None, current, held)
    assert live(world.engine, person) == [held, following]
    answer_all(page, 2)  # the swap again, by keyboard
    page.keyboard.press("Control+Enter")
    assert wait_other(page, held) == following
    assert stored(world.engine, held)[0] == "done"


def test_a_refused_submit_shows_no_held_pair(world: World, new_page):
    """Missing answers: the server stores nothing, names no other pair; the page keeps the
    pair, its entries and the one held."""
    person, link = world.pool_link("refused")
    page = new_page(LAPTOP)
    current = open_pair(page, link)
    held = held_pair(page)
    question(page, "A", KEYS[0]).locator("input[value='3']").check()
    page.locator(f"{PAIR} button.submit").click()
    page.locator(f"{PAIR} .error").get_by_text("Please give every score").wait_for()
    settle(page)
    assert shown(page) == current
    assert held_pair(page) == held
    assert live(world.engine, person) == [current, held]
    assert stored(world.engine, current)[0] == "pending"


def test_no_pair_is_held_past_the_quota(world: World, new_page):
    """Quota 2: the second pair is held behind the first; behind the second, nothing."""
    person, link = world.pool_link("short-quota", study="short")
    page = new_page(LAPTOP)
    first = open_pair(page, link)
    second = held_pair(page)
    assert second is not None
    answer_all(page, 5)
    page.locator(f"{PAIR} button.submit").click()
    assert wait_other(page, first) == second
    assert held_pair(page) is None
    assert live(world.engine, person) == [second]
    page.get_by_text("Pair 2 of 2").wait_for()


def test_log_out_gives_the_held_pair_back(world: World, new_page):
    person, link = world.pool_link("leaves")
    page = new_page(LAPTOP)
    current = open_pair(page, link)
    held = held_pair(page)
    page.get_by_role("button", name="Log out").click()
    page.get_by_label(LOGIN_FIELD, exact=True).wait_for()  # the login page
    assert live(world.engine, person) == [current]
    with read_session(world.engine) as session:
        row = session.get(Assignment, held)
        assert row is not None
        assert (row.status, row.release_reason) == ("released", "logged out")


def delta_kinds(payload: str) -> list[str]:
    """What one websocket frame from the server carries: a delta's element ('bidi_component',
    'markdown: <its words>', ...), else the message's type."""
    message = ForwardMsg.FromString(base64.b64decode(payload))
    if message.WhichOneof("type") != "delta" or not message.delta.HasField("new_element"):
        return [str(message.WhichOneof("type"))]
    element = message.delta.new_element
    kind = str(element.WhichOneof("type"))
    body = {"markdown": element.markdown.body, "html": element.html.body[:60]}.get(kind)
    return [kind if body is None else f"{kind}: {body}"]


def test_a_submit_sends_the_next_pair_before_the_progress_line(world: World, new_page):
    """The run after a stored submit draws the pair first and the progress line above it after
    (into the container kept above the pair): the browser gets the pair's element before the
    rest of the page's (issue 36.2; in the run's order, read from the websocket's frames)."""
    _, link = world.pool_link("pair-first")
    page = new_page(LAPTOP)
    current = open_pair(page, link)
    settle(page)
    held = held_pair(page)
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    frames: list[str] = []
    cdp.on("Network.webSocketFrameReceived", lambda e: frames.append(e["response"]["payloadData"]))
    answer_all(page, 3)
    page.locator(f"{PAIR} button.submit").click()
    assert wait_other(page, current) == held
    settle(page)
    kinds = [kind for payload in frames for kind in delta_kinds(payload)]
    pair_at = kinds.index("bidi_component")  # the pair's (the held one's carrier comes last)
    progress_at = first(kinds, "markdown: **Pair")
    assert pair_at < progress_at, kinds
    assert kinds.count("bidi_component") == 2  # the pair and the next one held


def first(kinds: list[str], start: str) -> int:
    return next(i for i, kind in enumerate(kinds) if kind.startswith(start))


def test_a_first_open_sends_the_pair_before_the_rating_page_script(world: World, new_page):
    """On a first open the rating page's script (`annotate/app/rate.js`, 12 KB, for keys and
    focus outside the component) is drawn after the pair, so it does not go ahead of the pair
    on the websocket (issue 36.2: 60 ms at 1.6 Mbps). The page's style comes first (it lays
    the page out)."""
    _, link = world.pool_link("script-after")
    page = new_page(LAPTOP)
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    frames: list[str] = []
    cdp.on("Network.webSocketFrameReceived", lambda e: frames.append(e["response"]["payloadData"]))
    open_pair(page, link)
    settle(page)
    kinds = [kind for payload in frames for kind in delta_kinds(payload)]
    script_at = first(kinds, "html: <script>// prb-annotate rating page")
    assert first(kinds, "html: <style>") < kinds.index("bidi_component") < script_at, kinds
    page.wait_for_function("() => window.__prbRate === true")  # and it ran
