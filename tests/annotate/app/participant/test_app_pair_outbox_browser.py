"""Entries kept through an outage (issue 36.4; the component's outbox, `pair_component/assets/
outbox.js`), in headless Chromium against a real `streamlit run` server (PRB_RATING_VIEW=
component) on a PostgreSQL server of the test's own (initdb on a free port; never the shared
one), which the test stops and starts:

- (a) the database stopped, Submit says "not saved yet" inside the component (a live region);
  the annotator keeps editing; once the database is back the entries are sent by themselves
  (no click), stored once, with the edits;
- (c) a reload during the outage keeps them: the tab's sessionStorage holds them, and once the
  database answers the pair is drawn with them and sent by itself; a reload of a pair with
  unsent entries draws them; Log out forgets them.

Each time the stored rows are read back, and nothing the browser received, sent or kept in the
tab says which response is chosen. (b), the app server killed behind the balancer, is
tests/deploy/test_outbox_through_balancer.py.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func
from sqlmodel import col, select

from annotate.db import make_engine, read_session
from annotate.db.tables import EntryKey, Rating
from annotate.domain.study.studies import get_study
from annotate.questionnaire import DEFAULT_QUESTIONNAIRE
from support.appserver import AppServer
from support.own_postgres import available as postgres_available
from tests.annotate.app.participant.test_app_pair_component_browser import (
    NOT_SAVED_YET,
    PAIR,
    checked,
    question,
    stored,
)
from tests.annotate.app.test_app_accessibility_browser import severe_findings
from tests.annotate.app.test_app_outage_browser import demo_on_own_postgres
from tests.helpers.admin_helpers import make_study
from tests.helpers.browser_helpers import (
    BROWSER_MARKS,
    LAPTOP,
    PHONE,
    SERVER_START_TIMEOUT_S,
    Recorder,
    confirm_withdrawal,
    screenshot_dir,
    settle,
    withdraw,
)
from tests.helpers.component_entry import open_pair, shown, wait_other

pytestmark = [
    *BROWSER_MARKS,
    pytest.mark.skipif(not postgres_available(), reason="needs PostgreSQL's binaries and root"),
]

KEYS = DEFAULT_QUESTIONNAIRE.keys
GIVEN = {
    side: {key: (n + offset) % 5 + 1 for n, key in enumerate(KEYS)}
    for side, offset in (("A", 0), ("B", 3))
}
RESENT_MS = 60_000  # the outbox's longest wait between sends (15 s) and a rerun, under load


@pytest.fixture
def outage_server(tmp_path: Path) -> Iterator[tuple[Any, AppServer, str, Any]]:
    with demo_on_own_postgres(tmp_path / "server.log", {"PRB_RATING_VIEW": "component"}) as found:
        yield found


def enter(page: Any, given: dict[str, dict[str, int]], comment: str) -> None:
    for side, by_key in given.items():
        for key, value in by_key.items():
            question(page, side, key).locator(f"input[value='{value}']").check()
    page.locator(f"{PAIR} #prb-comment").fill(comment)


def kept(page: Any, pair: int) -> dict[str, Any] | None:
    """What the tab's sessionStorage keeps for the pair (None: nothing)."""
    text = page.evaluate("(p) => sessionStorage.getItem('prb-entry:' + p)", str(pair))
    return None if text is None else json.loads(text)


def kept_anything(page: Any) -> str:
    """Every entry the tab keeps, as one text."""
    return page.evaluate(
        "() => Object.keys(sessionStorage).filter(k => k.startsWith('prb-entry:'))"
        ".map(k => k + '=' + sessionStorage.getItem(k)).join('\\n')"
    )


def not_saved_yet(page: Any) -> None:
    status = page.locator(f"{PAIR} .outbox[role='status'][aria-live='polite']")
    status.get_by_text(NOT_SAVED_YET).wait_for()


def counts(engine: Any, assignment_id: int) -> tuple[int, int]:
    """The pair's stored score rows and entry keys."""
    with read_session(engine) as session:
        scores = session.exec(
            select(func.count()).select_from(Rating).where(Rating.assignment_id == assignment_id)
        ).one()
        keys = session.exec(
            select(func.count())
            .select_from(EntryKey)
            .where(col(EntryKey.assignment_id) == assignment_id)
        ).one()
    return scores, keys


def no_label(record: Recorder, page: Any) -> None:
    record.snapshot(page, "end")
    assert record.label_leaks() == []
    assert "chosen" not in kept_anything(page).lower()
    assert "rejected" not in kept_anything(page).lower()


def look_at_the_outage(page: Any, shots: Path) -> None:
    """Screenshots of "not saved yet" at 1366x768 and 390x844 (for a person to look at), and
    axe finds no serious or critical violation on the page in that state."""
    for name, size in (("laptop", LAPTOP), ("phone", PHONE)):
        page.set_viewport_size(size)
        page.locator(f"{PAIR} .outbox").scroll_into_view_if_needed()
        page.screenshot(path=str(shots / f"outbox_not_saved_{name}.png"))
        settle(page)  # (not while a retry's run fades the page's other elements)
        assert severe_findings(page, "not saved yet", name) == []
    page.set_viewport_size(LAPTOP)


