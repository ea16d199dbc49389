"""Running a study: `prb-annotate audit` (the log of admin actions), `prb-annotate flags`
(flagged and skipped pairs: list, resolve, adjudicate, exclude from the analysis, restore) and
`prb-annotate publish` (the validation card), through the same services as the pages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from annotate.cli.common import ACTOR, State, StudyOption, app, refusals
from annotate.domain.exports.publish import DEFAULT_LICENSE
from annotate.domain.operations.flags import UNHANDLED, FlagItem
from annotate.domain.study.studies import DEFAULT_STUDY
from annotate.services import audited
from annotate.services.admin import flags, publish
from annotate.vocabulary import DEFAULT_N_BOOT, FlagAction

flags_app = typer.Typer(
    help="Flagged and skipped pairs: list, resolve, adjudicate, exclude, restore.",
    no_args_is_help=True,
)
app.add_typer(flags_app, name="flags")

Opt = typer.Option
NoteOption = Annotated[str, Opt("--note", "-n", help="What was decided, and why.")]
PairArgument = Annotated[str, typer.Argument(help="The pair's record id.")]


def _print(line: str) -> None:
    """One line as is: tab-separated tables stay tab-separated (rich would expand the tabs)."""
    typer.echo(line)


@app.command("audit")
def audit_command(
    study: Annotated[
        str | None, Opt("--study", "-s", help="Only this study's entries (default: all).")
    ] = None,
    limit: Annotated[int, Opt(min=1, help="At most this many entries, newest first.")] = 500,
    as_json: Annotated[bool, Opt("--json", help="One JSON object per line.")] = False,
) -> None:
    """The audit log of admin actions: when, who, which study, what, before and after."""
    with refusals():
        lines = audited.audit_entries(State.engine(), ACTOR, study, limit)
    if not lines and not as_json:
        _print("No admin action recorded yet.")
        return
    if not as_json:
        _print("when\twho\tstudy\taction\tbefore\tafter")
    for line in lines:
        row = {
            "when": line.at.isoformat(timespec="seconds"),
            "who": line.who,
            "study": line.study,
            "action": line.action,
            "before": line.before,
            "after": line.after,
        }
        if as_json:
            _print(json.dumps(row, ensure_ascii=False))
        else:
            cells = [*(str(row[k] or "") for k in ("when", "who", "study", "action"))]
            cells += [json.dumps(row[k], ensure_ascii=False) for k in ("before", "after")]
            _print("\t".join(cells))


def _state(item: FlagItem) -> str:
    done = item.resolution.action if item.resolution else "open"
    return f"{done}, pair excluded" if item.excluded else done


@flags_app.command("list")
def list_command(
    study: StudyOption = DEFAULT_STUDY,
    open_only: Annotated[bool, Opt("--open", help="Only items nobody has handled yet.")] = False,
) -> None:
    """Flagged and skipped pairs with the annotator's reason, comment and rubric scores."""
    with refusals():
        items = flags.flag_queue(State.engine(), ACTOR, study, open_only)
    if not items:
        _print(f"No {'open ' if open_only else ''}flagged or skipped pair in study {study!r}.")
        return
    _print("item\tpair\tdomain\tannotator\tkind\treason\tcomment\tscores\tstate\tnote")
    for i in items:
        note = i.resolution.note if i.resolution else ""
        cells = [i.assignment_id, i.record_id, i.domain, i.annotator, i.kind, i.reason]
        cells += [i.comment, json.dumps(i.scores, sort_keys=True), _state(i), note]
        _print("\t".join(str(c) for c in cells))


ReplaceOption = Annotated[
    bool,
    Opt(
        "--replace",
        help="Replace what was done with the item before (without it, an item already "
        "handled otherwise is refused).",
    ),
]


@flags_app.command("resolve")
def resolve_command(
    item: Annotated[int, typer.Argument(help="The item number from `flags list`.")],
    note: NoteOption,
    study: StudyOption = DEFAULT_STUDY,
    replace: ReplaceOption = False,
) -> None:
    """Resolve a flagged or skipped pair with a note (its ratings are kept)."""
    _resolve(study, item, FlagAction.RESOLVED, note, replace)


@flags_app.command("adjudicate")
def adjudicate_command(
    item: Annotated[int, typer.Argument(help="The item number from `flags list`.")],
    study: StudyOption = DEFAULT_STUDY,
    note: Annotated[str, Opt("--note", "-n", help="Why (optional).")] = "",
    replace: ReplaceOption = False,
) -> None:
    """Mark a flagged or skipped pair for adjudication."""
    _resolve(study, item, FlagAction.ADJUDICATION, note, replace)


