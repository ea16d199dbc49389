"""Participants' data (issue 24): `annotators erase`, `retention`, `participants payments`.

Erasure and retention print counts and pseudonyms only; the payments export is the one file
that holds platform ids, and says so (in its name's advice and on stderr)."""

from __future__ import annotations

from typing import Annotated

import typer
from typer import Option as Opt

from annotate.cli.common import ACTOR, State, StudyOption, annotators_app, app, fail, out, refusals
from annotate.services import erasure

participants_app = typer.Typer(
    help="Crowd participants: the payments and approval export.", no_args_is_help=True
)
app.add_typer(participants_app, name="participants")


@annotators_app.command("erase")
def erase_command(
    name: Annotated[str, typer.Argument(help="The account's name (e.g. prolific:<id>).")],
    study: StudyOption,
    yes: Annotated[bool, Opt("--yes", help="Do not ask for confirmation.")] = False,
) -> None:
    """Erase everything NAME left in the study: scores and their revisions, aspect marks,
    preferences, comments, flags, skips, survey answers, consent, training, and the account
    when no other study holds anything of theirs. Audited without the person; the study's
    erasure log (read by the report and the card) records it. A card already published and
    existing backups are not recalled."""
    if not yes and not typer.confirm(f"Erase every trace of {name!r} in study {study!r}?"):
        raise fail("nothing erased")
    with refusals():
        done = erasure.erase_person(State.engine(), ACTOR, name, study)
    account = "the account removed" if done.account_removed else "the account kept (other studies)"
    out.print(
        f"erased: {done.n_assignments} pair(s), {done.n_scores} score(s), {account}",
        markup=False,
    )


@app.command("retention")
def retention_command(
    study: Annotated[
        str | None, Opt("--study", "-s", help="One study (default: every study with a period).")
    ] = None,
    days: Annotated[
        int | None, Opt("--set-days", min=1, help="Set the study's retention period (days).")
    ] = None,
    clear: Annotated[bool, Opt("--clear", help="Clear the study's retention period.")] = False,
    erase: Annotated[bool, Opt("--erase", help="Erase what is listed.")] = False,
) -> None:
    """List the participants whose platform ids and free text are older than their study's
    retention period; with --erase, erase those (the scores stay, under the pseudonym)."""
    with refusals():
        if days is not None or clear:
            if study is None:
                raise fail("--set-days and --clear need --study")
            erasure.set_retention(State.engine(), ACTOR, study, None if clear else days)
            out.print(f"{study}: retention {'cleared' if clear else f'{days} days'}", markup=False)
            return
        lines = erasure.retention(State.engine(), ACTOR, study, erase=erase)
    for line in lines:
        out.print(
            f"{line.study}\t{line.annotator}\tlast active {line.last_active:%Y-%m-%d}"
            f"\t(> {line.retention_days} days)",
            markup=False,
        )
    verb = "erased" if erase else "due"
    out.print(f"{len(lines)} participant(s) {verb}", markup=False)
