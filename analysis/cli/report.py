"""``python -m analysis report RATINGS_FILE``: the validation report from a ratings export.

`emit_report` is shared with ``prb-annotate report``, which reads the ratings from the
database instead of a file.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Annotated, Any

import pandas as pd
import typer

from analysis.cli.app import app, fail, positive_sesoi
from analysis.core.ratings import RatingsError, load_ratings, read_raw
from analysis.designs.adjudication import attach_adjudication
from analysis.inference.plan import read_plan, sidecar_plan
from analysis.options import (
    BootstrapOption,
    Format,
    FormatOption,
    HolmOption,
    MarginUnit,
    OutputOption,
    PlanAnnotatorsOption,
    PlanPairsOption,
    QuestionnaireOption,
    SeedOption,
    planned_values,
    read_questionnaire,
)
from analysis.renderers.render import render_report
from analysis.report import build_report
from analysis.schema.plan_words import change_words, interim_words
from analysis.schema.questions import report_questionnaire
from analysis.schema.report_types import ExcludedPair, Report
from annotate.questionnaire import DEFAULT_QUESTIONNAIRE, DEFAULT_TEMPLATE, Questionnaire
from annotate.vocabulary import (
    DEFAULT_EQUIVALENCE_MARGIN,
    DEFAULT_HOLM,
    DEFAULT_N_BOOT,
    SCALE_MAX,
    SCALE_MIN,
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
    margin_unit: str = "points",
    margin_history: Mapping[str, object] | None = None,
    excluded_pairs: Sequence[ExcludedPair] = (),
    planned: dict[str, float] | None = None,
    smallest_effect: float | None = None,
    plan: Mapping[str, Any] | None = None,
    questionnaire: Questionnaire = DEFAULT_QUESTIONNAIRE,
) -> None:
    """Build the report and print or write it; a bad input exits 1 with a one-line error.
    `extend` adds sections from outside the ratings (the database's reward models);
    `excluded_pairs` are left out (see `build_report`); with a `plan`, where the report departs
    from it or comes before its planned size is said on stderr too."""
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
            margin_unit=margin_unit,
            margin_history=margin_history,
            excluded_pairs=excluded_pairs,
            planned=planned,
            smallest_effect=smallest_effect,
            plan=plan,
            questionnaire=questionnaire,
        )
        if extend is not None:
            result = extend(result)
        _say_plan(result)
        text = render_report(result, fmt.value)
        if output is None:
            typer.echo(text, nl=False)
        else:
            output.write_text(text, encoding="utf-8")
            typer.echo(f"wrote {output}", err=True)
    except (RatingsError, ValueError, OSError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code=1) from None


def _say_plan(report: Report) -> None:
    """Where the report stands against the pre-registered plan, on stderr."""
    plan = report.get("plan")
    if plan is None:
        return
    for deviation in plan["deviations"]:
        typer.echo(f"note: this option differs from the analysis plan: {deviation}", err=True)
    if plan["interim"]:
        typer.echo(f"note: INTERIM verdict: {interim_words(plan)}", err=True)
    for change in plan["changes"]:
        if change["after_data"]:
            typer.echo(f"note: the plan changed after data: {change_words(change)}", err=True)


@app.command()
def report(
    ratings_file: Annotated[Path, typer.Argument(help="Ratings export: .csv, .jsonl or .parquet.")],
    margin: Annotated[
        float | None,
        typer.Option(
            "--margin",
            help="TOST equivalence margin (default: the plan's, else "
            f"{DEFAULT_EQUIVALENCE_MARGIN}).",
        ),
    ] = None,
    margin_unit: Annotated[
        MarginUnit | None,
        typer.Option("--margin-unit", help="Unit of --margin (default: the plan's, else points)."),
    ] = None,
    alpha: Annotated[
        float | None,
        typer.Option("--alpha", help="Significance level (default: the plan's, else 0.05)."),
    ] = None,
    smallest_effect: Annotated[
        float | None,
        typer.Option(
            "--smallest-effect",
            help="Smallest effect of interest, in the margin's unit, above 0 (default: the "
            "plan's, else the margin).",
            callback=positive_sesoi,
        ),
    ] = None,
    plan_file: Annotated[
        Path | None,
        typer.Option(
            "--plan",
            help="The study's analysis plan (plan.json, `prb-annotate studies export-plan`); "
            "default: <export>.plan.json or plan.json beside the export, if there.",
        ),
    ] = None,
    holm: HolmOption = DEFAULT_HOLM,
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
    plan_pairs: PlanPairsOption = None,
    plan_annotators: PlanAnnotatorsOption = 3,
    aspects_file: Annotated[
        Path | None,
        typer.Option(
            "--aspects",
            help="The study's aspect table (prb-annotate export --table aspects): adds the "
            "aspect checklist's sections.",
        ),
    ] = None,
    questionnaire_name: QuestionnaireOption = DEFAULT_TEMPLATE,
) -> None:
    """Compute the validation report for a ratings export. With an analysis plan (given, or
    carried beside the export), options not given take the plan's values, and the report says
    where the options given differ from the plan."""
    plan = _plan(ratings_file, plan_file)
    try:
        questionnaire = read_questionnaire(questionnaire_name)
    except ValueError as error:
        fail(error)
    planned_values_of = (plan or {}).get("plan", {})
    if margin is None and margin_unit is None:
        margin_unit = MarginUnit(planned_values_of.get("unit", "points"))
    margin = (
        float(planned_values_of.get("margin", DEFAULT_EQUIVALENCE_MARGIN))
        if margin is None
        else margin
    )
    alpha = float(planned_values_of.get("alpha", 0.05)) if alpha is None else alpha
    if smallest_effect is None and "smallest_effect" in planned_values_of:
        smallest_effect = planned_values_of["smallest_effect"]
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
        margin_unit=(margin_unit or MarginUnit.points).value,
        planned=planned_values(plan_pairs, plan_annotators),
        smallest_effect=smallest_effect,
        extend=partial(_with_files, ratings_file, aspects_file, (scale_min, scale_max)),
        plan=plan,
        questionnaire=questionnaire,
    )


def _plan(ratings_file: Path, given: Path | None) -> dict[str, Any] | None:
    """The plan given with --plan, else the one carried beside the export (None: none)."""
    path = given or sidecar_plan(ratings_file)
    if path is None:
        return None
    try:
        plan = read_plan(path)
    except ValueError as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(code=1) from None
    typer.echo(f"reading the analysis plan in {path}", err=True)
    return plan


def _with_files(
    ratings_file: Path, aspects_file: Path | None, scale: tuple[int, int], report: Report
) -> Report:
    """The report with what the files hold beyond the fixed columns: the adjudication figures
    of an export holding adjudications (the validated ratings keep only the fixed columns, so
    the file's purpose column is read again here), and the aspect checklist's figures from an
    aspect table given beside the export."""
    raw, _ = read_raw(ratings_file)
    report = attach_adjudication(report, raw)
    if aspects_file is None:
        return report
    from analysis.designs.aspects import attach_aspects, load_aspects

    ratings = load_ratings(ratings_file, *scale, questionnaire=report_questionnaire(report))
    return attach_aspects(report, load_aspects(aspects_file), ratings)
