"""`prb-annotate monitor STUDY`: a study's figures while it runs, refreshed (issue 34 item 4),
the same as the Monitor page's (`annotate.services.admin.monitor`)."""

from __future__ import annotations

import time
from typing import Annotated

import typer

from annotate.cli.common import ACTOR, State, app, refusals, say
from annotate.services.admin import monitor as monitoring


@app.command("monitor")
def monitor(
    study: Annotated[str, typer.Argument(help="Study name.")],
    every: Annotated[
        float, typer.Option("--every", min=1.0, help="Seconds between refreshes.")
    ] = 10.0,
    once: Annotated[bool, typer.Option("--once", help="Print the figures once and stop.")] = False,
) -> None:
    """Print a study's figures (throughput, time per pair, agreement, check failures, speeders
    and straight-liners, cost, time to the planned size, the sequential plan's look), read from
    the database, every --every seconds until interrupted; closes enrolment when the study asks
    for it and the plan says stop (audited)."""
    while True:
        with refusals():
            figures = monitoring.monitor(State.engine(), ACTOR, study)
        say(f"{study} at {figures.at.isoformat(timespec='seconds')}")
        for label, value in monitoring.figure_lines(figures):
            say(f"{label}: {value}")
        if once:
            return
        time.sleep(every)
        say("")
