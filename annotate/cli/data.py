"""Data commands of `prb-annotate`: import, pairs, accounts, export, report and backup (the demo
and serve commands are in :mod:`annotate.cli.demo`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, DownloadColumn, Progress, TimeRemainingColumn

from analysis.options import (
    BootstrapOption,
    Format,
    FormatOption,
    HolmOption,
    OutputOption,
    PlanAnnotatorsOption,
    PlanPairsOption,
    SeedOption,
    planned_values,
)
from annotate.cli.common import (
    ACTOR,
    State,
    StudyOption,
    annotators_app,
    app,
    err,
    fail,
    out,
    refusals,
)
from annotate.domain.dataset.shapes import Rb2Pairs, Shape, ShapeOptionError, shape_options
from annotate.domain.study.studies import DEFAULT_STUDY
from annotate.services.admin import data, people
from annotate.vocabulary import DEFAULT_HOLM, DEFAULT_N_BOOT

PROGRESS_MIN_BYTES = 1_000_000
EXPORT_KINDS = ("ratings", "aspects", "spans", "preference")


@app.command("import")
def import_command(
    files: Annotated[list[Path], typer.Argument(help="JSONL, JSON array or Parquet files.")],
    study: StudyOption = DEFAULT_STUDY,
    domain: Annotated[
        str | None,
        typer.Option(
            help="Domain of all files (default: the records' own domain or subset, where the "
            "shape has one, else each file name)."
        ),
    ] = None,
    shape: Annotated[
        Shape | None,
        typer.Option(help="Input shape (default: detected from each file's first record)."),
    ] = None,
    rmbench_pairing: Annotated[
        str,
        typer.Option(
            help="RM-Bench: the chosen and rejected style levels to pair, CHOSEN-REJECTED "
            "(0 concise, 1 detailed plain, 2 detailed Markdown)."
        ),
    ] = "1-1",
    rb2_pairs: Annotated[
        Rb2Pairs,
        typer.Option(
            help="RewardBench 2: a pair per rejected response (all), or one drawn with the "
            "study's seed (one)."
        ),
    ] = Rb2Pairs.ALL,
    field_map: Annotated[
        str | None,
        typer.Option(
            "--map",
            help="Field mapping for any other shape: question=prompt,chosen=better,"
            "rejected=worse (also id, domain, category, narrative; dotted paths).",
        ),
    ] = None,
) -> None:
    """Import benchmark pairs. All or nothing: any problem leaves the database as it was."""
    try:
        options = shape_options(
            shape, pairing=rmbench_pairing, rb2_pairs=rb2_pairs, field_map=field_map
        )
    except ShapeOptionError as error:
        raise typer.BadParameter(str(error)) from None
    total = sum(f.stat().st_size for f in files if f.is_file())
    progress = Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        DownloadColumn(),
        TimeRemainingColumn(),
        console=err,
        transient=True,
        disable=total < PROGRESS_MIN_BYTES,
    )
    with refusals(), progress:
        task = progress.add_task("reading", total=total)
        summary = data.import_files(
            State.engine(),
            ACTOR,
            files,
            study=study,
            domain=domain,
            shape=options,
            on_progress=lambda n: progress.advance(task, n),
        )
    for item in summary.files:
        out.print(
            f"{item.file}: {item.records} pairs, domain {item.domain}: "
            f"{item.added} added, {item.unchanged} already present",
            highlight=False,
        )
    if summary.added == 0:
        out.print(f"Nothing changed: every pair is already in study {study!r}.")
    else:
        out.print(f"Imported {summary.added} new pairs into study {study!r}.")


@app.command("pairs")
def pairs_command(
    study: StudyOption = DEFAULT_STUDY,
    domain: Annotated[str | None, typer.Option(help="Only this domain.")] = None,
    list_ids: Annotated[bool, typer.Option("--list", help="List every pair.")] = False,
) -> None:
    """Count the pairs of a study by domain (and list them with --list)."""
    with refusals():
        found = data.study_pairs(State.engine(), ACTOR, study, domain, listed=list_ids)
    for name, count in found.counts:
        out.print(f"{name}\t{count}", highlight=False)
    out.print(f"total\t{sum(c for _, c in found.counts)}")
    for pair in found.pairs:
        line = "\t".join((pair.domain, pair.record_id, pair.category, pair.question))
        out.print(line, highlight=False, markup=False)


@annotators_app.command("add")
def annotators_add(
    names: Annotated[list[str], typer.Argument(help="One or more names.")],
    role: Annotated[
        str, typer.Option(help="annotator, adjudicator, admin or researcher.")
    ] = "annotator",
) -> None:
    """Create accounts and print each person's login link (shown only now)."""
    with refusals():
        created = people.create_accounts(State.engine(), ACTOR, names, role)
    for account in created:
        out.print(f"{account.name}\t{account.role}\t{account.link}", highlight=False, markup=False)