def _resolve(study: str, item: int, action: FlagAction, note: str, replace: bool) -> None:
    with refusals():
        flags.resolve_flag(
            State.engine(),
            ACTOR,
            study=study,
            assignment_id=item,
            action=action,
            note=note,
            replaces=None if replace else UNHANDLED,
        )
    _print(f"Item {item} of study {study!r}: {action}.")


@flags_app.command("exclude")
def exclude_command(
    pair: PairArgument,
    reason: Annotated[str, Opt("--reason", "-r", help="Why the pair is left out.")],
    study: StudyOption = DEFAULT_STUDY,
) -> None:
    """Leave a pair out of the analysis (listed with the reason in the report's exclusions)."""
    with refusals():
        flags.exclude_pair(State.engine(), ACTOR, study=study, record_id=pair, reason=reason)
    _print(f"Pair {pair} of study {study!r} is left out of the analysis.")


@flags_app.command("restore")
def restore_command(pair: PairArgument, study: StudyOption = DEFAULT_STUDY) -> None:
    """Take an excluded pair back into the analysis (the exclusion stays on record)."""
    with refusals():
        flags.restore_pair(State.engine(), ACTOR, study=study, record_id=pair)
    _print(f"Pair {pair} of study {study!r} is back in the analysis.")


@flags_app.command("exclusions")
def exclusions_command(study: StudyOption = DEFAULT_STUDY) -> None:
    """The pairs left out of the analysis now, with the reason, who and when."""
    with refusals():
        rows = flags.exclusions(State.engine(), ACTOR, study)
    if not rows:
        _print(f"No pair of study {study!r} is excluded.")
        return
    _print("pair\treason\tby\twhen")
    for e in rows:
        _print(f"{e.record_id}\t{e.reason}\t{e.by}\t{e.at.isoformat(timespec='seconds')}")


def _warn_emails(found: dict[str, int]) -> None:
    """The warning before disclosing free text that holds e-mail-like strings (to stderr)."""
    if found:
        counts = ", ".join(f"{field}: {n}" for field, n in found.items())
        typer.echo(
            f"warning: the disclosed free text holds e-mail-like strings ({counts} entries), "
            "published as typed; --mask-emails replaces each with [e-mail]",
            err=True,
        )


@app.command("publish")
def publish_command(
    folder: Annotated[Path, typer.Argument(help="New (or empty) folder to write.")],
    study: StudyOption = DEFAULT_STUDY,
    bootstrap: Annotated[
        int, Opt("--bootstrap", min=0, help="Bootstrap resamples for the intervals.")
    ] = DEFAULT_N_BOOT,
    seed: Annotated[int, Opt(help="Seed of the bootstrap.")] = 0,
    license: Annotated[str, Opt(help="The dataset's license (hub identifier).")] = DEFAULT_LICENSE,
    disclose: Annotated[
        list[str] | None,
        Opt(
            "--disclose",
            help="Publish this free-text field (repeat per field: comment, rationale, "
            "flag_reason, flag_note, skip_reason, survey_<id>); none by default.",
        ),
    ] = None,
    mask_emails: Annotated[
        bool,
        Opt("--mask-emails", help="Replace e-mail-like strings in disclosed free text."),
    ] = False,
    push: Annotated[
        str | None,
        Opt(
            "--push",
            metavar="REPO",
            help="Then upload the folder to this dataset repository on the hub (owner/name; "
            "huggingface_hub's login or HF_TOKEN).",
        ),
    ] = None,
) -> None:
    """Write the study's validation card: ratings, the pairs in TRL's preference format and the
    aspect marks (Parquet), report (JSON, Markdown, HTML), a README.md dataset card and its
    Croissant metadata, ready to upload to a dataset hub (--push uploads it). Annotators are
    named by pseudonym, times given to the minute, free text left out unless disclosed field by
    field (with a warning when it holds e-mail-like strings)."""
    with refusals():
        upload = publish.hub_upload(folder, push) if push else None
        if disclose and not mask_emails:
            _warn_emails(publish.emails_disclosed(State.engine(), ACTOR, study, disclose))
        written = publish.publish_study(
            State.engine(),
            ACTOR,
            study,
            folder,
            disclose=disclose or (),
            mask_emails=mask_emails,
            n_boot=bootstrap,
            seed=seed,
            license=license,
        )
    for path in written:
        _print(f"wrote {path}")
    if upload is not None:
        with refusals():
            _print(f"pushed {upload.folder_path} to {publish.push_folder(upload)}")
