"""The `cli` fixture of the command-line tests: `cli(*args)` runs `prb-annotate --db <the test
database> ARGS...` in this process (CliRunner) and closes the engine afterwards.
(tests/cli/test_cli.py has its own, which also takes another --db or an environment.)"""

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
