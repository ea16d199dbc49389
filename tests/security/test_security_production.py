"""Security 7: the production configuration turns off the agent API and the development flags.

`annotate.cli.server.streamlit_command` is the one production command line: `prb-annotate serve` and
`prb-annotate demo` run it (checked here by capturing what they start), scripts/demo.sh runs
`prb-annotate demo`, and the Dockerfile's CMD runs `prb-annotate serve`. The flags are given on
the command line, which wins over a config.toml and STREAMLIT_* variables: a server started
with variables that turn the agent API and full error details on still has them off.
"""

from __future__ import annotations

import json
import re
import sqlite3
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from security_helpers import command_options, in_chromium_marks
from typer.testing import CliRunner

from annotate.cli import app, server
from annotate.cli.server import APP_ENTRY, streamlit_command
from annotate.config import MAX_UPLOAD_MB
from annotate.db import make_engine
from annotate.domain.study import accounts
from annotate.services.admin.demo import set_up_demo
from support.appserver import AppServer
from tests.helpers.browser_helpers import settle, start_server

REPO = Path(__file__).resolve().parents[2]
REQUIRED = {
    "server.headless": "true",
    "browser.gatherUsageStats": "false",
    "server.fileWatcherType": "none",
    "server.runOnSave": "false",
    "global.developmentMode": "false",
    "server.enableAgentApi": "false",
    "server.enableXsrfProtection": "true",
    "server.enableCORS": "true",
    "server.maxUploadSize": str(MAX_UPLOAD_MB),
    "client.showErrorDetails": "none",
}
HOSTILE_ENVIRONMENT = {
    "STREAMLIT_SERVER_ENABLE_AGENT_API": "true",
    "STREAMLIT_CLIENT_SHOW_ERROR_DETAILS": "full",
    "STREAMLIT_GLOBAL_DEVELOPMENT_MODE": "true",
    "STREAMLIT_SERVER_ENABLE_XSRF_PROTECTION": "false",
    "STREAMLIT_SERVER_MAX_UPLOAD_SIZE": "5000",
}


def test_the_production_command_sets_every_safe_option():
    command = streamlit_command(8501, "0.0.0.0")
    # Streamlit's own command line, run by annotate.app.launch after it imports the db layer.
    assert command[1:5] == ["-m", "annotate.app.launch", "run", str(APP_ENTRY)]
    options = command_options(command)
    assert {k: options.get(k) for k in REQUIRED} == REQUIRED
    assert options["server.port"] == "8501"
    assert options["server.address"] == "0.0.0.0"
    # Nothing turns a development or agent feature back on.
    assert not [k for k in options if "agent" in k.lower() and k != "server.enableAgentApi"]
    assert "server.enableStaticServing" not in options
    assert "logger.level" not in options or options["logger.level"] in ("info", "warning", "error")


def test_the_error_details_value_hides_message_and_traceback():
    """Streamlit 1.67 reads "false" as "stacktrace" (tracebacks shown to everyone): the value
    the command gives must hide both the message and the traceback."""
    from streamlit import config
    from streamlit.elements.exception import _error_detail_visibility

    value = command_options(streamlit_command(1))["client.showErrorDetails"]
    config.set_option("client.showErrorDetails", value)
    try:
        shown = _error_detail_visibility(True)
    finally:
        config.set_option("client.showErrorDetails", "full")
    assert (shown.show_message, shown.show_trace) == (False, False)


@pytest.mark.parametrize(
    ("args", "port", "address"),
    [
        (["serve"], 8501, "0.0.0.0"),
        (["serve", "--port", "9", "--address", "127.0.0.1"], 9, "127.0.0.1"),
        (["demo", "--simulated", "0", "--port", "7"], 7, "127.0.0.1"),  # demo: this machine only
    ],
)
def test_the_cli_starts_exactly_the_production_command(db_url, monkeypatch, args, port, address):
    started: list[list[str]] = []

    def execvpe(file: str, command: list[str], env: dict[str, str]) -> None:
        assert file == command[0]
        # (the real one replaces the process: tests/annotate/cli/test_serve.py)
        started.append(command)

    monkeypatch.setattr(server.os, "execvpe", execvpe)
    result = CliRunner().invoke(app, ["--db", db_url, *args])
    assert result.exit_code == 0, result.output
    assert started == [streamlit_command(port, address)]


