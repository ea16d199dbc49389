"""The crowd platform (issue 34.3): `platform sync STUDY [--send]` and `platform resolve`.

`sync` prints the table of what would be sent (a dry run: nothing is written); `--send` sends
it, each action recorded before it is sent so that running it again after a failure sends
nothing twice. `--csv FILE` writes the table (the way to apply it by hand on a platform
without an API); it holds platform ids, and says so."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from typer import Option as Opt

from annotate.cli.common import ACTOR, State, app, err, fail, out, refusals
from annotate.domain.crowd.payment_rules import major_units
from annotate.services.admin import platform
from annotate.services.admin.payments import HOLDS_PLATFORM_IDS

platform_app = typer.Typer(
    help="The crowd platform: approvals, rejections, returns and bonuses.", no_args_is_help=True
)
app.add_typer(platform_app, name="platform")


@platform_app.command("sync")
def sync_command(
    study: Annotated[str, typer.Argument(help="Study name.")],
    send: Annotated[
        bool, Opt("--send", help="Send the actions (default: only show them).")
    ] = False,
    bonus_csv: Annotated[
        Path | None,
        Opt("--bonus-csv", help="Bonuses from a file of participant_id,amount lines (e.g. 1.50)."),
    ] = None,
    csv_file: Annotated[Path | None, Opt("--csv", help="Write the table to this CSV file.")] = None,
) -> None:
    """Read the study's submissions on its platform and show what to do with each: release
    the pairs of those returned or timed out, approve those who completed, reject only those
    who failed the instructed-response checks, complete the screened-out with the screen-out
    code, ask those who withdrew to return, pay bonuses (the study's rule or --bonus-csv).
    Nothing is sent without --send."""
    lines = None
    if bonus_csv is not None:
        try:
            lines = bonus_csv.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise fail(f"{bonus_csv}: cannot read it ({error})") from None
    with refusals():
        result = platform.sync(State.engine(), ACTOR, study, send=send, bonus_csv=lines)
    for line in result.lines:
        amount = f"{major_units(line.amount)} {result.currency}" if line.amount else "-"
        out.print(
            f"{line.action_id or '-'}\t{line.words}\t{line.participant_id or '-'}\t{amount}"
            f"\t{line.why}\t{line.state}",
            markup=False,
            highlight=False,
        )
    sent = sum(1 for line in result.to_send if line.state == "sent")
    if not result.lines:
        out.print("nothing to do", markup=False)
    elif not send:
        how = "send with --send" if result.sends else "apply them by hand on the platform"
        out.print(f"{len(result.to_send)} action(s) planned, none sent: {how}", markup=False)
    else:
        out.print(f"{sent} of {len(result.to_send)} action(s) sent", markup=False)
    if csv_file is not None:
        csv_file.write_text(platform.actions_csv(result), encoding="utf-8")
        err.print(f"wrote {csv_file}. {HOLDS_PLATFORM_IDS}", markup=False)
    for problem in result.problems:
        err.print(f"not sent: {problem}", markup=False, highlight=False)
    if result.problems:
        raise typer.Exit(1)


@platform_app.command("resolve")
def resolve_command(
    study: Annotated[str, typer.Argument(help="Study name.")],
    action_id: Annotated[int, typer.Argument(help="The bonus payment's action id.")],
    paid: Annotated[
        bool,
        Opt("--paid/--not-paid", help="What the platform shows for this bonus payment."),
    ],
) -> None:
    """Say whether a bonus payment whose outcome is unknown (the platform did not answer the
    payment) was paid, after checking on the platform: --not-paid lets the next sync pay it."""
    with refusals():
        platform.resolve_bonus(State.engine(), ACTOR, study, action_id, paid)
    out.print(f"bonus payment {action_id}: {'paid' if paid else 'to be paid'}", markup=False)
