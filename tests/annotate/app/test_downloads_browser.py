"""A personal download's address in headless Chromium against the real server (issue 32): it
answers the browser that clicked while its page is on; another browser context (no cookie of
this one), a client with no cookie at all (a logged address) and the same browser once its page
has moved on get 404 (after 60 s: `tests/annotate/app/test_private_downloads.py`, with a clock). A
report is no personal file and is served as before. The grids offer no "Download as CSV" of their
own."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from annotate.db import make_engine, write_session
from annotate.domain.study import accounts
from annotate.services.admin.demo import set_up_demo
from annotate.vocabulary import Role
from tests.helpers.browser_helpers import (
    BROWSER_MARKS,
    choose_option,
    settle,
    start_server,
    status_without_cookies,
)

pytestmark = BROWSER_MARKS


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """The demo with 2 simulated annotators and an admin: (url, the admin's token)."""
    folder = tmp_path_factory.mktemp("downloads")
    db = folder / "downloads.db"
    engine = make_engine(str(db))
    set_up_demo(engine, simulated_annotators=2)
    with write_session(engine) as session:
        _, token = accounts.create_account(session, "boss", role=Role.ADMIN)
    engine.dispose()
    server = start_server(db, folder / "server.log")
    try:
        yield server.url, token
    finally:
        server.stop()


def _results_page(page: Any, url: str, token: str) -> None:
    page.goto(f"{url}/results?token={token}")
    settle(page, timeout=120_000)  # (a loaded machine: the first page computes the report)
    picker = page.locator("[data-testid='stSidebar'] [data-testid='stSelectbox']").first
    choose_option(page, picker, "demo", what="study picker")
    page.locator(".st-key-download_ratings_csv button").wait_for(timeout=120_000)  # (the report)
    settle(page, timeout=120_000)  # the whole page drawn


def _held_back_url(page: Any, key: str) -> str:
    """Click a download button with the browser's fetch of the file held back (aborted before
    it leaves the browser): the file's address, granted and not yet fetched."""
    page.route("**/media/**", lambda route: route.abort())
    with page.expect_request(lambda request: "/media/" in request.url) as caught:
        page.locator(f".st-key-{key} button").click()
    page.unroute("**/media/**")
    return str(caught.value.url)


def test_a_personal_download_answers_only_its_browser_while_on_the_page(world, new_page):
    url, token = world
    page = new_page()
    _results_page(page, url, token)
    with page.expect_download() as caught:
        page.locator(".st-key-download_ratings_csv button").click()
    download = caught.value
    ratings = pd.read_csv(Path(download.path()), keep_default_na=False)
    assert len(ratings) > 0
    assert "comment" not in ratings.columns
    address = download.url
    assert "/media/" in address
    assert page.request.get(address).status == 200  # its browser, still on the page
    other = new_page()
    other.goto(url)  # a browser context of its own, with its own cookie
    assert other.request.get(address).status == 404
    assert status_without_cookies(address) == 404

    held = _held_back_url(page, "download_ratings_jsonl")
    assert other.request.get(held).status == 404  # another browser context
    assert status_without_cookies(held) == 404  # a client with no cookie (a logged URL)
    page.get_by_role("link", name="Rate pairs").click()  # the page moves on
    settle(page)
    assert page.request.get(held).status == 404


def test_a_report_download_is_not_personal_and_grids_offer_no_csv(world, new_page):
    url, token = world
    page = new_page()
    _results_page(page, url, token)
    with page.expect_download() as caught:
        page.locator(".st-key-download_report_md button").click()
    assert caught.value.url
    assert Path(caught.value.path()).read_text(encoding="utf-8")
    assert page.request.get(caught.value.url).status == 200  # aggregates: served as before
    # (the first grid drawn open: the verdict's table is a static table, issue 34.5)
    grid = page.locator("[data-testid='stDataFrame']").locator("visible=true").first
    grid.hover()
    page.locator("[data-testid='stElementToolbar']").first.wait_for(state="attached")
    assert page.get_by_role("button", name="Download as CSV").count() == 0
