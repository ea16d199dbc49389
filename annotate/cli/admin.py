"""Admin commands of `prb-annotate`: assignment, progress, gold pairs, account changes.

They call the same services as the admin pages (`annotate.services`), as the system actor.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from annotate.cli.common import (
    ACTOR,
    State,
    StudyOption,
    YesOption,
    annotators_app,
    app,
    confirmed,
    fail,
    out,
    refusals,
)
from annotate.domain.assignment import ASSIGNMENT_COLUMNS, PairSelection
from annotate.domain.exports.spreadsheet import inert_csv
from annotate.domain.rating.progress import DomainProgress, ProgressRow
from annotate.domain.study.studies import DEFAULT_STUDY
from annotate.services.admin import people, plans, progress, studies

gold_app = typer.Typer(help="Gold pairs: known rubric preference, for quality control.")
app.add_typer(gold_app, name="gold")
Opt = typer.Option

# ---------------------------------------------------------------- assignment


@app.command("assign")
def assign_command(
    annotators: Annotated[
        list[str] | None,
        typer.Argument(help="Annotators to plan for (default: every active annotator)."),
    ] = None,
    study: StudyOption = DEFAULT_STUDY,
    per_pair: Annotated[
        int | None, Opt("--per-pair", "-k", help="Distinct annotators per pair (default: study's).")
    ] = None,
    domain: Annotated[list[str] | None, Opt("--domain", help="Only these domains.")] = None,
    sample: Annotated[
        int | None, Opt("--sample", help="A seeded random sample of n pairs per domain.")
    ] = None,
    rebalance: Annotated[
        bool, Opt(help="Also move untouched pending pairs so loads end within one.")
    ] = False,
    yes: YesOption = False,
) -> None:
    """Fixed plan: give every selected pair to k distinct annotators, loads within one.

    Run it again to extend: pairs with k annotators are left alone, new pairs and a larger k
    fill the least-loaded annotators first, and finished work is never touched. A --per-pair
    other than the study's overlap changes the overlap: confirmed first (--yes).
    """
    selection = PairSelection(tuple(domain or ()), sample)
    with refusals():
        overlap = studies.get_study(State.engine(), ACTOR, study).overlap
    change = [] if per_pair in (None, overlap) else [f"overlap: {overlap} -> {per_pair}"]
    confirmed(f"assign --per-pair {per_pair}", change, yes)
    with refusals():
        result = plans.make_plan(
            State.engine(),
            ACTOR,
            study=study,
            annotators=annotators or None,
            selection=selection,
            per_pair=per_pair,
            rebalance=rebalance,
        )
    k = result.overlap
    for name in sorted(result.loads):
        gold = f", {result.gold[name]} gold" if result.gold.get(name) else ""
        out.print(
            f"{name}\t+{result.created[name]} pairs{gold}\tload {result.loads[name]}",
            highlight=False,
            markup=False,
        )
    loads = list(result.loads.values())
    out.print(
        f"{result.pairs} pairs x {k} annotators: {result.total} new assignments"
        + (f", {result.moved} moved" if result.moved else "")
        + (f"; loads {min(loads)}-{max(loads)}" if loads else ""),
        highlight=False,
    )
    if result.short:
        out.print(f"{len(result.short)} pair(s) have fewer than {k} annotators: too few people.")
    if k != overlap:
        out.print(f"The overlap of study {study} changed from {overlap} to {k}.", markup=False)


@app.command("assignments")
def assignments_command(
    study: StudyOption = DEFAULT_STUDY,
    fmt: Annotated[str, Opt("--format", "-f", help="table or csv.")] = "table",
    output: Annotated[Path | None, Opt("--output", "-o", help="Write to this file.")] = None,
) -> None:
    """List the plan: annotator, pair_id, position, chosen_side, status."""
    if fmt not in ("table", "csv"):
        raise fail(f"unknown format {fmt!r}; expected table or csv")
    with refusals():
        rows = plans.assignment_rows(State.engine(), ACTOR, study)
    if fmt == "csv":
        text = inert_csv(ASSIGNMENT_COLUMNS, (r.values() for r in rows))
        if output:
            output.write_text(text, encoding="utf-8")
        else:
            typer.echo(text, nl=False)
        return
    table = Table(*ASSIGNMENT_COLUMNS)
    for row in rows:
        table.add_row(*(str(v) for v in row.values()))
    if output:
        raise fail("--output needs --format csv")
    out.print(table)


@app.command("reassign")
def reassign_command(
    giver: Annotated[str, typer.Argument(help="Whose unfinished work to hand over.")],
    to: Annotated[list[str] | None, Opt("--to", help="Receivers (default: the others).")] = None,
    study: StudyOption = DEFAULT_STUDY,
) -> None:
    """Hand an annotator's unfinished pairs (pending or skipped) to others, k kept distinct."""
    with refusals():
        result = plans.reassign_work(
            State.engine(), ACTOR, study=study, giver=giver, receivers=to or None
        )
    out.print(f"Released {result.released} unfinished pair(s) of {giver}.", highlight=False)
    for name, n in sorted(result.handed.items()):
        out.print(f"{name}\t+{n}", highlight=False, markup=False)
    if result.returned_to_pool:
        out.print(f"{result.returned_to_pool} went back to the open pool.")
    if result.unplaced:
        out.print(f"No one could take {len(result.unplaced)}: {', '.join(result.unplaced)}")


