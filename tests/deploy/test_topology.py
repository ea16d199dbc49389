"""The production topology as deployed: HAProxy (Debian's package) in front of two real app
servers on one database (`support.cluster`, what `scripts/cluster.sh` and `compose.yaml` run).

- The shipped `deploy/haproxy.cfg` is what `support.cluster.haproxy_config` renders, and
  HAProxy accepts it.
- Through the balancer: the security headers are on every answer, the agent API is refused, a
  sticky cookie is set, Streamlit's scripts come gzipped (by the app server, at a third of
  their size or less) and cacheable for a year, every page
  names the rating page's late scripts for preloading (each of them served), and Chromium
  opens a login link and sees its first pair over a websocket, with no Content-Security-Policy
  violation.
- A session survives its server (issue 32.1): every app server holds the same session secret,
  so after the server a browser used is killed, a reload through the balancer reaches the other
  and the address's session value still logs in (no token left in it).
- A server killed under load: every annotator it served reopens the page through the balancer
  and finishes on the other server; nothing acknowledged is lost, nothing is saved twice.
"""

from __future__ import annotations

import gzip
import re
import shutil
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator
from email.message import Message
from pathlib import Path
from typing import Any

import pytest
import yaml
from sqlalchemy.engine import Engine

from annotate.app.static_compression import rating_page_preloads
from annotate.config import SESSION_SECRET_ENV
from support.cluster import (
    COMPOSE_DNS,
    COMPOSE_SERVERS,
    DEPLOY_CONFIG,
    ROOT,
    SECURITY_HEADERS,
    STICKY_COOKIE,
    Cluster,
    haproxy_config,
)
from support.loadtest import (
    AGENT_API_FLAGS,
    AGENT_ENVIRONMENT,
    RATINGS_PER_PAIR,
    load_with_crash,
    prepare_load_study,
)

pytestmark = pytest.mark.skipif(shutil.which("haproxy") is None, reason="needs haproxy")


def test_the_shipped_config_is_the_rendered_one_and_haproxy_accepts_it() -> None:
    rendered = haproxy_config(COMPOSE_SERVERS, dns=COMPOSE_DNS)
    assert DEPLOY_CONFIG.read_text(encoding="utf-8") == rendered, (
        "deploy/haproxy.cfg is stale: python -m support.cluster --write-deploy"
    )
    check = subprocess.run(
        ["haproxy", "-c", "-f", str(DEPLOY_CONFIG)], capture_output=True, text=True, timeout=30
    )
    assert check.returncode == 0, check.stdout + check.stderr


def test_compose_gives_every_app_server_the_same_required_session_secret() -> None:
    """Each of compose.yaml's app servers gets $PRB_SESSION_SECRET, and compose refuses to start
    without it (`${VAR:?message}`)."""
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text(encoding="utf-8"))
    apps = {name: service for name, service in compose["services"].items() if name != "db"}
    apps.pop("balancer")
    assert sorted(apps) == [name for name, _ in COMPOSE_SERVERS]
    given = {service["environment"][SESSION_SECRET_ENV] for service in apps.values()}
    assert given == {"${PRB_SESSION_SECRET:?set PRB_SESSION_SECRET}"}


@pytest.fixture
def cluster(db_url: str, tmp_path: Path) -> Iterator[Cluster]:
    running = Cluster(db_url, tmp_path, size=2)
    try:
        yield running.start()
    finally:
        running.stop()


