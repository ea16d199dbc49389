"""`prb-annotate drilldown`: the pairs behind a figure of the validation report, the most
telling first (through `annotate.services.results.drilldown`, as the results page does)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from analysis.inference.drilldown import FIGURE_HELP
from annotate.cli.common import ACTOR, State, StudyOption, app, out, refusals
from annotate.domain.exports.spreadsheet import spreadsheet_csv
from annotate.domain.study.studies import DEFAULT_STUDY
from annotate.services.results.drilldown import TEXT_COLUMNS, figure_words, study_figure_pairs

Opt = typer.Option


@app.command("drilldown")
def drilldown_command(
    figure: Annotated[str, Opt("--figure", "-f", help=FIGURE_HELP)],
    study: StudyOption = DEFAULT_STUDY,
    domain: Annotated[str | None, Opt(help="Only the pairs of this domain.")] = None,
    csv: Annotated[
        Path | None,
        Opt("--csv", help="Write every pair, with its texts, to this CSV file (default: print)."),
    ] = None,
    top: Annotated[int, Opt(min=1, help="How many pairs to print (without --csv).")] = 20,
) -> None:
    """The pairs behind a figure of the report (agreement, verdict, human accuracy), the most
    disagreeing first, with each annotator's chosen/rejected scores; --csv adds the question,
    rubric aspects and both responses."""
    with refusals():
        table = study_figure_pairs(State.engine(), ACTOR, study, figure, domain)
        label, note = figure_words(State.engine(), ACTOR, study, figure)
    if csv is not None:
        spreadsheet_csv(table, csv)
        out.print(f"Wrote {len(table)} pairs behind {figure} to {csv}.", highlight=False)
        return
    out.print(f"{label}: {len(table)} pairs. {note}", highlight=False)
    shown = table.drop(columns=list(TEXT_COLUMNS)).head(top)
    text = shown.to_string(index=False, float_format=lambda v: f"{v:.3f}", na_rep="")
    out.print(text, highlight=False, markup=False)