@app.command("progress")
def progress_command(study: StudyOption = DEFAULT_STUDY) -> None:
    """Progress per annotator and per domain, quality figures, flags, and the pairs that
    cannot reach k with the reason."""
    with refusals():
        board = progress.dashboard(State.engine(), ACTOR, study)
    checks = {q.annotator: q for q in board.quality}
    columns = ["assigned", "done", "skipped", "pending", "flagged", "median_s"]
    _tsv(["annotator", *columns, "gold_accuracy", "straight_lined"])
    for row in board.annotators:
        check = checks.get(row.name)
        gold = f"{check.gold_accuracy:.0%}" if check and check.gold_accuracy is not None else "-"
        straight = f"{check.straight_lined}" if check else "-"
        _tsv([row.name, *_numbers(row), gold, straight])
    out.print()
    _tsv(["domain", "pairs", f"complete_k{board.overlap}", *columns])
    for row in board.domains:
        _tsv([row.name, str(row.pairs), str(row.complete), *_numbers(row)])
    if board.flagged:
        out.print()
        _tsv(["flagged_pair", "annotator", "reason"])
    for flag in board.flagged:
        _tsv([flag.pair_id, flag.annotator, flag.reason])
    if board.short:
        out.print()
        _tsv(["short_pair", "rated", "being_rated", "missing", "why"])
    for short in board.short:
        _tsv([short.record_id, str(short.done), str(short.held), str(short.missing), short.reason])


def _tsv(values: list[str]) -> None:
    out.print("\t".join(values), highlight=False, markup=False)


def _numbers(row: ProgressRow | DomainProgress) -> list[str]:
    seconds = "-" if row.median_seconds is None else f"{row.median_seconds:.0f}"
    return [
        str(row.assigned),
        str(row.done),
        str(row.skipped),
        str(row.pending),
        str(row.flagged),
        seconds,
    ]


# ---------------------------------------------------------------- gold pairs


@gold_app.command("mark")
def gold_mark(
    pair_ids: Annotated[list[str], typer.Argument(help="Pair ids (the records' `id`).")],
    expect: Annotated[str, Opt(help="Expected rubric preference: chosen, rejected or equal.")],
    study: StudyOption = DEFAULT_STUDY,
) -> None:
    """Make pairs gold: mixed into queues at the study's gold rate, scored against `expect`."""
    with refusals():
        n = progress.set_gold(
            State.engine(), ACTOR, study=study, record_ids=pair_ids, expect=expect
        )
    out.print(f"{n} gold pair(s) expecting {expect}.", highlight=False)


@gold_app.command("unmark")
def gold_unmark(
    pair_ids: Annotated[list[str], typer.Argument(help="Pair ids.")],
    study: StudyOption = DEFAULT_STUDY,
) -> None:
    """Make gold pairs ordinary again."""
    with refusals():
        n = progress.set_gold(State.engine(), ACTOR, study=study, record_ids=pair_ids, expect=None)
    out.print(f"{n} pair(s) are ordinary again.")


@gold_app.command("list")
def gold_list(study: StudyOption = DEFAULT_STUDY) -> None:
    """List the gold pairs and their expected preference."""
    with refusals():
        golds = progress.list_gold(State.engine(), ACTOR, study)
    for gold in golds:
        out.print(f"{gold.record_id}\t{gold.domain}\t{gold.expect}", markup=False)


# ---------------------------------------------------------------- accounts


@annotators_app.command("deactivate")
def annotators_deactivate(names: Annotated[list[str], typer.Argument()]) -> None:
    """Stop accounts from logging in (their work is kept; see `reassign`)."""
    with refusals():
        people.set_accounts_active(State.engine(), ACTOR, names, False)
    out.print(f"Deactivated {', '.join(names)}.", highlight=False)


@annotators_app.command("activate")
def annotators_activate(names: Annotated[list[str], typer.Argument()]) -> None:
    """Let deactivated accounts log in again (with their existing link)."""
    with refusals():
        people.set_accounts_active(State.engine(), ACTOR, names, True)
    out.print(f"Activated {', '.join(names)}.", highlight=False)


@annotators_app.command("rotate")
def annotators_rotate(name: Annotated[str, typer.Argument()]) -> None:
    """Give an account a new login link; the old one stops working at once."""
    with refusals():
        link = people.rotate_account(State.engine(), ACTOR, name)
    out.print(f"{name}\t{link}", highlight=False, markup=False)


@annotators_app.command("role")
def annotators_role(
    name: Annotated[str, typer.Argument()],
    role: Annotated[
        str,
        typer.Argument(
            help="annotator, adjudicator (adjudication work only), admin or researcher."
        ),
    ],
) -> None:
    """Set an account's role."""
    with refusals():
        people.set_account_role(State.engine(), ACTOR, name, role)
    out.print(f"{name} is now {role}.", highlight=False)
