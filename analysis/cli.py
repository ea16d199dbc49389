"""Command line: ``python -m analysis report RATINGS_FILE [options]``.

The options and `emit_report` are shared with ``prb-annotate report``, which reads the ratings
from the database instead of a file.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated

import pandas as pd
import typer

from annotate.vocabulary import DEFAULT_EQUIVALENCE_MARGIN, DEFAULT_N_BOOT, SCALE_MAX, SCALE_MIN

from .options import (
    AlphaOption,
    BootstrapOption,
    Format,
    FormatOption,
    HolmOption,
    MarginOption,
    OutputOption,
    SeedOption,
)
from .ratings import RatingsError
from .render import render_report
from .report import build_report
from .report_types import ExcludedPair, Report

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Validation statistics for prb-annotate ratings exports.",
)


def emit_report(
    data: pd.DataFrame | Path,
    *,
    margin: float,
    alpha: float,
    bootstrap: int,
    holm: bool,
    seed: int,
    fmt: Format,
    output: Path | None,
    scale_min: int = SCALE_MIN,
    scale_max: int = SCALE_MAX,
    extend: Callable[[Report], Report] | None = None,
    excluded_pairs: Sequence[ExcludedPair] = (),
) -> None:
    """Build the report and print or write it; a bad input exits 1 with a one-line error.
    `extend` adds sections from outside the ratings (the database's reward models);
    `excluded_pairs` are left out (see `build_report`)."""
    try:
        result = build_report(
            data,
            margin=margin,
            alpha=alpha,
            n_boot=bootstrap,
            holm=holm,
            seed=seed,
            scale_min=scale_min,
            scale_max=scale_max,
            excluded_pairs=excluded_pairs,
        )
        if extend is not None:
            result = extend(result)
        text = render_report(result, fmt.value)
        if output is None:
            typer.echo(text, nl=False)
        else:
            output.write_text(text, encoding="utf-8")
            typer.echo(f"wrote {output}", err=True)
    except (RatingsError, ValueError, OSError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code=1) from None


@app.callback()
def main() -> None:
    """Validation statistics for prb-annotate ratings exports."""


@app.command()
def report(
    ratings_file: Annotated[Path, typer.Argument(help="Ratings export: .csv, .jsonl or .parquet.")],
    margin: MarginOption = DEFAULT_EQUIVALENCE_MARGIN,
    alpha: AlphaOption = 0.05,
    holm: HolmOption = False,
    bootstrap: BootstrapOption = DEFAULT_N_BOOT,
    seed: SeedOption = 0,
    fmt: FormatOption = Format.json,
    output: OutputOption = None,
    scale_min: Annotated[
        int, typer.Option("--scale-min", help="Lowest score of the scale.")
    ] = SCALE_MIN,
    scale_max: Annotated[
        int, typer.Option("--scale-max", help="Highest score of the scale.")
    ] = SCALE_MAX,
) -> None:
    """Compute the validation report for a ratings export."""
    emit_report(
        ratings_file,
        margin=margin,
        alpha=alpha,
        bootstrap=bootstrap,
        holm=holm,
        seed=seed,
        fmt=fmt,
        output=output,
        scale_min=scale_min,
        scale_max=scale_max,
    )
