"""No secrets in the logs of the production topology (issue 24, item 4): a crowd participant
opens the study's link (its key and the platform's PROLIFIC_PID, STUDY_ID and SESSION_ID) and
presses Start, and an annotator opens a login link, in Chromium through HAProxy in front of two
app servers (`support.cluster`, the shipped `deploy/haproxy.cfg`); then both reload the page
with its whole URL. HAProxy's log (its `log-format` writes the path without the query string)
and both servers' logs hold the requests but no token, key or platform id; the login token has
left the address bar (replaced by the page's session value) and the reload works from it."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine

from annotate.db import write_session
from annotate.domain.crowd.enrolment import enrolment_link
from annotate.domain.study import accounts, studies
from annotate.domain.study.permissions import SYSTEM
from annotate.services.admin.data import import_files
from support.cluster import Cluster

pytestmark = pytest.mark.skipif(shutil.which("haproxy") is None, reason="needs haproxy")

PID = "5f8e2b1c9d3a4e0012345678"
PLATFORM_STUDY = "60aa11bb22cc33dd44ee55ff"
SESSION = "sess7f3a9c2e8b1d4f60aa"


@pytest.fixture
def cluster(db_url: str, tmp_path: Path) -> Iterator[Cluster]:
    folder = tmp_path / "cluster"
    folder.mkdir()
    running = Cluster(db_url, folder, size=2)
    try:
        yield running.start()
    finally:
        running.stop()


def _crowd_study(
    engine: Engine, tmp_path: Path, write_records: Any, make_record: Any
) -> tuple[str, str]:
    """A crowd study with pairs; returns (its enrolment key, an annotator's login token)."""
    records = [make_record(f"p{i}") for i in range(3)]
    path = write_records(tmp_path / "A_test.jsonl", records)
    import_files(engine, SYSTEM, [path], study="crowd")
    with write_session(engine) as session:
        studies.update_study(session, "crowd", pool_open=True, enrolment_open=True)
        key = studies.get_study(session, "crowd").enrolment_key
        token = accounts.create_account(session, "ann", role="annotator")[1]
    assert key
    return key, token


def test_a_crowd_run_through_the_balancer_leaves_no_secret_in_any_log(
    cluster: Cluster,
    engine: Engine,
    tmp_path: Path,
    new_page: Any,
    write_records: Any,
    make_record: Any,
) -> None:
    key, token = _crowd_study(engine, tmp_path, write_records, make_record)
    link = enrolment_link("crowd", key, cluster.url)
    link = link.replace("{{%PROLIFIC_PID%}}", PID).replace("{{%STUDY_ID%}}", PLATFORM_STUDY)
    link = link.replace("{{%SESSION_ID%}}", SESSION)
    participant = new_page()
    participant.goto(link)
    participant.get_by_role("button", name="Start").wait_for()
    participant.reload()
    participant.get_by_role("button", name="Start").wait_for()
    annotator = new_page()
    annotator.goto(f"{cluster.url}/?token={token}")
    # The page replaces the token in the address bar with its session value (issue 24.4).
    annotator.wait_for_function("() => /[?&]s=s2\\./.test(location.search)")
    assert "token=" not in annotator.url
    annotator.reload()
    annotator.wait_for_function("() => /[?&]s=s2\\./.test(location.search)")

    proxy_log = (cluster.folder / "haproxy.log").read_text(encoding="utf-8", errors="replace")
    assert '"/"' in proxy_log  # the page loads are logged, by their path alone
    logs = {"haproxy.log": proxy_log}
    for path in sorted(cluster.folder.glob("app*.log")):
        logs[path.name] = path.read_text(encoding="utf-8", errors="replace")
    assert len(logs) == 3
    for name, text in logs.items():
        for secret in (token, key, PID, PLATFORM_STUDY, SESSION, "token=", "PROLIFIC_PID"):
            assert secret not in text, f"{name} holds {secret!r}"
