"""Admin commands of `prb-annotate`: studies, assignment, progress, gold pairs, accounts.

Registered on the main app by `annotate.cli`; they call the same library functions as the admin
page (whoever runs the CLI holds the database, so there is no role check here).
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table
from sqlmodel import Session, func, select

from annotate.cli.common import State, StudyOption, annotators_app, app, fail, out
from annotate.db import read_session, write_session
from annotate.db.tables import Annotator, Pair, Study
from annotate.domain import accounts, assignment, quality, studies
from annotate.domain.enrolment import enrolment_link
from annotate.domain.progress import annotator_progress, domain_progress, flagged_pairs
from annotate.domain.studies import DEFAULT_STUDY, StudyError, StudyNotFound
from annotate.vocabulary import DIMENSIONS

studies_app = typer.Typer(help="Create, show and edit studies.", no_args_is_help=True)
gold_app = typer.Typer(help="Gold pairs: known rubric preference, for quality control.")
app.add_typer(studies_app, name="studies")
app.add_typer(gold_app, name="gold")

# ---------------------------------------------------------------- studies

Opt = typer.Option
Seed = Annotated[int | None, Opt(help="Seed of the blinding draws and the plan.")]
ScaleMin = Annotated[int | None, Opt("--scale-min", help="Lowest score.")]
ScaleMax = Annotated[int | None, Opt("--scale-max", help="Highest score.")]
Anchor = Annotated[list[str] | None, Opt("--anchor", help="Worded scale point: '1=Very poor'.")]
Label = Annotated[list[str] | None, Opt("--label", help="Dimension label: 'factuality=...'.")]
Definition = Annotated[
    list[str] | None, Opt("--definition", help="Dimension definition: 'relevance=...'.")
]
Guidelines = Annotated[str | None, Opt(help="Guideline text (Markdown).")]
GuidelinesFile = Annotated[Path | None, Opt("--guidelines-file", help="Read guidelines from.")]
Margin = Annotated[float | None, Opt("--margin", help="Equivalence margin, scale points.")]
Code = Annotated[str | None, Opt("--completion-code", help="Shown when a queue is finished.")]
Overlap = Annotated[int | None, Opt("--overlap", "-k", help="Distinct annotators per pair.")]
Reservation = Annotated[
    int | None, Opt("--reservation-minutes", help="Open pool: how long a pulled pair is held.")
]
GoldRate = Annotated[float | None, Opt("--gold-rate", help="Share of gold pairs in queues.")]
Pool = Annotated[bool | None, Opt("--pool/--no-pool", help="Open or close the open pool.")]
Quota = Annotated[
    int | None, Opt("--pool-quota", help="Open pool: most pairs per annotator (0: no limit).")
]
Enrolment = Annotated[
    bool | None, Opt("--enrolment/--no-enrolment", help="Accept crowd enrolment links.")
]


def _pairs(values: list[str] | None, what: str) -> dict[str, str]:
    parsed = {}
    for value in values or []:
        key, sep, text = value.partition("=")
        if not sep or not key.strip():
            raise fail(f"{what} {value!r}: expected KEY=TEXT")
        parsed[key.strip()] = text.strip()
    return parsed


def _settings(
    seed: int | None,
    scale_min: int | None,
    scale_max: int | None,
    anchor: list[str] | None,
    label: list[str] | None,
    definition: list[str] | None,
    guidelines: str | None,
    guidelines_file: Path | None,
    margin: float | None,
    completion_code: str | None,
    overlap: int | None,
    reservation_minutes: int | None,
    gold_rate: float | None,
    pool: bool | None,
    pool_quota: int | None,
    enrolment: bool | None,
) -> dict[str, Any]:
    if guidelines_file is not None:
        guidelines = guidelines_file.read_text(encoding="utf-8")
    labels, definitions = _pairs(label, "--label"), _pairs(definition, "--definition")
    unknown = sorted((set(labels) | set(definitions)) - set(DIMENSIONS))
    if unknown:
        raise fail(f"unknown dimension(s) {', '.join(unknown)}; expected {', '.join(DIMENSIONS)}")
    settings: dict[str, Any] = {
        "seed": seed,
        "scale_min": scale_min,
        "scale_max": scale_max,
        "anchors": _pairs(anchor, "--anchor") or None,
        "dimension_labels": labels or None,
        "dimension_definitions": definitions or None,
        "guidelines": guidelines,
        "equivalence_margin": margin,
        "completion_code": completion_code,
        "overlap": overlap,
        "reservation_minutes": reservation_minutes,
        "gold_rate": gold_rate,
        "pool_open": pool,
        "enrolment_open": enrolment,
    }
    settings = {k: v for k, v in settings.items() if v is not None}
    if pool_quota is not None:
        settings["pool_quota"] = pool_quota or None
    return settings


@studies_app.command("create")
def studies_create(
    name: Annotated[str, typer.Argument(help="Study name.")],
    seed: Seed = None,
    scale_min: ScaleMin = None,
    scale_max: ScaleMax = None,
    anchor: Anchor = None,
    label: Label = None,
    definition: Definition = None,
    guidelines: Guidelines = None,
    guidelines_file: GuidelinesFile = None,
    margin: Margin = None,
    completion_code: Code = None,
    overlap: Overlap = None,
    reservation_minutes: Reservation = None,
    gold_rate: GoldRate = None,
    pool: Pool = None,
    pool_quota: Quota = None,
    enrolment: Enrolment = None,
) -> None:
    """Create a study (settings not given keep their defaults)."""
    settings = _settings(**{k: v for k, v in locals().items() if k != "name"})
    try:
        with write_session(State.engine()) as session:
            study = studies.create_study(session, name, **settings)
    except StudyError as error:
        raise fail(str(error)) from None
    _show(study)


@studies_app.command("edit")
def studies_edit(
    name: Annotated[str, typer.Argument(help="Study name.")],
    seed: Seed = None,
    scale_min: ScaleMin = None,
    scale_max: ScaleMax = None,
    anchor: Anchor = None,
    label: Label = None,
    definition: Definition = None,
    guidelines: Guidelines = None,
    guidelines_file: GuidelinesFile = None,
    margin: Margin = None,
    completion_code: Code = None,
    overlap: Overlap = None,
    reservation_minutes: Reservation = None,
    gold_rate: GoldRate = None,
    pool: Pool = None,
    pool_quota: Quota = None,
    enrolment: Enrolment = None,
) -> None:
    """Change some settings of a study; the others stay as they are."""
    settings = _settings(**{k: v for k, v in locals().items() if k != "name"})
    if not settings:
        raise fail("nothing to change; see --help for the settings")
    try:
        with write_session(State.engine()) as session:
            study = studies.update_study(session, name, **settings)
    except (StudyError, StudyNotFound) as error:
        raise fail(str(error)) from None
    _show(study)


@studies_app.command("show")
def studies_show(name: Annotated[str, typer.Argument(help="Study name.")]) -> None:
    """Print a study's settings (and its enrolment link when enrolment is open)."""
    with read_session(State.engine()) as session:
        try:
            study = studies.get_study(session, name)
        except StudyNotFound as error:
            raise fail(str(error)) from None
    _show(study)


