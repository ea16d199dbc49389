"""Participants' data in headless Chromium against the real server (issues 24.2, 24.3, 26.3):
the Publish page builds the card and its zip downloads from the browser (read back: the card's
files, no Prolific id, no free text); the Participants page; a participant withdraws from the
crowd link with erasure and sees the platform's way out. Screenshots at 1366x768 and 390x844
(to $PRB_SCREENSHOT_DIR when set)."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import select

from annotate.db import make_engine, read_session, write_session
from annotate.db.tables import Annotator
from annotate.domain.study import accounts
from annotate.vocabulary import Role
from tests.helpers.browser_helpers import (
    BROWSER_MARKS,
    LAPTOP,
    PHONE,
    choose_option,
    confirm_withdrawal,
    screenshot_dir,
    settle,
    start_server,
    withdraw,
)
from tests.security.participants_world import STUDY, study_key, two_participants

pytestmark = BROWSER_MARKS
VIEWPORTS = [("1366x768", LAPTOP), ("390x844", PHONE)]
SIDEBAR_AWAY = (
    "() => { const s = document.querySelector(\"[data-testid='stSidebar']\");"
    " return !s || s.getBoundingClientRect().right <= 1; }"
)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    folder = tmp_path_factory.mktemp("participants")
    db = folder / "participants.db"
    engine = make_engine(str(db))
    one, two = two_participants(engine)
    with write_session(engine) as session:
        _, token = accounts.create_account(session, "boss", role=Role.ADMIN)
    key = study_key(engine)
    server = start_server(db, folder / "server.log")
    try:
        yield {
            "url": server.url,
            "token": token,
            "key": key,
            "people": (one, two),
            "engine": engine,
            "shots": screenshot_dir(folder / "shots"),
        }
    finally:
        server.stop()
        engine.dispose()


def _open_admin_page(
    page: Any, world: dict[str, Any], path: str, heading: str, phone: bool
) -> None:
    page.goto(f"{world['url']}/{path}?token={world['token']}")
    settle(page)
    if phone:
        page.locator("[data-testid='stExpandSidebarButton']").click()
    picker = page.locator("[data-testid='stSidebar'] [data-testid='stSelectbox']").first
    choose_option(page, picker, STUDY, what="pick the study")
    page.get_by_role("heading", name=f"{heading}: {STUDY}").wait_for()
    settle(page)
    if phone:
        page.locator("[data-testid='stSidebarCollapseButton'] button").click()
        page.wait_for_function(SIDEBAR_AWAY)  # the sidebar slid out: the page is in view


@pytest.mark.parametrize(("name", "viewport"), VIEWPORTS)
def test_the_publish_page_downloads_the_card_as_a_zip(world, new_page, name, viewport):
    page = new_page(viewport)
    _open_admin_page(page, world, "admin-publish", "Publish", viewport is PHONE)
    page.get_by_text("comment", exact=False).first.wait_for()
    page.screenshot(path=str(world["shots"] / f"publish_choices_{name}.png"), full_page=True)
    page.get_by_role("button", name="Build the card").click()
    download_button = page.get_by_role("button", name="Download the card (zip)")
    download_button.wait_for()
    settle(page)
    page.get_by_text("Participants' privacy").first.scroll_into_view_if_needed()
    page.screenshot(path=str(world["shots"] / f"publish_preview_{name}.png"))
    with page.expect_download() as caught:
        download_button.click()
    data = Path(caught.value.path()).read_bytes()
    archive = zipfile.ZipFile(io.BytesIO(data))
    files = {n.split("/", 1)[1] for n in archive.namelist()}
    assert {"README.md", "ratings.parquet", "report.json", "report.md", "report.html"} <= files
    for person in world["people"]:
        for entry in archive.namelist():
            content = archive.read(entry)
            assert person.pid.encode() not in content, entry
            assert person.texts[0].encode() not in content, entry


@pytest.mark.parametrize(("name", "viewport"), VIEWPORTS)
def test_the_participants_page(world, new_page, name, viewport):
    page = new_page(viewport)
    _open_admin_page(page, world, "admin-participants", "Participants", viewport is PHONE)
    page.get_by_role("button", name="Download for bulk approval (CSV)").wait_for()
    page.screenshot(path=str(world["shots"] / f"participants_{name}.png"), full_page=True)


@pytest.mark.parametrize(("name", "viewport"), VIEWPORTS)
def test_a_participant_withdraws_from_the_link_with_erasure(world, new_page, name, viewport):
    pid = f"63dd44ee55ff66778899aa{name[:2]}"
    page = new_page(viewport)
    page.goto(
        f"{world['url']}/?study={STUDY}&key={world['key']}&PROLIFIC_PID={pid}"
        f"&STUDY_ID=s1&SESSION_ID=77aa88bb99cc00dd11ee22ff"
    )
    settle(page)
    # The account exists from the first deliberate action (issue 24.7): the consent.
    page.get_by_role("button", name="I agree to take part").click()
    settle(page)
    page.screenshot(path=str(world["shots"] / f"withdraw_closed_{name}.png"))
    button = confirm_withdrawal(page, erase=True)  # the side panel starts collapsed
    settle(page)
    page.screenshot(path=str(world["shots"] / f"withdraw_box_{name}.png"))
    withdraw(page, button)
    page.screenshot(path=str(world["shots"] / f"withdrawn_{name}.png"))
    assert "token=" not in page.url
    with read_session(world["engine"]) as session:
        names = session.exec(select(Annotator.name)).all()
    assert f"prolific:{pid}" not in names
