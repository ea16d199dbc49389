"""A personal download through the production topology (issue 32): an admin downloads the
Results page's ratings in Chromium through HAProxy in front of two app servers
(`support.cluster`). HAProxy's log records the file's `/media/` address; no address in the log
serves the file to anyone reading it (a client without the browser's cookie, another browser
context), nor to the admin's own browser once its page has moved on."""

from __future__ import annotations

import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine

from annotate.db import write_session
from annotate.domain.study import accounts
from annotate.services.admin.demo import set_up_demo
from annotate.vocabulary import Role
from support.cluster import Cluster
from tests.helpers.browser_helpers import choose_option, settle, status_without_cookies

pytestmark = pytest.mark.skipif(shutil.which("haproxy") is None, reason="needs haproxy")
MEDIA = re.compile(r"/media/[0-9a-f]+\.[a-z]+")
LOG_WAIT_S = 20  # HAProxy writes a request's line once it is answered


@pytest.fixture
def cluster(db_url: str, tmp_path: Path) -> Iterator[Cluster]:
    folder = tmp_path / "cluster"
    folder.mkdir()
    running = Cluster(db_url, folder, size=2)
    try:
        yield running.start()
    finally:
        running.stop()


def _logged_media(log: Path) -> list[str]:
    """The `/media/` addresses in HAProxy's log, once it holds one (polled: a file, no page)."""
    deadline = time.monotonic() + LOG_WAIT_S
    while True:
        found = MEDIA.findall(log.read_text(encoding="utf-8", errors="replace"))
        if found or time.monotonic() > deadline:
            return sorted(set(found))
        time.sleep(0.2)


def test_no_address_in_the_balancers_log_serves_a_personal_download(
    cluster: Cluster, engine: Engine, new_page: Any
) -> None:
    set_up_demo(engine, simulated_annotators=2)
    with write_session(engine) as session:
        token = accounts.create_account(session, "boss", role=Role.ADMIN)[1]
    page = new_page()
    page.goto(f"{cluster.url}/results?token={token}")
    settle(page, timeout=120_000)
    picker = page.locator("[data-testid='stSidebar'] [data-testid='stSelectbox']").first
    choose_option(page, picker, "demo", what="study picker")
    button = page.locator(".st-key-download_ratings_csv button")
    button.wait_for(timeout=120_000)
    settle(page, timeout=120_000)
    with page.expect_download() as caught:
        button.click()
    assert Path(caught.value.path()).read_bytes().startswith(b"study,pair_id")
    logged = _logged_media(cluster.folder / "haproxy.log")
    assert logged, "the download's address is not in HAProxy's log"
    other = new_page()
    other.goto(cluster.url)  # a browser context of its own (its own cookies, sticky one too)
    for path in logged:
        assert status_without_cookies(cluster.url + path) == 404, path
        assert other.request.get(cluster.url + path).status == 404, path
    page.get_by_role("link", name="Rate pairs").click()  # the admin's page moves on
    settle(page)
    for path in logged:
        assert page.request.get(cluster.url + path).status == 404, path
