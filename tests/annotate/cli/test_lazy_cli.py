"""The command line imports only what a command needs (issue 35, item 5): `prb-annotate --help`
imports no command module and none of the heavy libraries, a command imports its own modules
only, and the table of contents the help lists (`annotate.cli.commands`) matches the commands the
modules define. Each check runs a new interpreter, since this one has imported everything."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
import textwrap
from typing import Any

import pytest
import typer
from typer.core import TyperGroup

from annotate.cli import commands
from annotate.cli.common import LazyGroup, app

HEAVY = ("pandas", "numpy", "scipy", "statsmodels", "pyarrow", "plotly", "streamlit", "sqlalchemy")
"""Libraries the listing needs none of (each costs a tenth of a CPU second or more to import)."""


def imported_by(*args: str) -> set[str]:
    """The modules a new interpreter has imported after running `prb-annotate ARGS`."""
    code = textwrap.dedent(
        """
        import json, sys
        from annotate.cli import main
        sys.argv = ["prb-annotate", *json.loads(sys.argv[1])]
        try:
            main()
        except SystemExit:
            pass
        print(json.dumps(sorted(sys.modules)), file=sys.stderr)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code, json.dumps(args)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return set(json.loads(done.stderr.strip().splitlines()[-1]))


def tops(modules: set[str]) -> set[str]:
    return {name.split(".")[0] for name in modules}


def test_help_imports_no_command_module_and_no_heavy_library() -> None:
    loaded = imported_by("--help")
    assert not tops(loaded) & set(HEAVY), sorted(tops(loaded) & set(HEAVY))
    assert not {f"annotate.cli.{module}" for module in commands.MODULES} & loaded
    assert "analysis" not in tops(loaded)


def test_a_command_imports_its_own_modules_only() -> None:
    loaded = imported_by("crowd", "--help")
    assert "annotate.cli.crowd" in loaded
    others = {f"annotate.cli.{module}" for module in commands.MODULES} - {"annotate.cli.crowd"}
    assert not others & loaded, sorted(others & loaded)
    assert not tops(loaded) & {"streamlit", "plotly", "statsmodels"}


def test_a_group_spread_over_modules_loads_all_of_them() -> None:
    loaded = imported_by("annotators", "--help")
    assert {"annotate.cli.data", "annotate.cli.admin", "annotate.cli.participants"} <= loaded


# ---------------------------------------------------------------- the table of contents


def summary(command: Any) -> str:
    """What the listing shows of a command: its help's first paragraph (typer's rich help)."""
    return inspect.cleandoc(command.short_help or command.help or "").split("\n\n")[0]


def table_of(group: Any) -> list[commands.Command]:
    """The table of contents of a command tree with every module loaded."""

    def modules_of(command: Any) -> list[str]:
        if hasattr(command, "commands"):
            found = [m for sub in command.commands.values() for m in modules_of(sub)]
            return list(dict.fromkeys(found))
        callback = inspect.unwrap(command.callback)
        return [callback.__module__.removeprefix("annotate.cli.")]

    return [
        commands.Command(
            name, tuple(modules_of(group.commands[name])), summary(group.commands[name])
        )
        for name in group.commands
    ]


def source_of(table: list[commands.Command]) -> str:
    """`table` as the Python to paste into annotate/cli/commands.py."""
    lines = ["COMMANDS = ("]
    for entry in table:
        lines += ["    Command(", f"        {entry.name!r},", f"        {entry.modules!r},"]
        lines_of = entry.summary.split("\n")
        pieces = [line + "\n" for line in lines_of[:-1]] + lines_of[-1:]
        wrapped = [part for piece in pieces for part in _split(piece, 88)]
        lines += [f"        {json.dumps(part, ensure_ascii=False)}" for part in wrapped]
        lines[-1] += ","
        lines.append("    ),")
    return "\n".join([*lines, ")"])


def _split(text: str, width: int) -> list[str]:
    """`text` in pieces of at most `width` characters (its closing newline not counted)."""
    body, end = (text[:-1], "\n") if text.endswith("\n") else (text, "")
    parts = textwrap.wrap(body, width, drop_whitespace=False) or [body]
    return [*parts[:-1], parts[-1] + end]


def test_the_table_of_contents_matches_the_commands() -> None:
    commands.load_all()
    group = typer.main.get_command(app)
    assert set(commands.MODULES) == {m for entry in commands.COMMANDS for m in entry.modules}
    assert list(commands.COMMANDS) == table_of(group), (
        "annotate/cli/commands.py is out of date; its COMMANDS should read:\n"
        + source_of(table_of(group))
    )


def test_the_listing_reads_as_the_commands_themselves_would_list(
    capsys: pytest.CaptureFixture[str],
) -> None:
    commands.load_all()
    lazy = typer.main.get_command(app)
    assert isinstance(lazy, LazyGroup)
    eager = TyperGroup(  # a plain group holding every command, as the CLI had before
        name=lazy.name,
        commands=lazy.commands,
        params=lazy.params,
        help=lazy.help,
        rich_markup_mode=lazy.rich_markup_mode,
    )
    shown = []
    for group in (lazy, eager):
        group.main(["--help"], prog_name="prb-annotate", standalone_mode=False)
        shown.append(capsys.readouterr().out)
    assert shown[0] == shown[1]
    assert "preference dataset" in shown[0]  # the listing is there (export's summary)
