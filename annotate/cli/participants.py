"""Participants' data (issue 24): `annotators erase`, `retention`, `participants payments`.

Erasure and retention print counts and pseudonyms only; the payments export is the one file
that holds platform ids, and says so (in its name's advice and on stderr)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Annotated

import typer
from typer import Option as Opt

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
from annotate.services.admin import erasure, payments

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


@participants_app.command("payments")
def payments_command(
    study: StudyOption,
    output: Annotated[
        Path | None, Opt("--output", "-o", help="Write the CSV here (default: stdout).")
    ] = None,
    hourly_rate: Annotated[
        float | None, Opt("--hourly-rate", min=0, help="Suggest a pay at this rate per hour.")
    ] = None,
) -> None:
    """Each participant's platform id, status (completed, screened out, withdrawn, excluded by
    which rule), completion code and time taken, as CSV for the platform's bulk approval (on
    Prolific the `participant_id` column is what it reads); the median time taken on stderr.
    The file holds platform ids: keep it private."""
    with refusals():
        found = payments.participant_payments(State.engine(), ACTOR, study)
    text = payments.payments_csv(found)
    if output is None:
        typer.echo(text, nl=False)
    else:
        output.write_text(text, encoding="utf-8")
    err.print(payments.HOLDS_PLATFORM_IDS, markup=False)
    counts = Counter(r.status for r in found.rows)
    err.print(
        ", ".join(f"{n} {s}" for s, n in sorted(counts.items())) or "no participant", markup=False
    )
    if found.median_minutes is None:
        err.print("median time taken: nobody has completed yet", markup=False)
        return
    line = f"median time taken: {found.median_minutes} minutes"
    if hourly_rate is not None:
        line += f"; at {hourly_rate}/hour, pay {found.pay_for(hourly_rate):.2f} per participant"
    err.print(line, markup=False)
