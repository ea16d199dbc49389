"""Entries kept through an app server's death (issue 36.4, (b)): HAProxy in front of two real
app servers with the rating component (PRB_RATING_VIEW=component), one database. The
annotator enters a pair's answers and comment on one server; that server is killed; the
component says "not saved yet" and Submit is kept as a send; the tab reconnects through the
balancer to the other server by itself, and the outbox sends the entries there with their key
(the new server's session has not run the page and drops the event, so the outbox reloads the
page, which draws the pair from the tab's sessionStorage and sends it): stored once, exactly
as entered on the dead server; nothing the browser received, sent or kept says which response
is chosen.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine

from annotate.services.admin.demo import set_up_demo
from support.cluster import STICKY_COOKIE, Cluster
from tests.annotate.app.participant.test_app_pair_component_browser import (
    PAIR,
    open_pair,
    stored,
)
from tests.annotate.app.participant.test_app_pair_outbox_browser import (
    GIVEN,
    KEYS,
    RESENT_MS,
    counts,
    enter,
    kept,
    no_label,
    not_saved_yet,
)
from tests.helpers.browser_helpers import BROWSER_MARKS, LAPTOP, Recorder

pytestmark = [
    *BROWSER_MARKS,
    pytest.mark.skipif(shutil.which("haproxy") is None, reason="needs haproxy"),
]


def _server_of(page: Any) -> str:
    return {c["name"]: c["value"] for c in page.context.cookies()}[STICKY_COOKIE]


def test_the_tab_reconnects_to_the_other_server_and_sends_its_entries_once(
    db_url: str, engine: Engine, tmp_path: Path, new_page: Any, monkeypatch: Any
) -> None:
    monkeypatch.setenv("PRB_RATING_VIEW", "component")  # (the app servers inherit it)
    token = set_up_demo(engine).token
    cluster = Cluster(db_url, tmp_path, size=2)
    try:
        cluster.start()
        page = new_page(LAPTOP)
        record = Recorder().attach(page)
        first = open_pair(page, f"{cluster.url}/?token={token}")
        page.wait_for_function("() => location.search.startsWith('?s=')")
        enter(page, GIVEN, "typed on the first server")
        used = _server_of(page)
        cluster.servers[int(used.removeprefix("app")) - 1].kill()

        not_saved_yet(page)  # the line is cut
        page.locator(f"{PAIR} button.submit").click()  # kept as a send
        assert kept(page, first)["send"]["action"] == "submit"
        # The tab reconnects through the balancer to the other server and sends by itself.
        page.locator(f"{PAIR}[data-pair]:not([data-pair='{first}'])").wait_for(timeout=RESENT_MS)
        assert _server_of(page) != used
        assert stored(engine, first) == ("done", GIVEN, "typed on the first server", "")
        assert counts(engine, first) == (2 * len(KEYS), 1)  # stored once
        assert kept(page, first) is None
        no_label(record, page)
    finally:
        cluster.stop()
