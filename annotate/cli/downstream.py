"""Downstream commands of `prb-annotate` (issue 25): import the benchmark's Best-of-N and PPO
outputs with its judge's answers, list them, build a comparison study from two conditions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from analysis.downstream import tables
from annotate.cli.common import ACTOR, IMPORTED, State, StudyOption, app, fail, refusals, say
from annotate.domain.study.studies import DEFAULT_STUDY
from annotate.services.results import downstream

downstream_app = typer.Typer(
    help="Downstream outputs (Best-of-N, PPO) and comparison studies.", no_args_is_help=True
)
app.add_typer(downstream_app, name="downstream")

Opt = typer.Option


@downstream_app.command("import")
def import_command(
    condition: Annotated[
        str,
        Opt(
            "--condition",
            "-c",
            help="What the files stand for: bon:<reward model>:k<k> or ppo:<policy>:<tag> "
            "(e.g. bon:skywork-3b:k16, ppo:qwen-0.5b:step300; ppo:<policy>:base before training).",
        ),
    ],
    outputs: Annotated[
        Path | None,
        Opt(help="The outputs: BoN/data/<subset>_k<k>.jsonl or PPO/result/<...>_inference.jsonl."),
    ] = None,
    eval_file: Annotated[
        Path | None,
        Opt(
            "--eval",
            help="The judge's answers: BoN/data/<subset>_eval_k<k>.jsonl or "
            "PPO/result/<...>_evaluation.jsonl (alone, its answers are the outputs).",
        ),
    ] = None,
    study: StudyOption = DEFAULT_STUDY,
    skip_unknown: Annotated[
        bool, Opt("--skip-unknown", help="Skip (and count) ids that are not pairs of the study.")
    ] = False,
    replace: Annotated[
        bool, Opt("--replace", help="Swap the outputs of a condition already imported.")
    ] = False,
) -> None:
    """Import one condition's outputs and judge answers (JSONL, JSON array or Parquet). All or
    nothing: every problem is listed (file, line, field) and the database keeps what it had."""
    if outputs is None and eval_file is None:
        raise fail("give --outputs, --eval or both")
    with refusals():
        summary = downstream.import_condition(
            State.engine(),
            ACTOR,
            study=study,
            condition=condition,
            outputs_file=outputs,
            eval_file=eval_file,
            skip_unknown=skip_unknown,
            replace=replace,
        )
    line = (
        f"{IMPORTED[summary.outcome]} {summary.condition!r} in study {summary.study!r}: "
        f"{summary.n_records - summary.n_unknown} outputs"
    )
    if summary.n_unknown:
        line += f", {summary.n_unknown} unknown ids skipped"
    if summary.n_judged:
        line += f", {summary.n_judged} judged ({summary.n_unparsed} answers not usable)"
    say(line + ".")


@downstream_app.command("list")
def list_command(study: StudyOption = DEFAULT_STUDY) -> None:
    """The study's downstream conditions."""
    with refusals():
        rows = downstream.list_conditions(State.engine(), ACTOR, study)
    if not rows:
        say(f"Study {study!r} has no downstream outputs.")
    for row in rows:
        say(
            f"{row.name}: {row.n_records - row.n_unknown} outputs, {row.n_judged} judged, "
            f"{row.n_unparsed} not usable ({', '.join(row.source_files)})"
        )


@downstream_app.command("compare")
def compare_command(
    name: Annotated[str, typer.Argument(help="The new comparison study's name.")],
    expected: Annotated[
        str, Opt("--expected", help="The condition expected to win, e.g. bon:skywork-3b:k16.")
    ],
    baseline: Annotated[
        str, Opt("--baseline", help="The condition it is compared with, e.g. bon:skywork-3b:k1.")
    ],
    study: StudyOption = DEFAULT_STUDY,
    overlap: Annotated[int, Opt(help="Annotators wanted per pair (k).")] = 3,
    ask_preference: Annotated[
        bool, Opt("--ask-preference", help="Also ask which response fits the user better.")
    ] = False,
    seed: Annotated[int | None, Opt(help="The new study's seed (default: random).")] = None,
) -> None:
    """Build a comparison study: each question of both conditions a blinded A/B pair (identical
    outputs are left out and count as zero gain); which condition is expected to win is never
    shown."""
    with refusals():
        summary = downstream.create_comparison(
            State.engine(),
            ACTOR,
            source_study=study,
            name=name,
            expected=expected,
            baseline=baseline,
            overlap=overlap,
            seed=seed,
            ask_preference=ask_preference,
        )
    say(
        f"Created comparison study {summary.study!r}: {summary.expected} against "
        f"{summary.baseline}, {summary.n_questions} questions, {summary.n_pairs} pairs to rate, "
        f"{summary.n_identical} identical (not shown, zero gain)."
    )


@downstream_app.command("report")
def report_command(
    study: StudyOption = DEFAULT_STUDY,
    fmt: Annotated[str, Opt("--format", help="json or md.")] = "md",
    n_boot: Annotated[int, Opt(help="Resamples for the correlation intervals.")] = 1000,
    seed: Annotated[int, Opt(help="The resampling seed.")] = 0,
) -> None:
    """The downstream figures of a benchmark study: each comparison's gains, the scaling curve,
    the judge against the humans, the correlation claim."""
    if fmt not in ("json", "md"):
        raise fail(f"--format must be json or md, got {fmt!r}")
    with refusals():
        summary = downstream.downstream_report(
            State.engine(), ACTOR, study, n_boot=n_boot, seed=seed
        )
    if summary is None:
        raise fail(f"study {study!r} has no downstream outputs")
    if fmt == "json":
        typer.echo(json.dumps(summary, indent=2, ensure_ascii=False))
        return
    typer.echo(tables.markdown(summary))


@downstream_app.command("export")
def export_command(
    folder: Annotated[Path, typer.Argument(help="Where to write the files (created).")],
    study: StudyOption = DEFAULT_STUDY,
) -> None:
    """The downstream analysis's inputs as files (outputs.csv, comparisons.json, ratings.csv,
    aspects.csv, accuracy.json), for `analysis.downstream.bundle` without the database."""
    with refusals():
        paths = downstream.export_bundle(State.engine(), ACTOR, study, folder)
    say(f"Wrote {len(paths)} files to {folder}.")
