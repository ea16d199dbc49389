"""``python -m analysis figures``, ``pairs`` and ``downstream``: the report's figures, the
pairs behind a figure, and the downstream (Best-of-N, PPO) summary of a bundle."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from analysis.cli.app import PowerFormat, app
from analysis.core.ratings import RatingsError, load_ratings
from analysis.downstream import tables as downstream_tables
from analysis.downstream.bundle import summary_from_folder
from analysis.inference.drilldown import FIGURE_HELP, figure_pairs
from analysis.options import (
    AlphaOption,
    BootstrapOption,
    MarginOption,
    MarginUnit,
    MarginUnitOption,
    SeedOption,
)
from analysis.report import build_report
from analysis.schema.jsonable import to_jsonable
from annotate.vocabulary import (
    DEFAULT_EQUIVALENCE_MARGIN,
    DEFAULT_N_BOOT,
    SCALE_MAX,
    SCALE_MIN,
)


@app.command()
def figures(
    ratings_file: Annotated[Path, typer.Argument(help="Ratings export: .csv, .jsonl or .parquet.")],
    folder: Annotated[Path, typer.Option("--out", "-o", help="Folder for the figures.")] = Path(
        "figures"
    ),
    formats: Annotated[
        str, typer.Option("--formats", help="Comma-separated: svg, pdf, png.")
    ] = "svg,pdf,png",
    margin: MarginOption = DEFAULT_EQUIVALENCE_MARGIN,
    margin_unit: MarginUnitOption = MarginUnit.points,
    alpha: AlphaOption = 0.05,
    bootstrap: BootstrapOption = DEFAULT_N_BOOT,
    seed: SeedOption = 0,
) -> None:
    """Paper-ready static figures (matplotlib) of the report: SVG, PDF and/or PNG."""
    from analysis.renderers.static import export_figures

    try:
        result = build_report(
            ratings_file,
            margin=margin,
            alpha=alpha,
            n_boot=bootstrap,
            seed=seed,
            margin_unit=margin_unit.value,
        )
        written = export_figures(result, folder, [f.strip() for f in formats.split(",") if f])
    except (RatingsError, ValueError, OSError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code=1) from None
    for path in written:
        typer.echo(f"wrote {path}", err=True)


@app.command()
def pairs(
    ratings_file: Annotated[Path, typer.Argument(help="Ratings export: .csv, .jsonl or .parquet.")],
    figure: Annotated[str, typer.Option("--figure", "-f", help=FIGURE_HELP)],
    domain: Annotated[str | None, typer.Option(help="Only the pairs of this domain.")] = None,
    output: Annotated[
        Path | None, typer.Option("--out", "-o", help="CSV file to write (default: stdout).")
    ] = None,
    scale_min: Annotated[int, typer.Option("--scale-min", help="Lowest score.")] = SCALE_MIN,
    scale_max: Annotated[int, typer.Option("--scale-max", help="Highest score.")] = SCALE_MAX,
) -> None:
    """The pairs behind a figure of the report, the most telling first, as CSV (scores only:
    `prb-annotate drilldown --csv` adds the pairs' texts from the database)."""
    try:
        table = figure_pairs(load_ratings(ratings_file, scale_min, scale_max), figure, domain)
        text = table.to_csv(index=False)
        if output is None:
            typer.echo(text, nl=False)
        else:
            output.write_text(text, encoding="utf-8")
            typer.echo(f"wrote {len(table)} pairs to {output}", err=True)
    except (RatingsError, ValueError, OSError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code=1) from None


@app.command()
def downstream(
    folder: Annotated[Path, typer.Argument(help="A folder of `prb-annotate downstream export`.")],
    fmt: Annotated[PowerFormat, typer.Option("--format", help="text (Markdown) or json.")] = (
        PowerFormat.text
    ),
    n_boot: BootstrapOption = DEFAULT_N_BOOT,
    seed: SeedOption = 0,
) -> None:
    """The downstream figures (comparison gains, scaling curve, judge against the humans, the
    correlation claim) from exported files, without the database."""
    try:
        summary = summary_from_folder(folder, n_boot=n_boot, seed=seed)
    except (RatingsError, ValueError, OSError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code=1) from None
    if summary is None:
        typer.echo("error: no downstream outputs in the folder", err=True)
        raise typer.Exit(code=1)
    if fmt == PowerFormat.json:
        typer.echo(json.dumps(to_jsonable(summary), indent=2))
    else:
        typer.echo(downstream_tables.markdown(summary))