@annotators_app.command("list")
def annotators_list() -> None:
    """List accounts (tokens are stored only as hashes and cannot be shown)."""
    with refusals():
        rows = people.list_accounts(State.engine(), ACTOR)
    for account in rows:
        state = "active" if account.active else "deactivated"
        out.print(f"{account.name}\t{account.role}\t{state}", highlight=False, markup=False)


@app.command("export")
def export_command(
    output: Annotated[Path, typer.Option("--output", "-o", help="File to write.")],
    fmt: Annotated[
        str, typer.Option("--format", "-f", help="csv, jsonl or parquet (the file type).")
    ] = "csv",
    study: Annotated[str | None, typer.Option("--study", "-s", help="Only this study.")] = None,
    kind: Annotated[
        str,
        typer.Option(
            "--kind",
            "--table",
            help="ratings (one row per score), aspects (one row per assignment, response and "
            "rubric aspect: the aspect checklist's marks), spans (one row per span marked in a "
            "response, with its label and code points) or preference (one row per pair in "
            "TRL's preference format with the human verdict; jsonl or parquet, one --study).",
        ),
    ] = "ratings",
    agreeing_only: Annotated[
        bool,
        typer.Option(
            "--agreeing-only",
            help="--kind preference: only the pairs whose human majority agrees with the label.",
        ),
    ] = False,
) -> None:
    """Export ratings, one row per score (or the aspect checklist's marks: --kind aspects; the
    spans marked in responses: --kind spans; or the pairs as a preference dataset: --kind
    preference)."""
    # Here, not above: the aspects' service reads the report's pseudonyms (the analysis stack),
    # which the other commands of this module do not need.
    from annotate.domain.exports.export import EXPORT_FORMATS, write_ratings
    from annotate.domain.exports.preference import PREFERENCE_FORMATS
    from annotate.services.admin import aspects, preference, spans

    if kind not in EXPORT_KINDS:
        raise fail(f"unknown kind {kind!r}; expected one of {', '.join(EXPORT_KINDS)}")
    formats = PREFERENCE_FORMATS if kind == "preference" else EXPORT_FORMATS
    if fmt not in formats:
        why = " for --kind preference (no CSV: a message list has no cell)"
        raise fail(
            f"unknown format {fmt!r}; expected one of {', '.join(formats)}"
            + (why if kind == "preference" else "")
        )
    if agreeing_only and kind != "preference":
        raise fail("--agreeing-only applies to --kind preference only")
    if kind == "preference" and study is None:
        raise fail("--kind preference exports one study: give --study")
    if not output.parent.is_dir():
        raise fail(f"cannot write {output}: the folder {output.parent} does not exist")
    with refusals():
        if kind == "preference":
            assert study is not None
            frame = preference.export_preference(
                State.engine(), ACTOR, study, agreeing_only=agreeing_only
            )
        elif kind == "aspects":
            frame = aspects.export_aspects(State.engine(), ACTOR, study)
        elif kind == "spans":
            frame = spans.export_spans(State.engine(), ACTOR, study)
        else:
            frame = data.export_ratings(State.engine(), ACTOR, study)
    write_ratings(frame, output, fmt)
    words = {
        "ratings": "scores",
        "aspects": "aspect marks",
        "spans": "spans",
        "preference": "pairs",
    }
    what = words[kind]
    out.print(f"Wrote {len(frame)} {what} to {output}.", highlight=False, markup=False)
    if kind == "preference":
        return
    names = sorted(set(frame["study"].astype(str))) if "study" in frame else []
    if study is not None or len(names) == 1:
        _write_plan(study or names[0], output)


