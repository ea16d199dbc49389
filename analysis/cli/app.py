"""The `python -m analysis` application: its Typer app, and what its commands share (the
output format of the planners, errors, the smallest effect's check)."""

from __future__ import annotations

import json
from collections.abc import Callable
from enum import StrEnum
from typing import Any, NoReturn

import typer


class PowerFormat(StrEnum):
    text = "text"
    json = "json"


app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Validation statistics for prb-annotate ratings exports.",
)


@app.callback()
def main() -> None:
    """Validation statistics for prb-annotate ratings exports."""


def positive_sesoi(value: float | None) -> float | None:
    """--smallest-effect: above 0 (at 0 any positive difference would diverge)."""
    if value is not None and not 0 < value < float("inf"):
        raise typer.BadParameter(
            f"expected a number above 0, got {value:g}: at 0 any positive difference would "
            "count as rubric alignment diverging"
        )
    return value


def fail(exc: Exception) -> NoReturn:
    typer.echo(f"error: {exc}", err=True)
    raise typer.Exit(code=1) from None


def emit_planner(result: Any, fmt: PowerFormat, text: Callable[[Any], str]) -> None:
    """A planner's answer on stdout: JSON, or its text."""
    if fmt == PowerFormat.json:
        typer.echo(json.dumps(result, indent=2, allow_nan=False))
    else:
        typer.echo(text(result), nl=False)
