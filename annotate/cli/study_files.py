"""Study settings files in `prb-annotate studies`: export-settings and import-settings (YAML or
JSON, by the file's suffix), through `annotate.services.admin.study_settings` as the Studies page;
and `studies training`: where each annotator stands in the study's training."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from annotate.cli.common import (
    ACTOR,
    State,
    StudyOption,
    YesOption,
    confirmed,
    fail,
    out,
    refusals,
)
from annotate.cli.studies import studies_app
from annotate.domain.study.plan import plan_json, plan_markdown
from annotate.domain.study.settings_model import DESIGN_SETTINGS
from annotate.domain.study.study_settings import format_of
from annotate.services.admin import studies, study_settings
from annotate.services.participant.training import training_outcomes

SettingsPath = Annotated[
    Path, typer.Argument(help="The settings file: .yaml, .yml or .json.", dir_okay=False)
]


@studies_app.command("export-settings")
def export_settings(study: StudyOption, file: SettingsPath) -> None:
    """Write a study's settings (scale, wording, margin, design, training) to FILE."""
    with refusals():
        text = study_settings.export_settings(State.engine(), ACTOR, study, format_of(str(file)))
    try:
        file.write_text(text, encoding="utf-8")
    except OSError as error:
        raise fail(f"{file}: cannot write it ({error})") from None
    out.print(f"Settings of {study} written to {file}.", highlight=False, markup=False)


@studies_app.command("export-plan")
def export_plan(
    study: StudyOption,
    file: Annotated[
        Path,
        typer.Argument(
            help="The plan's JSON file (a Markdown copy is written beside it, .md).",
            dir_okay=False,
        ),
    ],
) -> None:
    """Write the study's pre-registered analysis plan, stamped with the time, to FILE (JSON)
    and FILE with .md (Markdown): margin and unit, smallest effect of interest, alpha, planned
    size or stopping rule, exclusion rules, when each was set and every change since."""
    if file.suffix.lower() != ".json":
        raise fail(f"{file}: expected a .json file (the Markdown copy goes beside it)")
    with refusals():
        document = studies.study_plan(State.engine(), ACTOR, study)
    markdown = file.with_suffix(".md")
    try:
        file.write_text(plan_json(document), encoding="utf-8")
        markdown.write_text(plan_markdown(document), encoding="utf-8")
    except OSError as error:
        raise fail(f"{file}: cannot write it ({error})") from None
    out.print(
        f"Analysis plan of {study} (exported {document['exported_at']}) written to {file} "
        f"and {markdown}.",
        highlight=False,
        markup=False,
    )


@studies_app.command("import-settings")
def import_settings(study: StudyOption, file: SettingsPath, yes: YesOption = False) -> None:
    """Apply the settings in FILE to a study (settings the file leaves out are kept); all or
    nothing, recorded in the audit log. A change of the design (overlap, the analysis plan) is
    confirmed first (--yes)."""
    data = read_bytes(file)
    with refusals():
        _, preview = study_settings.preview_settings_file(
            State.engine(), ACTOR, study, str(file), data
        )
    design = [
        f"{key}: {now} -> {after}"
        for key, (now, after) in preview.items()
        if key in DESIGN_SETTINGS
    ]
    confirmed(f"studies import-settings {file}", design, yes)
    with refusals():
        study_settings.import_settings(State.engine(), ACTOR, study, str(file), data)
    out.print(f"Settings of {study} read from {file}.", highlight=False, markup=False)


def read_bytes(file: Path) -> bytes:
    try:
        return file.read_bytes()
    except OSError as error:
        raise fail(f"{file}: cannot read it ({error})") from None


@studies_app.command("training")
def training(study: StudyOption) -> None:
    """Where each annotator who started the study's training stands: practice pairs answered,
    attempts at the comprehension check, passed or failed (screened out) and when."""
    with refusals():
        found = training_outcomes(State.engine(), ACTOR, study)
    for line in found:
        ended = line.ended_at.isoformat(timespec="seconds") if line.ended_at else "-"
        out.print(
            f"{line.annotator}\t{line.status}\tpractice {line.practised}\t"
            f"attempts {line.attempts}\t{ended}",
            highlight=False,
            markup=False,
        )
    counts = {s: sum(o.status == s for o in found) for s in ("passed", "failed")}
    ongoing = len(found) - sum(counts.values())
    out.print(
        f"{len(found)} started: {counts['passed']} passed, {counts['failed']} failed "
        f"(screened out), {ongoing} in training",
        highlight=False,
        markup=False,
    )
