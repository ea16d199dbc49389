"""`prb-annotate adjudication`: the queue of disputed pairs (list), the study's disagreement
threshold (threshold) and sending a pair to an adjudicator (assign), through the same services
as the admin page."""

from __future__ import annotations

from typing import Annotated

import typer

from annotate.cli.common import ACTOR, State, StudyOption, app, refusals
from annotate.domain.operations.adjudication import Candidate
from annotate.domain.study.studies import DEFAULT_STUDY
from annotate.services.admin import adjudication

adjudication_app = typer.Typer(
    help="Disputed pairs: the queue, the disagreement threshold, sending to an adjudicator.",
    no_args_is_help=True,
)
app.add_typer(adjudication_app, name="adjudication")


def _who(candidate: Candidate) -> str:
    return ", ".join(f"{a.name} ({a.status})" for a in candidate.adjudicators) or "-"


@adjudication_app.command("list")
def list_command(study: StudyOption = DEFAULT_STUDY) -> None:
    """The adjudication queue: pairs beyond the threshold or flagged for adjudication, why,
    the annotators' chosen - rejected rubric differences, and their adjudicators."""
    with refusals():
        threshold, queue = adjudication.queue(State.engine(), ACTOR, study)
    limit = "off (flags only)" if threshold is None else f"spread >= {threshold:g}"
    typer.echo(f"Study {study!r}: adjudication threshold {limit}.")
    if not queue:
        typer.echo("No pair to adjudicate.")
        return
    typer.echo("pair\tdomain\tdifferences\tspread\twhy\tadjudicators\texcluded")
    for c in queue:
        spread = "-" if c.spread is None else str(c.spread)
        differences = " ".join(f"{d:+d}" for d in c.differences) or "-"
        cells = [c.record_id, c.domain, differences, spread, c.reasons, _who(c)]
        typer.echo("\t".join([*cells, "yes" if c.excluded else "no"]))


@adjudication_app.command("threshold")
def threshold_command(
    value: Annotated[
        float | None,
        typer.Argument(help="Spread of rubric differences (max - min); omit to switch off."),
    ] = None,
    study: StudyOption = DEFAULT_STUDY,
) -> None:
    """Set the disagreement that sends a pair to adjudication (omitted: flags only)."""
    with refusals():
        adjudication.set_threshold(State.engine(), ACTOR, study=study, threshold=value)
    shown = "off (flags only)" if value is None else f"spread >= {value:g}"
    typer.echo(f"Study {study!r}: adjudication threshold {shown}.")


@adjudication_app.command("assign")
def assign_command(
    pair: Annotated[str, typer.Argument(help="The pair's record id (from `adjudication list`).")],
    adjudicator: Annotated[
        str, typer.Option("--to", "-t", help="The account that adjudicates (never had the pair).")
    ],
    study: StudyOption = DEFAULT_STUDY,
) -> None:
    """Send a pair of the queue to an adjudicator: it joins the end of their queue, blind."""
    with refusals():
        adjudication.send(
            State.engine(), ACTOR, study=study, record_id=pair, adjudicator=adjudicator
        )
    typer.echo(f"Pair {pair} of study {study!r} sent to {adjudicator} for adjudication.")
