"""``python -m analysis power`` and ``size``: the planners, from given components or from a
pilot (with an internal pilot's look, ``--first-stage``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from analysis.cli.app import PowerFormat, app, emit_planner, fail, positive_sesoi
from analysis.core.ratings import RatingsError, load_ratings
from analysis.options import (
    AlphaOption,
    MarginOption,
    QuestionnaireOption,
    SeedOption,
    read_questionnaire,
)
from annotate.questionnaire import DEFAULT_TEMPLATE
from annotate.vocabulary import (
    DEFAULT_EQUIVALENCE_MARGIN,
    DEFAULT_TIE_ALPHA,
)


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
        fail(exc)
    emit_planner(result, fmt, power_text)


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
            callback=positive_sesoi,
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
    tie_alpha: Annotated[
        float | None,
        typer.Option(
            "--tie-alpha",
            help=f"An internal pilot's level for each tie question's TOST after the look (the "
            f"tie questions sized at it; the superiority test keeps --alpha). Default "
            f"{DEFAULT_TIE_ALPHA:g} at alpha 0.05, the same fraction of another alpha.",
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
            tie_alpha,
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
        result = with_internal_pilot(components, result, tie_alpha)
    except (RatingsError, ValueError, OSError) as exc:
        fail(exc)
    emit_planner(result, fmt, sizing_text)


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
    tie_alpha: float | None,
    fmt: PowerFormat,
) -> None:
    """The internal pilot's re-estimation look (``size --first-stage``)."""
    from analysis.inference.reestimate import look, look_text

    if len(ks) != 1 or len(ms) != 1:
        fail(
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
            tie_alpha=tie_alpha,
        )
    except (RatingsError, ValueError, OSError) as exc:
        fail(exc)
    emit_planner(result, fmt, look_text)