def _write_plan(study: str, output: Path) -> None:
    """The study's analysis plan beside an export (`<name>.plan.json`), which `python -m
    analysis report` reads with it."""
    from annotate.domain.study.plan import plan_json
    from annotate.services.admin.studies import study_plan

    with refusals():
        document = study_plan(State.engine(), ACTOR, study)
    path = output.with_name(output.stem + ".plan.json")
    path.write_text(plan_json(document), encoding="utf-8")
    out.print(f"Wrote the analysis plan of {study} to {path}.", highlight=False, markup=False)


@app.command("report")
def report_command(
    study: StudyOption = DEFAULT_STUDY,
    margin: Annotated[
        float | None,
        typer.Option("--margin", help="TOST equivalence margin (default: the study's setting)."),
    ] = None,
    alpha: Annotated[
        float | None, typer.Option("--alpha", help="Significance level (default: the study's).")
    ] = None,
    holm: HolmOption = DEFAULT_HOLM,
    bootstrap: BootstrapOption = DEFAULT_N_BOOT,
    seed: SeedOption = 0,
    fmt: FormatOption = Format.json,
    output: OutputOption = None,
    plan_pairs: PlanPairsOption = None,
    plan_annotators: PlanAnnotatorsOption = 3,
) -> None:
    """The validation report of a study, from the database (same options as `python -m analysis
    report`; the margin's unit and record and the analysis plan come from the study, and the
    report says where options given here depart from the plan)."""
    from analysis.cli.report import emit_report
    from analysis.study_report import Margin, with_study_options
    from annotate.services.results.reporting import study_ratings
    from annotate.services.results.reward_models import model_inputs, with_reward_models

    with refusals():
        rated = study_ratings(State.engine(), study)
        models = model_inputs(State.engine(), ACTOR, study, rated.snapshot.ratings)
        analysed = rated.snapshot.primary()  # without the annotators the exclusion rules exclude
    if rated.snapshot.ratings.empty:
        raise fail(f"study {study!r} has no ratings yet")
    chosen = rated.settings.margin_for(None if margin is None else Margin(margin))  # in points
    emit_report(
        analysed,
        margin=chosen.value,
        margin_unit=chosen.unit,
        margin_history=chosen.record,
        alpha=rated.settings.alpha if alpha is None else alpha,
        smallest_effect=rated.settings.smallest_effect,
        plan=rated.settings.plan,
        bootstrap=bootstrap,
        holm=holm,
        seed=seed,
        fmt=fmt,
        output=output,
        scale_min=rated.settings.scale_min,
        scale_max=rated.settings.scale_max,
        extend=lambda report: with_reward_models(
            with_study_options(report, rated.snapshot, rated.settings), models
        ),
        excluded_pairs=rated.snapshot.excluded,
        planned=planned_values(plan_pairs, plan_annotators),
        questionnaire=rated.settings.questionnaire,
    )


@app.command("backup")
def backup_command(
    destination: Annotated[Path, typer.Argument(help="New file to write the copy to.")],
) -> None:
    """Copy the SQLite database while the app runs (PostgreSQL: use pg_dump)."""
    from annotate.domain.exports.backup import backup_database

    with refusals():
        path = backup_database(State.engine(), destination)
    out.print(f"Backed up to {path} ({path.stat().st_size:,} bytes).", highlight=False)
