"""The server's session secret (issue 32.1): `prb-annotate serve` and the app server itself refuse
to start without one of at least 32 random bytes ($PRB_SESSION_SECRET, or a file named by
$PRB_SESSION_SECRET_FILE that only its owner can read); `prb-annotate demo` makes such a file
once and reuses it. Real files, the real CLI (only the final exec is recorded, as in
tests/security/test_security_production.py) and a real app-server process."""

from __future__ import annotations

import os
import secrets
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from annotate.cli import server
from annotate.cli.common import app
from annotate.cli.server import APP_ENTRY, DEMO_SECRET_FILE, streamlit_command
from annotate.config import (
    SESSION_SECRET_ENV,
    SESSION_SECRET_FILE_ENV,
    SessionSecretError,
    session_secret,
)

GOOD = secrets.token_urlsafe(32)


@pytest.fixture
def no_secret(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """No secret in the environment (restored after the test)."""
    for name in (SESSION_SECRET_ENV, SESSION_SECRET_FILE_ENV):
        monkeypatch.setenv(name, "")  # (recorded: whatever a test sets is undone after it)
        monkeypatch.delenv(name)
    return monkeypatch


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[tuple[list[str], dict[str, str]]]:
    """The command lines and environments the CLI would exec (the server is not started)."""
    calls: list[tuple[list[str], dict[str, str]]] = []
    monkeypatch.setattr(server.os, "execvpe", lambda _f, cmd, env: calls.append((cmd, env)))
    return calls


def _secret_file(folder: Path, mode: int, text: str = GOOD) -> Path:
    path = folder / "session_secret"
    path.write_text(text + "\n", encoding="utf-8")
    path.chmod(mode)
    return path


def test_a_secret_from_the_environment_or_an_owner_only_file(no_secret, tmp_path: Path):
    no_secret.setenv(SESSION_SECRET_ENV, GOOD)
    assert session_secret() == GOOD
    no_secret.delenv(SESSION_SECRET_ENV)
    no_secret.setenv(SESSION_SECRET_FILE_ENV, str(_secret_file(tmp_path, 0o600)))
    assert session_secret() == GOOD
    no_secret.setenv(SESSION_SECRET_FILE_ENV, str(_secret_file(tmp_path, 0o400)))
    assert session_secret() == GOOD


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("", "no session secret: set $PRB_SESSION_SECRET or $PRB_SESSION_SECRET_FILE"),
        ("   ", "no session secret"),
        (GOOD[:42], "too weak: expected 32 random bytes or more"),  # 31 bytes' worth
        ("a" * 64, "got 64 characters, 1 distinct"),
        ("012345678" * 8, "got 72 characters, 9 distinct"),
    ],
    ids=["empty", "spaces", "31 bytes", "one character", "nine characters"],  # no secret in an id
)
def test_a_missing_or_weak_secret_is_refused(no_secret, value: str, expected: str):
    no_secret.setenv(SESSION_SECRET_ENV, value)
    with pytest.raises(SessionSecretError, match=expected.replace("$", r"\$")):
        session_secret()


@pytest.mark.parametrize("mode", [0o640, 0o604, 0o620, 0o666])
def test_a_secret_file_others_may_read_or_write_is_refused(no_secret, tmp_path: Path, mode: int):
    path = _secret_file(tmp_path, mode)
    no_secret.setenv(SESSION_SECRET_FILE_ENV, str(path))
    with pytest.raises(SessionSecretError) as refused:
        session_secret()
    message = str(refused.value)
    assert message.startswith(f"{path}: the session secret file is readable or writable by others")
    assert f"chmod 600 {path}" in message
    assert GOOD not in message


def test_a_missing_secret_file_is_named(no_secret, tmp_path: Path):
    no_secret.setenv(SESSION_SECRET_FILE_ENV, str(tmp_path / "absent"))
    with pytest.raises(SessionSecretError, match="absent: cannot read the session secret file"):
        session_secret()


def test_serve_refuses_to_start_without_a_good_secret(no_secret, started, tmp_path: Path):
    db = str(tmp_path / "serve.db")
    refused = CliRunner().invoke(app, ["--db", db, "serve"])
    assert refused.exit_code == 1
    assert "not started: no session secret" in refused.output
    no_secret.setenv(SESSION_SECRET_FILE_ENV, str(_secret_file(tmp_path, 0o644)))
    refused = CliRunner().invoke(app, ["--db", db, "serve"])
    assert refused.exit_code == 1
    assert "readable or writable by others" in refused.output
    assert started == []
    (tmp_path / "session_secret").chmod(0o600)
    assert CliRunner().invoke(app, ["--db", db, "serve"]).exit_code == 0
    assert [command for command, _ in started] == [streamlit_command(8501, "0.0.0.0")]


def test_the_app_server_itself_refuses_to_start_without_one(tmp_path: Path):
    """Whatever starts it (`streamlit_command` directly, as the tests and benchmarks do)."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PRB_SESSION")}
    environment[SESSION_SECRET_ENV] = "short"
    command = streamlit_command(1, "127.0.0.1")
    assert str(APP_ENTRY) in command
    done = subprocess.run(
        command, env=environment, capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert done.returncode == 1
    assert (
        "the app server did not start: the session secret in $PRB_SESSION_SECRET is too weak"
        in (done.stderr)
    )


def test_the_demo_makes_its_secret_file_once_and_reuses_it(
    no_secret, started, tmp_path: Path, db_url: str
):
    no_secret.chdir(tmp_path)
    arguments = ["--db", db_url, "demo", "--simulated", "0"]
    for _ in range(2):
        result = CliRunner().invoke(app, arguments)
        assert result.exit_code == 0, result.output
    path = tmp_path / DEMO_SECRET_FILE
    assert path.stat().st_mode & 0o777 == 0o600
    assert [env[SESSION_SECRET_FILE_ENV] for _, env in started] == [str(path)] * 2
    first = path.read_text(encoding="utf-8")
    assert len(first.strip()) >= 43
    no_secret.setenv(SESSION_SECRET_FILE_ENV, str(path))
    assert session_secret() == first.strip()  # (what the server will read)


def test_the_demo_uses_a_secret_it_is_given(no_secret, started, tmp_path: Path, db_url: str):
    no_secret.chdir(tmp_path)
    no_secret.setenv(SESSION_SECRET_ENV, GOOD)
    result = CliRunner().invoke(app, ["--db", db_url, "demo", "--simulated", "0"])
    assert result.exit_code == 0, result.output
    assert not (tmp_path / DEMO_SECRET_FILE).exists()
    assert started[0][1][SESSION_SECRET_ENV] == GOOD
