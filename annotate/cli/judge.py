"""LLM-judge commands of `prb-annotate`: import a judge's aspect scores (the benchmark judge's
0/1/2 per rubric aspect) to compare with the annotators' aspect checklist."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from annotate.cli.common import ACTOR, IMPORTED, State, StudyOption, app, fail, out, refusals
from annotate.domain.study.studies import DEFAULT_STUDY
from annotate.services.admin import aspects

judge_app = typer.Typer(help="An LLM judge's aspect scores: import.", no_args_is_help=True)
app.add_typer(judge_app, name="judge")


@judge_app.command("import")
def import_command(
    files: Annotated[
        list[Path],
        typer.Argument(
            help='JSONL, one line per pair: {"id": ..., "chosen": [0, 1, 2, ...], '
            '"rejected": [...]} (one score per rubric aspect, in the pair\'s order); or the '
            "benchmark's eval files (BoN/evaluate.py, PPO/evaluate.py: id, answer, scores), "
            "one response per record."
        ),
    ],
    name: Annotated[str, typer.Option("--name", "-n", help="The judge's name in this study.")],
    study: StudyOption = DEFAULT_STUDY,
    replace: Annotated[
        bool, typer.Option("--replace", help="Swap the scores of a judge already imported.")
    ] = False,
    response: Annotated[
        str | None,
        typer.Option(
            help="Eval files: the response they score, chosen or rejected (default: found by "
            "the answer's text)."
        ),
    ] = None,
) -> None:
    """Import one judge's aspect scores. All or nothing: every problem is listed (file, line,
    field) and the database keeps what it had."""
    if response not in (None, "chosen", "rejected"):
        raise fail(f"--response must be chosen or rejected, got {response!r}")
    with refusals():
        summary = aspects.import_judge(
            State.engine(),
            ACTOR,
            files,
            study=study,
            judge=name,
            replace=replace,
            response=response,
        )
    verb = IMPORTED[summary.outcome]
    unparsed = f", {summary.n_unparsed} answers not usable" if summary.n_unparsed else ""
    out.print(
        f"{verb} judge {summary.judge!r} in study {summary.study!r}: "
        f"{summary.n_pairs} pairs{unparsed}.",
        highlight=False,
    )
