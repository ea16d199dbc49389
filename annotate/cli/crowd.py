"""`prb-annotate crowd`: crowd participants' accounts (issue 24, item 7)."""

from __future__ import annotations

import typer

from annotate.cli.common import ACTOR, State, StudyOption, app, out, refusals
from annotate.domain.crowd.purge import UNSTARTED_HOURS
from annotate.services.admin import people

crowd_app = typer.Typer(help="Crowd participants' accounts.", no_args_is_help=True)
app.add_typer(crowd_app, name="crowd")


@crowd_app.command("purge")
def purge(study: StudyOption) -> None:
    """Remove the study's crowd accounts that never started (no pair in any study) and were
    created more than 24 hours ago, with their consent, survey and training records; audited
    with their number."""
    with refusals():
        purged = people.purge_unstarted(State.engine(), ACTOR, study)
    out.print(
        f"{purged} unstarted crowd account(s) older than {UNSTARTED_HOURS} hours removed "
        f"from {study}.",
        highlight=False,
        markup=False,
    )