@studies_app.command("list")
def studies_list() -> None:
    """List studies with their pair count."""
    with read_session(State.engine()) as session:
        for study in studies.list_studies(session):
            n = session.exec(select(func.count()).where(Pair.study_id == study.id)).one()
            mode = "pool" if study.pool_open else "plan"
            out.print(f"{study.name}\t{n} pairs\tk={study.overlap}\t{mode}", markup=False)


def _show(study: Study) -> None:
    rows = [
        ("name", study.name),
        ("seed", study.seed),
        ("scale", f"{study.scale_min}-{study.scale_max}"),
        *((f"anchor {k}", v) for k, v in sorted(study.anchors.items(), key=lambda i: int(i[0]))),
        *((f"label {d}", study.dimension_labels.get(d, "")) for d in DIMENSIONS),
        *((f"definition {d}", study.dimension_definitions.get(d, "")) for d in DIMENSIONS),
        ("guidelines", _shortened(study.guidelines) or "-"),
        ("equivalence margin", study.equivalence_margin),
        ("completion code", study.completion_code or "-"),
        ("overlap k", study.overlap),
        ("open pool", "open" if study.pool_open else "closed"),
        ("reservation minutes", study.reservation_minutes),
        ("pool quota", study.pool_quota or "no limit"),
        ("gold rate", study.gold_rate),
        ("crowd enrolment", "open" if study.enrolment_open else "closed"),
    ]
    for key, value in rows:
        out.print(f"{key}\t{value}", highlight=False, markup=False)
    if study.enrolment_open:
        link = enrolment_link(study.name, study.enrolment_key or "")
        out.print(f"enrolment link\t{link}", highlight=False, markup=False)


