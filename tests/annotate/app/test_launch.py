"""The production server's process (`annotate.app.launch`): the pair component's files are
served from the server's start, before any session has drawn the component, so the page's
preload header (`annotate.app.static_compression`) names files that exist on a first visit."""

from __future__ import annotations

import urllib.error
import urllib.request
from pathlib import Path

from annotate.app.participant.pair_component import PRELOADS
from annotate.db import make_engine
from tests.helpers.browser_helpers import start_server


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=30) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as error:
        return error.code


def test_a_fresh_server_serves_every_preloaded_component_file_before_any_session(
    tmp_path: Path,
) -> None:
    db = tmp_path / "fresh.db"
    make_engine(str(db))
    server = start_server(db, tmp_path / "server.log")
    try:
        statuses = {
            path: _status(f"{server.url}/_stcore/bidi-components/{path}") for path, _ in PRELOADS
        }
    finally:
        server.stop()
    assert statuses == {path: 200 for path, _ in PRELOADS}
