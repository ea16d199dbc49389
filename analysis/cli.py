"""Command line: ``python -m analysis report RATINGS_FILE [options]`` (also ``size``,
``power``, ``figures``, ``pairs``, ``downstream``).

Why 619 lines: not yet split (report options / planner commands), issue 35.4.

The options and `emit_report` are shared with ``prb-annotate report``, which reads the ratings
from the database instead of a file.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from enum import StrEnum
from functools import partial
from pathlib import Path
from typing import Annotated, Any, NoReturn

import pandas as pd
import typer

from analysis.core.ratings import RatingsError, load_ratings, read_raw
from analysis.designs.adjudication import attach_adjudication
from analysis.downstream import tables as downstream_tables
from analysis.downstream.bundle import summary_from_folder
from analysis.inference.drilldown import FIGURE_HELP, figure_pairs
from analysis.inference.plan import read_plan, sidecar_plan
from analysis.options import (
    AlphaOption,
    BootstrapOption,
    Format,
    FormatOption,
    HolmOption,
    MarginOption,
    MarginUnit,
    MarginUnitOption,
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
from analysis.schema.jsonable import to_jsonable
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


class PowerFormat(StrEnum):
    text = "text"
    json = "json"


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


@app.callback()
def main() -> None:
    """Validation statistics for prb-annotate ratings exports."""


def _positive_sesoi(value: float | None) -> float | None:
    """--smallest-effect: above 0 (at 0 any positive difference would diverge)."""
    if value is not None and not 0 < value < float("inf"):
        raise typer.BadParameter(
            f"expected a number above 0, got {value:g}: at 0 any positive difference would "
            "count as rubric alignment diverging"
        )
    return value


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
            callback=_positive_sesoi,
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
        _fail(error)
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


@app.command()
def power(
    pairs: Annotated[int, typer.Option("--pairs", help="Planned number of pairs.")] = 30,
    annotators: Annotated[
        int, typer.Option("--annotators", help="Annotators per pair (used with --pilot).")
    ] = 3,
    margin: MarginOption = DEFAULT_EQUIVALENCE_MARGIN,
    sd: Annotated[
        float | None,
        typer.Option("--sd", help="Expected SD of the per-pair mean differences (points)."),
    ] = None,
    pilot: Annotated[
        Path | None,
        typer.Option("--pilot", help="A pilot ratings export to estimate the SDs from."),
    ] = None,
    general_diff: Annotated[
        float, typer.Option("--general-diff", help="True difference of the general dimensions.")
    ] = 0.0,
    rubric_diff: Annotated[
        float, typer.Option("--rubric-diff", help="True difference of rubric alignment.")
    ] = 0.5,
    alpha: AlphaOption = 0.05,
    target: Annotated[float, typer.Option("--target", help="Target power.")] = 0.8,
    simulations: Annotated[
        int, typer.Option("--simulations", help="Simulated studies for the joint power.")
    ] = 2000,
    seed: SeedOption = 0,
    fmt: Annotated[
        PowerFormat, typer.Option("--format", "-f", help="Output format.")
    ] = PowerFormat.text,
    questionnaire_name: QuestionnaireOption = DEFAULT_TEMPLATE,
) -> None:
    """Power of each test and of the joint verdict on per-pair means (the sensitivity
    analysis: pairs random, annotators fixed), and the pairs needed for a target power. To size
    the primary analysis over pairs and annotators from a pilot, use `size`."""
    from analysis.inference.power import make_plan, plan_power, power_text

    try:
        asked = read_questionnaire(questionnaire_name)
        ratings = None if pilot is None else load_ratings(pilot, questionnaire=asked)
        plan = make_plan(
            pairs,
            annotators,
            margin,
            sd=sd,
            pilot=ratings,
            general_diff=general_diff,
            rubric_diff=rubric_diff,
            alpha=alpha,
            target=target,
            simulations=simulations,
            seed=seed,
            questionnaire=asked,
        )
        result = plan_power(plan)
    except (RatingsError, ValueError, OSError) as exc:
        _fail(exc)
    _emit_planner(result, fmt, power_text)


def _int_list(text: str, name: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise typer.BadParameter(f"{name}: comma-separated whole numbers, e.g. 1,2,3") from None
    if not values:
        raise typer.BadParameter(f"{name}: give at least one number")
    return values


@app.command()
def size(
    pilot: Annotated[
        Path, typer.Argument(help="The pilot's ratings export (.csv/.jsonl/.parquet).")
    ],
    margin: MarginOption = DEFAULT_EQUIVALENCE_MARGIN,
    smallest_effect: Annotated[
        float | None,
        typer.Option(
            "--smallest-effect",
            help="Smallest effect of interest in points, above 0: rubric alignment must "
            "exceed it (default: the margin).",
            callback=_positive_sesoi,
        ),
    ] = None,
    alpha: AlphaOption = 0.05,
    target: Annotated[float, typer.Option("--target", help="Target power of the study.")] = 0.8,
    confidence: Annotated[
        float,
        typer.Option(
            "--confidence",
            help="One-sided confidence of the upper limit of each design's variance of the "
            "mean the plan uses.",
        ),
    ] = 0.7,
    general_diff: Annotated[
        float, typer.Option("--general-diff", help="True difference of the general dimensions.")
    ] = 0.0,
    rubric_diff: Annotated[
        float | None,
        typer.Option(
            "--rubric-diff",
            help="True difference of rubric alignment (default: the pilot's estimate at its lower "
            "confidence limit).",
        ),
    ] = None,
    per_pair: Annotated[
        str,
        typer.Option(
            "--per-pair",
            help="Annotators per pair to consider, e.g. 2,3,5 (1 measures no agreement).",
        ),
    ] = "2,3,5",
    pools: Annotated[
        str, typer.Option("--pools", help="Annotator pool sizes to consider, e.g. 6,12,24,48.")
    ] = "6,12,24,48",
    alpha_halfwidth: Annotated[
        float | None,
        typer.Option(
            "--alpha-halfwidth",
            help="Also enough pairs for a 95% interval of this half-width on Krippendorff's "
            "alpha of the rubric difference.",
        ),
    ] = None,
    first_stage: Annotated[
        Path | None,
        typer.Option(
            "--first-stage",
            help="An internal pilot's first stage (ratings export): instead of planning, the "
            "re-estimation look: the final size from the pilot and the first stage together, "
            "at the one k (--per-pair) and pool (--pools) the first stage used.",
        ),
    ] = None,
    fmt: Annotated[
        PowerFormat, typer.Option("--format", "-f", help="Output format.")
    ] = PowerFormat.text,
    questionnaire_name: QuestionnaireOption = DEFAULT_TEMPLATE,
) -> None:
    """Size the main study from a pilot: pairs, annotators per pair and the annotator pool for
    the crossed analysis to validate with the target power, with each design's variance of
    the mean at its upper confidence limit from the pilot's variance components. A small
    pilot also gets an internal pilot (a first stage, then a re-estimation look:
    ``--first-stage``)."""
    from analysis.inference.reestimate import with_internal_pilot
    from analysis.inference.sizing import (
        size_study,
    )
    from analysis.inference.sizing_pilot import (
        pilot_components,
    )
    from analysis.inference.sizing_text import (
        sizing_text,
    )

    ks, ms = _int_list(per_pair, "--per-pair"), _int_list(pools, "--pools")
    if first_stage is not None:
        _look(
            pilot,
            first_stage,
            ks,
            ms,
            margin,
            smallest_effect,
            alpha,
            target,
            general_diff,
            rubric_diff,
            fmt,
        )
        return
    try:
        asked = read_questionnaire(questionnaire_name)
        ratings = load_ratings(pilot, questionnaire=asked)
        components = pilot_components(ratings, confidence, asked)
        result = size_study(
            components,
            margin=margin,
            smallest_effect=smallest_effect,
            alpha=alpha,
            target=target,
            general_diff=general_diff,
            rubric_diff=rubric_diff,
            per_pair=ks,
            pools=ms,
            alpha_halfwidth=alpha_halfwidth,
        )
        result = with_internal_pilot(components, result)
    except (RatingsError, ValueError, OSError) as exc:
        _fail(exc)
    _emit_planner(result, fmt, sizing_text)


def _look(
    pilot: Path,
    first_stage: Path,
    ks: list[int],
    ms: list[int],
    margin: float,
    smallest_effect: float | None,
    alpha: float,
    target: float,
    general_diff: float,
    rubric_diff: float | None,
    fmt: PowerFormat,
) -> None:
    """The internal pilot's re-estimation look (``size --first-stage``)."""
    from analysis.inference.reestimate import look, look_text

    if len(ks) != 1 or len(ms) != 1:
        _fail(
            ValueError(
                "--first-stage: give the one k (--per-pair) and pool (--pools) the first "
                f"stage used, got --per-pair {','.join(map(str, ks))} --pools "
                f"{','.join(map(str, ms))}"
            )
        )
    try:
        result = look(
            load_ratings(pilot),
            load_ratings(first_stage),
            per_pair=ks[0],
            pool=ms[0],
            margin=margin,
            smallest_effect=smallest_effect,
            alpha=alpha,
            target=target,
            general_diff=general_diff,
            rubric_diff=rubric_diff,
        )
    except (RatingsError, ValueError, OSError) as exc:
        _fail(exc)
    _emit_planner(result, fmt, look_text)


def _fail(exc: Exception) -> NoReturn:
    typer.echo(f"error: {exc}", err=True)
    raise typer.Exit(code=1) from None


def _emit_planner(result: Any, fmt: PowerFormat, text: Callable[[Any], str]) -> None:
    """A planner's answer on stdout: JSON, or its text."""
    if fmt == PowerFormat.json:
        typer.echo(json.dumps(result, indent=2, allow_nan=False))
    else:
        typer.echo(text(result), nl=False)


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
