"""Entries survive a database outage (issue 24.5), in headless Chromium against a real
`streamlit run` server on a PostgreSQL server of the test's own (initdb on a free port; never the
shared one): the annotator makes all 8 choices, the server is stopped, Submit keeps the form
with every choice still selected and says "not saved, please try again"; after the restart the
same Submit saves the 8 rows exactly once.

The fallback view ($PRB_RATING_VIEW=streamlit, `FALLBACK_VIEW`): the pair drawn with Streamlit's
widgets. The default view's counterpart: `test_app_pair_component_browser.py` (a submit during an
outage) and `test_app_pair_outbox_browser.py`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func
from sqlmodel import select

from annotate.db import make_engine, read_session
from annotate.db.tables import Assignment, Rating
from annotate.services.admin.demo import set_up_demo
from annotate.vocabulary import DIMENSIONS
from support.appserver import AppServer
from support.own_postgres import OwnPostgres, available, own_postgres
from tests.helpers.browser_helpers import (
    BROWSER_MARKS,
    FALLBACK_VIEW,
    LAPTOP,
    SERVER_START_TIMEOUT_S,
    checked_score,
    current_assignment,
    settle,
    wait_for_pair,
)

pytestmark = [
    *BROWSER_MARKS,
    pytest.mark.skipif(not available(), reason="needs PostgreSQL's binaries and root"),
]

ANCHORS = {1: "Very poor", 2: "Poor", 3: "Acceptable", 4: "Good", 5: "Excellent"}
CHOICES = {"A": dict(zip(DIMENSIONS, (1, 2, 3, 4), strict=True))}
CHOICES["B"] = dict(zip(DIMENSIONS, (5, 4, 2, 1), strict=True))
NOT_SAVED = "Not saved: the database did not answer. Your entries are still here"


@contextmanager
def demo_on_own_postgres(
    log: Path, environment: dict[str, str] | None = None
) -> Iterator[tuple[OwnPostgres, AppServer, str, Any]]:
    """The demo on a PostgreSQL server of the test's own and an app server on it (with
    `environment`): the database, the app, the demo annotator's token, an engine."""
    with own_postgres() as database:
        engine = make_engine(database.url)
        demo = set_up_demo(engine)
        app = AppServer(database.url, log, environment=environment)
        app.start(timeout=SERVER_START_TIMEOUT_S)
        try:
            yield database, app, demo.token, engine
        finally:
            app.stop()
            engine.dispose()


@pytest.fixture
def server(tmp_path) -> Iterator[tuple[OwnPostgres, AppServer, str, Any]]:
    with demo_on_own_postgres(tmp_path / "server.log", FALLBACK_VIEW) as found:
        yield found


def _shown(page: Any) -> dict[str, dict[str, int | None]]:
    return {
        side: {dim: checked_score(page, f"{dim}_{side}") for dim in DIMENSIONS}
        for side in ("A", "B")
    }


def _rows(engine: Any, assignment_id: int) -> list[tuple[str, str, int]]:
    with read_session(engine) as session:
        rows = session.exec(select(Rating).where(Rating.assignment_id == assignment_id)).all()
        return sorted((r.response, r.dimension, r.score) for r in rows)


def test_a_submit_during_an_outage_keeps_every_choice_and_saves_once_after(server, new_page):
    database, app, token, engine = server
    page = new_page(LAPTOP)
    page.goto(f"{app.url}/?token={token}")
    settle(page)
    wait_for_pair(page, 1)
    first = current_assignment(page)
    for side, by_dim in CHOICES.items():
        for dim, value in by_dim.items():
            page.locator(f".st-key-{dim}_{side}").get_by_text(
                f"{value} · {ANCHORS[value]}", exact=True
            ).click()
    assert _shown(page) == CHOICES

    database.stop()
    submit = page.get_by_role("button", name="Submit and go to the next pair")
    submit.click()
    page.get_by_text(NOT_SAVED).first.wait_for()
    settle(page)
    assert current_assignment(page) == first
    assert _shown(page) == CHOICES  # every choice still selected
    page.keyboard.press("Control+s")  # a second try while still down: the same answer
    settle(page)
    page.get_by_text(NOT_SAVED).first.wait_for()
    assert _shown(page) == CHOICES
    assert page.locator("[data-testid='stException']").count() == 0

    database.start()
    submit.click()
    page.get_by_text("Pair 1 saved.").wait_for()
    wait_for_pair(page, 2)
    with read_session(engine) as session:
        total = session.exec(select(func.count()).select_from(Rating)).one()
    assert total == 8  # saved exactly once
    with read_session(engine) as session:
        shown_as_a = session.get(Assignment, first).chosen_side == "A"
    on = {"A": "chosen" if shown_as_a else "rejected", "B": "rejected" if shown_as_a else "chosen"}
    expected = [(on[side], dim, v) for side, by_dim in CHOICES.items() for dim, v in by_dim.items()]
    assert _rows(engine, first) == sorted(expected)