def _shortened(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


# ---------------------------------------------------------------- assignment


def _study(session: Session, name: str) -> Study:
    try:
        return studies.get_study(session, name)
    except StudyNotFound as error:
        raise fail(f"{error}; import a dataset first") from None


def _accounts(session: Session, names: list[str] | None) -> list[Annotator]:
    if not names:
        return [a for a in accounts.list_accounts(session) if a.active and a.role == "annotator"]
    try:
        return [accounts.get_account(session, n) for n in names]
    except accounts.AccountError as error:
        raise fail(str(error)) from None


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
) -> None:
    """Fixed plan: give every selected pair to k distinct annotators, loads within one.

    Run it again to extend: pairs with k annotators are left alone, new pairs and a larger k
    fill the least-loaded annotators first, and finished work is never touched.
    """
    selection = assignment.PairSelection(tuple(domain or ()), sample)
    try:
        with write_session(State.engine()) as session:
            target = _study(session, study)
            people = _accounts(session, annotators)
            pairs = assignment.select_pairs(session, target, selection)
            result = assignment.plan_fixed(
                session, target, people, pairs, per_pair=per_pair, rebalance=rebalance
            )
            k = target.overlap
    except assignment.AssignmentError as error:
        raise fail(str(error)) from None
    for name in sorted(result.loads):
        gold = f", {result.gold[name]} gold" if result.gold.get(name) else ""
        out.print(
            f"{name}\t+{result.created[name]} pairs{gold}\tload {result.loads[name]}",
            highlight=False,
            markup=False,
        )
    loads = list(result.loads.values())
    out.print(
        f"{len(pairs)} pairs x {k} annotators: {result.total} new assignments"
        + (f", {result.moved} moved" if result.moved else "")
        + (f"; loads {min(loads)}-{max(loads)}" if loads else ""),
        highlight=False,
    )
    if result.short:
        out.print(f"{len(result.short)} pair(s) have fewer than {k} annotators: too few people.")


@app.command("assignments")
def assignments_command(
    study: StudyOption = DEFAULT_STUDY,
    fmt: Annotated[str, Opt("--format", "-f", help="table or csv.")] = "table",
    output: Annotated[Path | None, Opt("--output", "-o", help="Write to this file.")] = None,
) -> None:
    """List the plan: annotator, pair_id, position, chosen_side, status."""
    if fmt not in ("table", "csv"):
        raise fail(f"unknown format {fmt!r}; expected table or csv")
    with read_session(State.engine()) as session:
        rows = assignment.assignment_rows(session, _study(session, study).id)  # type: ignore[arg-type]
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(assignment.ASSIGNMENT_COLUMNS)
        writer.writerows(r.values() for r in rows)
        text = buffer.getvalue()
        if output:
            output.write_text(text, encoding="utf-8")
        else:
            typer.echo(text, nl=False)
        return
    table = Table(*assignment.ASSIGNMENT_COLUMNS)
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
    with write_session(State.engine()) as session:
        target = _study(session, study)
        (person,) = _accounts(session, [giver])
        receivers = _accounts(session, to) if to else None
        result = assignment.reassign(session, target, person, receivers)
    out.print(f"Released {result.released} unfinished pair(s) of {giver}.", highlight=False)
    for name, n in sorted(result.handed.items()):
        out.print(f"{name}\t+{n}", highlight=False, markup=False)
    if result.returned_to_pool:
        out.print(f"{result.returned_to_pool} went back to the open pool.")
    if result.unplaced:
        out.print(f"No one could take {len(result.unplaced)}: {', '.join(result.unplaced)}")


