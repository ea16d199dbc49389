"""The command line's table of contents: each top-level command of `prb-annotate`, the command
modules that define it and the summary `prb-annotate --help` lists for it. The top-level group
(`annotate.cli.common.LazyGroup`) lists the commands from here and imports a command's modules
only when that command runs, so `--help` and each command import only what they need (every start
used to import every command module and, through them, pandas, SciPy and statsmodels: ~2.8 CPU
s). `tests/annotate/cli/test_lazy_cli.py` checks this table against the modules' own commands and
prints the table to paste when a command is added or its docstring changes."""

from __future__ import annotations

import importlib
from dataclasses import dataclass


@dataclass(frozen=True)
class Command:
    """A top-level command or command group: its name, the modules of `annotate.cli` that
    register it (or its subcommands, in the order `--help` lists them) and its summary."""

    name: str
    modules: tuple[str, ...]
    summary: str


COMMANDS = (
    Command(
        "import",
        ("data",),
        "Import benchmark pairs. All or nothing: any problem leaves the database as it was.",
    ),
    Command(
        "pairs",
        ("data",),
        "Count the pairs of a study by domain (and list them with --list).",
    ),
    Command(
        "export",
        ("data",),
        "Export ratings, one row per score (or the aspect checklist's marks: --kind aspects; the\n"
        "spans marked in responses: --kind spans; or the pairs as a preference dataset: --kind\n"
        "preference).",
    ),
    Command(
        "report",
        ("data",),
        "The validation report of a study, from the database (same options as `python -m analysis\n"
        "report`; the margin's unit and record and the analysis plan come from the study, and the\n"
        "report says where options given here depart from the plan).",
    ),
    Command(
        "backup",
        ("data",),
        "Copy the SQLite database while the app runs (PostgreSQL: use pg_dump).",
    ),
    Command(
        "serve",
        ("demo",),
        "Start the annotation app (Streamlit) on this database.",
    ),
    Command(
        "demo",
        ("demo",),
        "Set up the demo (bundled data, demo study, demo accounts), print the links, serve.",
    ),
    Command(
        "assign",
        ("admin",),
        "Fixed plan: give every selected pair to k distinct annotators, loads within one.",
    ),
    Command(
        "assignments",
        ("admin",),
        "List the plan: annotator, pair_id, position, chosen_side, status.",
    ),
    Command(
        "reassign",
        ("admin",),
        "Hand an annotator's unfinished pairs (pending or skipped) to others, k kept distinct.",
    ),
    Command(
        "progress",
        ("admin",),
        "Progress per annotator and per domain, quality figures, flags, and the pairs that\n"
        "cannot reach k with the reason.",
    ),
    Command(
        "audit",
        ("operations",),
        "The audit log of admin actions: when, who, which study, what, before and after.",
    ),
    Command(
        "publish",
        ("operations",),
        "Write the study's validation card: ratings, the pairs in TRL's preference format and the\n"
        "aspect marks (Parquet), report (JSON, Markdown, HTML), a README.md dataset card and its\n"
        "Croissant metadata, ready to upload to a dataset hub (--push uploads it). Annotators are\n"
        "named by pseudonym, times given to the minute, free text left out unless disclosed field"
        " by\n"
        "field (with a warning when it holds e-mail-like strings).",
    ),
    Command(
        "drilldown",
        ("drilldown",),
        "The pairs behind a figure of the report (agreement, verdict, human accuracy), the most\n"
        "disagreeing first, with each annotator's chosen/rejected scores; --csv adds the "
        "question,\n"
        "rubric aspects and both responses.",
    ),
    Command(
        "retention",
        ("participants",),
        "List the participants whose platform ids and free text are older than their study's\n"
        "retention period; with --erase, erase those (the scores stay, under the pseudonym).",
    ),
    Command(
        "monitor",
        ("monitor",),
        "Print a study's figures (throughput, time per pair, agreement, check failures, speeders\n"
        "and straight-liners, cost, time to the planned size, the sequential plan's look), read "
        "from\n"
        "the database, every --every seconds until interrupted; closes enrolment when the study "
        "asks\n"
        "for it and the plan says stop (audited).",
    ),
    Command(
        "annotators",
        ("data", "admin", "participants"),
        "Create and manage accounts.",
    ),
    Command(
        "synth",
        ("demo", "models"),
        "Generate synthetic data for tests and benchmarks.",
    ),
    Command(
        "db",
        ("demo",),
        "The database schema: upgrade, show the revision.",
    ),
    Command(
        "studies",
        ("studies", "rules", "study_files"),
        "Create, show and edit studies.",
    ),
    Command(
        "gold",
        ("admin",),
        "Gold pairs: known rubric preference, for quality control.",
    ),
    Command(
        "models",
        ("models",),
        "Reward models' results: import, list, the label audit.",
    ),
    Command(
        "flags",
        ("operations",),
        "Flagged and skipped pairs: list, resolve, adjudicate, exclude, restore.",
    ),
    Command(
        "judge",
        ("judge",),
        "An LLM judge's aspect scores: import.",
    ),
    Command(
        "adjudication",
        ("adjudication",),
        "Disputed pairs: the queue, the disagreement threshold, sending to an adjudicator.",
    ),
    Command(
        "participants",
        ("participants",),
        "Crowd participants: the payments and approval export.",
    ),
    Command(
        "downstream",
        ("downstream",),
        "Downstream outputs (Best-of-N, PPO) and comparison studies.",
    ),
    Command(
        "crowd",
        ("crowd",),
        "Crowd participants' accounts.",
    ),
    Command(
        "platform",
        ("platform",),
        "The crowd platform: approvals, rejections, returns and bonuses.",
    ),
)

BY_NAME = {command.name: command for command in COMMANDS}
MODULES = (
    "data",
    "demo",
    "studies",
    "rules",
    "study_files",
    "admin",
    "models",
    "operations",
    "judge",
    "adjudication",
    "drilldown",
    "participants",
    "downstream",
    "crowd",
    "monitor",
    "platform",
)
"""Every command module, in the order `load_all` imports them: the order in which their commands
register, so the order of `COMMANDS` and of a group's subcommands in its help."""


def load(modules: tuple[str, ...]) -> None:
    """Import the command modules `modules` (their commands register on import)."""
    for module in modules:
        importlib.import_module(f"annotate.cli.{module}")


def load_all() -> None:
    """Import every command module: for walking the whole command tree (the docs, the tests)."""
    load(MODULES)
