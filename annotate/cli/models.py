"""Reward-model commands of `prb-annotate`: import a model's results, list the models, export the
label audit (through `annotate.services.results.reward_models`, as the results page does)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from annotate.cli.common import (
    ACTOR,
    IMPORTED,
    State,
    StudyOption,
    app,
    fail,
    out,
    refusals,
    synth_app,
)
from annotate.domain.exports.spreadsheet import spreadsheet_csv
from annotate.domain.study.studies import DEFAULT_STUDY
from annotate.services.results import reward_models
from annotate.vocabulary import MODEL_KINDS

models_app = typer.Typer(
    help="Reward models' results: import, list, the label audit.", no_args_is_help=True
)
app.add_typer(models_app, name="models")

Opt = typer.Option


@models_app.command("import")
def import_command(
    files: Annotated[
        list[Path], typer.Argument(help="The model's results: JSONL, JSON array or Parquet.")
    ],
    model: Annotated[str, Opt("--model", "-m", help="The model's name in this study.")],
    study: StudyOption = DEFAULT_STUDY,
    kind: Annotated[
        str | None,
        Opt(help=f"{' or '.join(MODEL_KINDS)} (default: detected from the fields)."),
    ] = None,
    allow_unknown: Annotated[
        bool, Opt("--allow-unknown", help="Skip (and count) ids that are not pairs of the study.")
    ] = False,
    replace: Annotated[
        bool, Opt("--replace", help="Swap the results of a model already imported.")
    ] = False,
) -> None:
    """Import one model's results (the benchmark's pointwise or pairwise output). All or
    nothing: any problem leaves the database as it was."""
    if kind is not None and kind not in MODEL_KINDS:
        raise fail(f"--kind must be one of {', '.join(MODEL_KINDS)}, got {kind!r}")
    with refusals():
        summary = reward_models.import_model(
            State.engine(),
            ACTOR,
            files,
            study=study,
            model=model,
            kind=kind,
            allow_unknown=allow_unknown,
            replace=replace,
        )
    verb = IMPORTED[summary.outcome]
    out.print(
        f"{verb} {summary.kind} model {summary.model!r} in study {summary.study!r}: "
        f"{summary.n_records} records, {summary.n_pairs} pairs.",
        highlight=False,
    )
    counted = {
        "ids not in the study, skipped": summary.n_unknown,
        "pairs with one of two scores": summary.n_missing_score,
        "pairs with a non-finite score": summary.n_non_finite,
        "judge outputs that failed to parse": summary.n_parse_failed,
    }
    for what, count in counted.items():
        if count:
            out.print(f"  {count} {what}", highlight=False)


@models_app.command("list")
def list_command(study: StudyOption = DEFAULT_STUDY) -> None:
    """The study's models with their counts."""
    with refusals():
        models = reward_models.list_models(State.engine(), ACTOR, study)
    if not models:
        out.print(f"No reward model in study {study!r}.")
        return
    out.print("model\tkind\trecords\tunknown\tmissing_score\tnon_finite\tparse_failed\tfiles")
    for m in models:
        out.print(
            f"{m.name}\t{m.kind}\t{m.n_records}\t{m.n_unknown}\t{m.n_missing_score}\t"
            f"{m.n_non_finite}\t{m.n_parse_failed}\t{', '.join(m.source_files)}",
            highlight=False,
        )


@models_app.command("audit")
def audit_command(
    study: StudyOption = DEFAULT_STUDY,
    csv: Annotated[
        Path | None, Opt("--csv", help="Write the audit to this CSV file (default: print).")
    ] = None,
) -> None:
    """The label audit: pairs whose human majority prefers the rejected response or sees no
    difference on the rubric, strongest evidence first."""
    with refusals():
        inputs = reward_models.model_inputs(State.engine(), ACTOR, study)
    if inputs.ratings.empty:
        raise fail(f"study {study!r} has no ratings yet")
    table = reward_models.audit_table(inputs)
    if csv is None:
        out.print(spreadsheet_csv(table), end="", highlight=False, markup=False)
    else:
        spreadsheet_csv(table, csv)
        out.print(f"Wrote {len(table)} audited pairs to {csv}.")


@synth_app.command("model-outputs")
def synth_model_outputs(
    dataset: Annotated[list[Path], typer.Argument(help="Benchmark files: the pairs' ids.")],
    output: Annotated[Path, Opt("--output", "-o", help="JSONL file to write.")],
    kind: Annotated[str, Opt(help=" or ".join(MODEL_KINDS))] = "pointwise",
    accuracy: Annotated[float, Opt(help="Share of pairs the model gets right.")] = 0.75,
    seed: Annotated[int, Opt(help="Random seed.")] = 0,
) -> None:
    """Write made-up outputs of a reward model with a chosen accuracy (benchmark's shape)."""
    from annotate.domain.models.synthetic_models import dataset_ids, write_model_outputs

    with refusals():
        count = write_model_outputs(
            dataset_ids(dataset), output, kind=kind, accuracy=accuracy, seed=seed
        )
    out.print(f"Wrote {count} {kind} records to {output}.", highlight=False)


@models_app.command("delete")
def delete_command(
    model: Annotated[str, Opt("--model", "-m", help="The model's name in this study.")],
    study: StudyOption = DEFAULT_STUDY,
) -> None:
    """Remove a model and its results from the study."""
    with refusals():
        reward_models.delete_model(State.engine(), ACTOR, study=study, model=model)
    out.print(f"Removed model {model!r} from study {study!r}.", highlight=False)