@app.command("progress")
def progress_command(study: StudyOption = DEFAULT_STUDY) -> None:
    """Progress per annotator and per domain, quality figures and flags."""
    with read_session(State.engine()) as session:
        target = _study(session, study)
        people = annotator_progress(session, target.id)  # type: ignore[arg-type]
        domains = domain_progress(session, target.id)  # type: ignore[arg-type]
        checks = {q.annotator: q for q in quality.annotator_quality(session, target.id)}  # type: ignore[arg-type]
        flags = flagged_pairs(session, target.id)  # type: ignore[arg-type]
    columns = ["assigned", "done", "skipped", "pending", "flagged", "median_s"]
    _tsv(["annotator", *columns, "gold_accuracy", "straight_lined"])
    for row in people:
        check = checks.get(row.name)
        gold = f"{check.gold_accuracy:.0%}" if check and check.gold_accuracy is not None else "-"
        straight = f"{check.straight_lined}" if check else "-"
        _tsv([row.name, *_numbers(row), gold, straight])
    out.print()
    _tsv(["domain", "pairs", f"complete_k{target.overlap}", *columns])
    for row in domains:
        _tsv([row.name, str(row.pairs), str(row.complete), *_numbers(row)])
    if flags:
        out.print()
        _tsv(["flagged_pair", "annotator", "reason"])
    for flag in flags:
        _tsv([flag.pair_id, flag.annotator, flag.reason])


def _tsv(values: list[str]) -> None:
    out.print("\t".join(values), highlight=False, markup=False)


def _numbers(row: Any) -> list[str]:
    seconds = "-" if row.median_seconds is None else f"{row.median_seconds:.0f}"
    return [str(row.assigned), str(row.done), str(row.skipped), str(row.pending)] + [
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
    try:
        with write_session(State.engine()) as session:
            n = quality.mark_gold(session, _study(session, study), pair_ids, expect)
    except quality.GoldError as error:
        raise fail(str(error)) from None
    out.print(f"{n} gold pair(s) expecting {expect}.", highlight=False)


@gold_app.command("unmark")
def gold_unmark(
    pair_ids: Annotated[list[str], typer.Argument(help="Pair ids.")],
    study: StudyOption = DEFAULT_STUDY,
) -> None:
    """Make gold pairs ordinary again."""
    try:
        with write_session(State.engine()) as session:
            n = quality.unmark_gold(session, _study(session, study), pair_ids)
    except quality.GoldError as error:
        raise fail(str(error)) from None
    out.print(f"{n} pair(s) are ordinary again.")


@gold_app.command("list")
def gold_list(study: StudyOption = DEFAULT_STUDY) -> None:
    """List the gold pairs and their expected preference."""
    with read_session(State.engine()) as session:
        for gold in quality.list_gold(session, _study(session, study).id):  # type: ignore[arg-type]
            out.print(f"{gold.record_id}\t{gold.domain}\t{gold.expect}", markup=False)


# ---------------------------------------------------------------- accounts


def _account_change(names: list[str], change: Any) -> None:
    try:
        with write_session(State.engine()) as session:
            for name in names:
                change(session, name)
    except accounts.AccountError as error:
        raise fail(str(error)) from None


@annotators_app.command("deactivate")
def annotators_deactivate(names: Annotated[list[str], typer.Argument()]) -> None:
    """Stop accounts from logging in (their work is kept; see `reassign`)."""
    _account_change(names, lambda s, n: accounts.set_active(s, n, False))
    out.print(f"Deactivated {', '.join(names)}.", highlight=False)


@annotators_app.command("activate")
def annotators_activate(names: Annotated[list[str], typer.Argument()]) -> None:
    """Let deactivated accounts log in again (with their existing link)."""
    _account_change(names, lambda s, n: accounts.set_active(s, n, True))
    out.print(f"Activated {', '.join(names)}.", highlight=False)


@annotators_app.command("rotate")
def annotators_rotate(name: Annotated[str, typer.Argument()]) -> None:
    """Give an account a new login link; the old one stops working at once."""
    links: list[str] = []
    _account_change([name], lambda s, n: links.append(accounts.rotate_token(s, n)))
    out.print(f"{name}\t{accounts.login_link(links[0])}", highlight=False, markup=False)


@annotators_app.command("role")
def annotators_role(
    name: Annotated[str, typer.Argument()],
    role: Annotated[str, typer.Argument(help="annotator, admin or researcher.")],
) -> None:
    """Set an account's role."""
    _account_change([name], lambda s, n: accounts.set_role(s, n, role))
    out.print(f"{name} is now {role}.", highlight=False)
