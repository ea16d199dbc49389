"""The `cli` fixture of the command-line tests: `cli(*args)` runs `prb-annotate --db <the test
database> ARGS...` in this process (CliRunner) and closes the engine afterwards.
`run(*args, code=0)` checks the exit code and returns the output. (tests/annotate/cli/test_cli.py
has its own, which also takes another --db or an environment.)"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from typer.testing import CliRunner, Result

from annotate.cli.common import State, app


@pytest.fixture
def cli(db_url: str, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Result]:
    monkeypatch.delenv("PRB_DATABASE_URL", raising=False)
    runner = CliRunner()

    def invoke(*args: str) -> Result:
        try:
            return runner.invoke(app, ["--db", db_url, *args])
        finally:
            if State._engine is not None:
                State._engine.dispose()

    return invoke


@pytest.fixture
def run(cli: Callable[..., Result]) -> Callable[..., str]:
    """`run(*args, code=0)`: `cli` with its exit code checked; returns what it printed (stdout,
    then stderr)."""

    def invoke(*args: str, code: int = 0) -> str:
        result = cli(*args)
        assert result.exit_code == code, result.stdout + result.stderr
        return result.stdout + result.stderr

    return invoke