def _get(url: str, headers: dict[str, str] | None = None) -> tuple[int, Message, bytes]:
    """Status, headers (names case-insensitive) and body."""
    try:
        request = urllib.request.Request(url, headers=headers or {})
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.headers, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def test_headers_stickiness_and_a_real_browser_through_the_balancer(
    cluster: Cluster, engine: Engine, tmp_path: Path, new_page: Any
) -> None:
    load = prepare_load_study(engine, tmp_path, annotators=5, pairs_each=1)
    status, headers, body = _get(cluster.url + "/")
    assert status == 200
    page = body.decode("utf-8")
    for name, value in SECURITY_HEADERS.items():
        assert headers.get(name) == value
    policy = headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in policy
    assert "script-src 'self'" in policy
    assert "unsafe-eval'" not in policy.replace("'wasm-unsafe-eval'", "")
    cookies = headers.get_all("Set-Cookie") or []  # the balancer's and the app's own
    assert any(c.startswith(f"{STICKY_COOKIE}=app") for c in cookies), cookies
    assert _get(cluster.url + "/_stcore/agent/openapi.json")[0] == 404

    preloads = re.findall(r"<([^>]+)>; rel=modulepreload", headers.get("Link", ""))
    chunks = rating_page_preloads(component=True)  # the default view: the component's too
    assert preloads[: len(chunks)] == chunks
    own = preloads[len(chunks) :]  # then the pair component's own files
    assert own
    assert all(p.startswith("/_stcore/bidi-components/") for p in own), own
    assert len(preloads) >= 20
    bundle = "/" + re.findall(r'src="\.?/?(static/js/index[^"]+)"', page)[0]
    for path in [*preloads[:3], bundle]:
        status, script, body = _get(cluster.url + path, {"Accept-Encoding": "gzip"})
        assert status == 200, path
        assert script.get("Content-Encoding") == "gzip", path
        assert "immutable" in script.get("Cache-Control", ""), path
        assert script.get("Vary") == "Accept-Encoding", path
        script_text = gzip.decompress(body)
        assert script_text[:1] not in (b"", b"<"), path
    # Compressed by the app server (zlib, once per file), not by HAProxy's own compressor
    # (libslz in Debian's build: 479 -> 227 KB for the bundle's entry; zlib: 148 KB).
    assert len(body) < len(script_text) / 3, (len(body), len(script_text))

    browser_page = new_page()
    violations: list[str] = []
    browser_page.on(
        "console", lambda m: violations.append(m.text) if "Security Policy" in m.text else 0
    )
    token = next(iter(load.tokens.values()))
    browser_page.goto(f"{cluster.url}/?token={token}")
    # the pair's form, over the socket
    browser_page.get_by_role("button", name="Submit").first.wait_for()
    # The rating page's own inline script ran: the policy allows it by its hash.
    browser_page.wait_for_function("() => window.__prbRate === true", timeout=10_000)
    assert violations == []
    cookies = {c["name"]: c["value"] for c in browser_page.context.cookies()}
    assert cookies.get(STICKY_COOKIE) in {"app1", "app2"}


def test_a_session_survives_the_server_it_used_being_killed(
    cluster: Cluster, engine: Engine, tmp_path: Path, new_page: Any
) -> None:
    load = prepare_load_study(engine, tmp_path, annotators=5, pairs_each=1)
    token = next(iter(load.tokens.values()))
    page = new_page()
    page.goto(f"{cluster.url}/?token={token}")
    page.get_by_role("button", name="Submit").first.wait_for()
    page.wait_for_function("() => location.search.startsWith('?s=')")
    address = page.url
    used = {c["name"]: c["value"] for c in page.context.cookies()}[STICKY_COOKIE]
    cluster.servers[int(used.removeprefix("app")) - 1].kill()

    page.reload()  # the balancer's cookie names a dead server: it goes to the other one
    page.get_by_role("button", name="Submit").first.wait_for()
    assert {c["name"]: c["value"] for c in page.context.cookies()}[STICKY_COOKIE] != used
    assert page.url == address  # the same session value, still valid
    assert token not in page.url
    assert page.get_by_label("Your access token", exact=True).count() == 0


def test_a_server_killed_under_load_its_annotators_finish_on_the_other(
    db_url: str, engine: Engine, tmp_path: Path
) -> None:
    load = prepare_load_study(engine, tmp_path, annotators=10, pairs_each=4)
    cluster = Cluster(
        db_url,
        tmp_path,
        size=2,
        extra_flags=AGENT_API_FLAGS,
        environment=AGENT_ENVIRONMENT,  # the view the agent API drives (support/loadtest.py)
        agent_api_through_balancer=True,
    )
    try:
        cluster.start()
        crash = load_with_crash(cluster.servers, engine, load, 10, balancer_url=cluster.url)
    finally:
        cluster.stop()

    assert crash.killed
    assert any(run.cut_off for run in crash.before), "no annotator was on the killed server"
    assert [e for run in crash.before + crash.after for e in run.errors] == []
    assert crash.after_crash.ok
    assert crash.resume_mismatches == {}
    assert crash.final.ok
    assert crash.final.done == 10 * 4
    assert crash.final.ratings == 10 * 4 * RATINGS_PER_PAIR
    assert len(crash.acknowledged) == len(set(crash.acknowledged)), "a pair was saved twice"