def test_a_database_outage_keeps_working_and_sends_once_by_itself(
    outage_server, new_page, tmp_path
):
    database, app, token, engine = outage_server
    shots = screenshot_dir(tmp_path / "shots")
    page = new_page(LAPTOP)
    record = Recorder().attach(page)
    first = open_pair(page, f"{app.url}/?token={token}")
    enter(page, GIVEN, "typed before")
    assert kept(page, first)["entries"]["comment"] == "typed before"  # kept from the first keys

    database.stop()
    page.locator(f"{PAIR} button.submit").click()
    not_saved_yet(page)
    assert page.locator(f"{PAIR} .error").inner_text() == ""  # said once, by the outbox
    record.snapshot(page, "outage")
    # The annotator keeps working on the pair: one answer changed, the comment extended.
    edited = {side: dict(by_key) for side, by_key in GIVEN.items()}
    edited["B"][KEYS[0]] = 5 if GIVEN["B"][KEYS[0]] != 5 else 1
    question(page, "B", KEYS[0]).locator(f"input[value='{edited['B'][KEYS[0]]}']").check()
    page.locator(f"{PAIR} #prb-comment").fill("typed before and during")
    assert kept(page, first)["entries"]["scores"] == edited
    assert kept(page, first)["send"]["action"] == "submit"
    not_saved_yet(page)
    look_at_the_outage(page, shots)

    database.start()
    page.locator(f"{PAIR}[data-pair]:not([data-pair='{first}'])").wait_for(timeout=RESENT_MS)
    settle(page)
    assert stored(engine, first) == ("done", edited, "typed before and during", "")
    assert counts(engine, first) == (2 * len(KEYS), 1)  # stored once, by one entry
    assert kept(page, first) is None  # confirmed: forgotten
    no_label(record, page)


def test_a_reload_during_an_outage_keeps_the_entries_and_log_out_forgets_them(
    outage_server, new_page
):
    database, app, token, engine = outage_server
    page = new_page(LAPTOP)
    record = Recorder().attach(page)
    first = open_pair(page, f"{app.url}/?token={token}")
    enter(page, GIVEN, "sent during the outage")
    database.stop()
    page.locator(f"{PAIR} button.submit").click()
    not_saved_yet(page)

    page.reload()  # a new session, and the database still down: the page says so
    page.get_by_text("The database did not answer").first.wait_for()
    assert kept(page, first)["entries"]["scores"] == GIVEN
    assert kept(page, first)["send"] is not None

    database.start()
    page.get_by_role("button", name="Try again").click()
    # The pair drawn with the kept entries, sent by itself: stored once, as entered.
    second = wait_other(page, first)
    page.locator(f"{PAIR}[data-pair='{second}']").wait_for(timeout=RESENT_MS)
    assert stored(engine, first) == ("done", GIVEN, "sent during the outage", "")
    assert counts(engine, first) == (2 * len(KEYS), 1)
    assert kept(page, first) is None

    # Entries not sent yet are drawn again after a reload; Log out forgets them.
    later = {side: {key: 6 - v for key, v in by_key.items()} for side, by_key in GIVEN.items()}
    enter(page, later, "not sent yet")
    page.reload()
    settle(page)
    assert open_pair(page, page.url) == second
    assert checked(page, KEYS) == later
    assert page.locator(f"{PAIR} #prb-comment").input_value() == "not sent yet"
    assert stored(engine, second)[0] == "pending"
    no_label(record, page)
    page.get_by_role("button", name="Log out").click()
    page.get_by_label("Your access token", exact=True).wait_for()
    assert kept_anything(page) == ""


def test_withdrawal_forgets_the_entries(tmp_path: Path, new_page: Any) -> None:
    """A crowd participant (the study link, Start) enters answers on a pair in the component,
    then withdraws from the side panel: the tab keeps nothing of them."""
    db = tmp_path / "crowd.db"
    engine = make_engine(str(db))
    make_study(engine, "crowd", pairs=3, pool_open=True, enrolment_open=True)
    with read_session(engine) as session:
        key = get_study(session, "crowd").enrolment_key
    server = AppServer(
        str(db), tmp_path / "server.log", environment={"PRB_RATING_VIEW": "component"}
    ).start(timeout=SERVER_START_TIMEOUT_S)
    try:
        page = new_page(LAPTOP)
        page.goto(
            f"{server.url}/?study=crowd&key={key}&PROLIFIC_PID=5f0a1b2c3d4e5f6a7b8c9d0e"
            "&STUDY_ID=s1&SESSION_ID=77aa88bb99cc00dd11ee22ff"
        )
        settle(page)
        page.get_by_role("button", name="Start").click()
        settle(page)
        first = shown(page)
        enter(page, {"A": {KEYS[0]: 3}}, "to be forgotten")
        assert kept(page, first) is not None
        withdraw(page, confirm_withdrawal(page))
        assert kept_anything(page) == ""
    finally:
        server.stop()
        engine.dispose()
