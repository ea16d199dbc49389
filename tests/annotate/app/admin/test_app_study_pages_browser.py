"""The study-operation pages in headless Chromium against the real server (issue 15.1, 15.2):
nothing is picked in a new session, the picked study is in every heading, a settings change
is shown and confirmed, the flag queue opens a pair, and screenshots at 1366x768 of the Flags,
Audit log and settings-confirmation views (to $PRB_SCREENSHOT_DIR when set)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import select

from annotate.db import make_engine, read_session
from annotate.db.tables import Assignment
from annotate.domain.study.permissions import SYSTEM
from annotate.services.admin import flags, studies
from annotate.services.admin.demo import set_up_demo
from annotate.services.participant.rating import skip_pair
from tests.helpers.browser_helpers import (
    BROWSER_MARKS,
    LAPTOP,
    choose_option,
    screenshot_dir,
    settle,
    start_server,
)

pytestmark = BROWSER_MARKS


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, Path, Any]]:
    """The demo with 3 simulated annotators; the demo annotator skipped one pair and an admin
    excluded another. Yields (url, admin token, screenshot folder, engine)."""
    folder = tmp_path_factory.mktemp("study_pages")
    db = folder / "pages.db"
    engine = make_engine(str(db))
    demo = set_up_demo(engine, simulated_annotators=3)
    with read_session(engine) as session:
        first = session.exec(select(Assignment).order_by(Assignment.id)).first()
    assert first is not None
    assert first.id is not None
    skip_pair(engine, annotator_id=first.annotator_id, assignment_id=first.id, reason="too long")
    server = start_server(db, folder / "server.log")
    try:
        yield server.url, demo.admin_token, screenshot_dir(folder / "shots"), engine
    finally:
        server.stop()
        engine.dispose()


def pick(page: Any, study: str) -> None:
    picker = page.locator("[data-testid='stSidebar'] [data-testid='stSelectbox']").first
    choose_option(page, picker, study, what="pick the study")


def go_to(page: Any, title: str) -> None:
    page.locator("[data-testid='stSidebarNav']").get_by_text(title, exact=True).click()
    settle(page)


def test_pick_then_flags_audit_and_a_confirmed_setting(world, new_page):
    url, token, shots, engine = world
    page = new_page(LAPTOP)
    page.goto(f"{url}/?token={token}")
    settle(page)
    page.get_by_role("heading", name="Progress", exact=True).wait_for()
    page.get_by_text("Choose the study to work on in the sidebar.").wait_for()
    pick(page, "demo")
    page.get_by_role("heading", name="Progress: demo", exact=True).wait_for()

    go_to(page, "Flags and skips")
    page.get_by_role("heading", name="Flags and skips: demo", exact=True).wait_for()
    page.locator("[data-testid='stText']", has_text="too long").wait_for()  # the item, opened
    page.get_by_text("Chosen (the benchmark's label)").wait_for()
    page.screenshot(path=str(shots / "flags_1366x768.png"))
    page.locator(".st-key-flag_note textarea").fill("checked, the pair is fine")
    page.get_by_role("button", name="Save").click()
    settle(page)
    page.get_by_text("resolved.").wait_for()

    go_to(page, "Studies")
    page.get_by_role("heading", name="Studies: demo", exact=True).wait_for()
    study_id = studies.get_study(engine, SYSTEM, "demo").id
    box = page.locator(f".st-key-study_{study_id}_k input")
    box.fill("2")
    box.press("Tab")
    page.get_by_role("button", name="Save settings").click()
    settle(page)
    page.get_by_text("confirm to change these settings").wait_for()
    page.get_by_role("button", name="Confirm").scroll_into_view_if_needed()
    page.screenshot(path=str(shots / "settings_confirm_1366x768.png"))
    assert studies.get_study(engine, SYSTEM, "demo").overlap == 3
    page.get_by_role("button", name="Confirm").click()
    settle(page)
    page.get_by_text("Settings of demo saved.").wait_for()
    assert studies.get_study(engine, SYSTEM, "demo").overlap == 2

    go_to(page, "Audit log")
    page.get_by_role("heading", name="Audit log: demo", exact=True).wait_for()
    page.locator("[data-testid='stDataFrame']").first.wait_for()
    page.screenshot(path=str(shots / "audit_1366x768.png"))
    assert flags.flag_queue(engine, SYSTEM, "demo", open_only=True) == []