def test_the_demo_script_and_the_dockerfile_use_the_production_command():
    demo = (REPO / "scripts" / "demo.sh").read_text()
    assert re.search(r"^exec \.venv/bin/prb-annotate demo\b", demo, re.M)
    assert "streamlit run" not in demo

    docker = (REPO / "Dockerfile").read_text()
    instructions = [
        line.split(None, 1) for line in _logical_lines(docker) if not line.startswith("#")
    ]
    by_name: dict[str, list[str]] = {}
    for name, rest in instructions:
        by_name.setdefault(name.upper(), []).append(rest)
    (cmd,) = by_name["CMD"]
    assert json.loads(cmd)[:2] == ["prb-annotate", "serve"]
    assert "ENTRYPOINT" not in by_name
    users = by_name["USER"]
    assert users
    assert users[-1].strip() not in ("root", "0", "0:0")
    order = [name.upper() for name, _ in instructions]
    assert order.index("USER") < order.index("CMD")
    (health,) = by_name["HEALTHCHECK"]
    assert "/_stcore/health" in health
    assert "CMD" in health
    assert by_name["VOLUME"]
    assert "/data" in by_name["VOLUME"][0]
    assert "streamlit run" not in docker


def _logical_lines(text: str) -> list[str]:
    """Dockerfile lines with backslash continuations joined."""
    return [line.strip() for line in re.sub(r"\\\n", " ", text).splitlines() if line.strip()]


# ---------------------------------------------------------------- the real server


def _get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def _post_json(url: str, body: dict[str, Any]) -> tuple[int, bytes]:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def assert_agent_api_off(url: str, token: str) -> None:
    status, body = _get(f"{url}/_stcore/agent/openapi.json")
    assert status == 200
    document = json.loads(body)
    assert document["info"]["x-streamlit-agent-api"] == "disabled"
    status, body = _post_json(f"{url}/_stcore/agent/interact", {"query_params": {"token": [token]}})
    assert status >= 400, body[:300]
    assert b"session_id" not in body
    assert b"Rate pairs" not in body
    assert b"tree" not in body


def test_the_production_server_has_the_agent_api_off(secure_world):
    assert_agent_api_off(secure_world.url, secure_world.tokens["A"])


@pytest.fixture(scope="module")
def overridden_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[AppServer, str]]:
    """The production command, started with STREAMLIT_* variables that try to turn the unsafe
    options on, on a database whose `annotator` table disappears once the app has started."""
    folder = tmp_path_factory.mktemp("overridden")
    db = folder / "app.db"
    engine = make_engine(str(db))
    token = set_up_demo(engine).token
    engine.dispose()
    with pytest.MonkeyPatch.context() as patch:
        for name, value in HOSTILE_ENVIRONMENT.items():
            patch.setenv(name, value)
        started = start_server(db, folder / "server.log")
    try:
        yield started, token
    finally:
        started.stop()


def test_streamlit_variables_cannot_turn_the_agent_api_on(overridden_server):
    started, token = overridden_server
    assert_agent_api_off(started.url, token)


@in_chromium_marks
def test_an_uncaught_error_shows_no_details_in_the_browser(overridden_server, new_page):
    started, token = overridden_server
    page = new_page()
    page.goto(f"{started.url}/?token=not-a-token")  # the app opens its engine
    settle(page)
    page.get_by_text("This login link is not valid", exact=False).wait_for()
    database = started.log_path.parent / "app.db"
    with sqlite3.connect(database) as connection:
        connection.execute("ALTER TABLE annotator RENAME TO annotator_gone")
    page.goto(f"{started.url}/?token={token}")
    settle(page)
    # Streamlit's own error box, or (a database error before any account was found, which the
    # app turns into `Unavailable`) the app's "did not answer" message.
    said = page.get_by_text("The database did not answer", exact=False)
    page.locator("[data-testid='stException']").or_(said).first.wait_for()
    shown = page.locator("[data-testid='stMain']").inner_text()
    for detail in ("Traceback", "annotator", "OperationalError", "sqlite", ".py", "SELECT"):
        assert detail not in shown, f"the browser shows {detail!r}: {shown[:500]}"
    log = started.log_path.read_text(errors="replace")
    assert "no such table: annotator" in log  # the details went to the server log instead
    assert token not in log
    assert accounts.hash_token(token) not in log


def test_the_app_server_itself_sends_the_security_headers(secure_world):
    """Issue 24, item 7: without the balancer (`docker run -p 8501:8501`, `prb-annotate
    serve`), the production server's own answers carry the CSP, frame and referrer headers
    (`annotate.app.security_headers`, added by the launch wrapper)."""
    import urllib.request

    from annotate.app.security_headers import all_headers

    for path in ("/", "/_stcore/health", "/?token=x"):
        with urllib.request.urlopen(secure_world.url + path, timeout=30) as answer:
            sent = {name: answer.headers.get(name) for name in all_headers()}
        assert sent == all_headers(), path
