"""What every command group of `prb-annotate` shares: the Typer apps (the top one loading a
command's module only when it runs: `LazyGroup`), the global `--db` option and the engine it
opens, the consoles, the actor (`SYSTEM`: whoever runs the CLI holds the database) and the one way
a command fails with a message (`fail`, `refusals`). Imports nothing heavy: `--help` reads it."""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape
from typer import _click as click  # Typer's own copy of click, whose types its groups use
from typer.core import TyperCommand, TyperGroup

from annotate.cli.commands import BY_NAME, COMMANDS, MODULES, load
from annotate.errors import PrbError
from annotate.vocabulary import SYSTEM

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

ACTOR = SYSTEM
"""Who the services see acting: the command line passes every role check."""


class LazyGroup(TyperGroup):
    """The top-level group: lists the commands of `annotate.cli.commands` and imports a
    command's modules when it runs (or shows its own help), not before."""

    _listing = False

    def list_commands(self, ctx: click.Context) -> list[str]:  # noqa: ARG002  (click's signature)
        return [command.name for command in COMMANDS]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:  # noqa: ARG002
        entry = BY_NAME.get(cmd_name)
        if self._listing and entry is not None:
            return TyperCommand(name=cmd_name, help=entry.summary)
        load(MODULES if entry is None else entry.modules)  # unknown: every module, to suggest
        group = typer.main.get_group(app)
        return group.commands.get(cmd_name)

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        self._listing = True  # the listing shows each command's summary: no module imported
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False


app = typer.Typer(
    cls=LazyGroup,
    help="Human validation of personalized preference benchmarks.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
annotators_app = typer.Typer(help="Create and manage accounts.", no_args_is_help=True)
synth_app = typer.Typer(
    help="Generate synthetic data for tests and benchmarks.", no_args_is_help=True
)
db_app = typer.Typer(help="The database schema: upgrade, show the revision.", no_args_is_help=True)
app.add_typer(annotators_app, name="annotators")
app.add_typer(synth_app, name="synth")
app.add_typer(db_app, name="db")

out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)

StudyOption = Annotated[str, typer.Option("--study", "-s", help="Study name.")]
IMPORTED = {"added": "Imported", "replaced": "Replaced", "unchanged": "Unchanged:"}
"""The first word of an import's summary line, by its outcome."""


def say(text: str) -> None:
    """Print `text` as it is: names, ids and file names in it are data, never Rich markup,
    emoji codes or highlighting."""
    out.print(text, highlight=False, emoji=False, markup=False)


YesOption = Annotated[
    bool,
    typer.Option(
        "--yes",
        "-y",
        help="Confirm a change of the study's design (overlap, analysis plan) without being "
        "asked; needed when stdin is not a terminal.",
    ),
]
ForceOption = Annotated[
    bool,
    typer.Option(
        "--force",
        help="Change the analysis plan although the study has ratings (no longer "
        "pre-registered: audited, and the report and the card say what changed after data).",
    ),
]


class State:
    db: str | None = None
    _engine: Engine | None = None

    @classmethod
    def engine(cls) -> Engine:
        from annotate.services.database import DatabaseUnreachable, open_database

        if cls._engine is None:
            try:
                cls._engine = open_database(cls.db)
            except DatabaseUnreachable as error:
                raise fail(str(error)) from None
        return cls._engine


@app.callback()
def _global(
    db: Annotated[
        str | None,
        typer.Option(
            "--db",
            help="SQLite file or SQLAlchemy URL [env: PRB_DATABASE_URL; "
            "default: ./prb_annotate.db]",
        ),
    ] = None,
) -> None:
    State.db = db
    State._engine = None


def fail(message: str) -> typer.Exit:
    """Print `message` (each of its lines) as an error; return the exit to raise."""
    for line in message.splitlines() or [""]:
        err.print(f"[bold red]error:[/] {escape(line)}", highlight=False, markup=True)
    return typer.Exit(code=1)


def confirmed(what: str, changes: Sequence[str], yes: bool) -> None:
    """Go on only when a change of a study's design is confirmed: by `--yes`, or by answering
    yes at a terminal; refused (exit 1, nothing changed) when stdin is not a terminal."""
    if not changes or yes:
        return
    for line in changes:
        err.print(f"  {line}", highlight=False, markup=False)
    if not sys.stdin.isatty():
        raise fail(
            f"{what} changes the study's design (above): pass --yes to confirm it; nothing "
            "was changed (stdin is not a terminal, so nobody can be asked)"
        )
    if not typer.confirm(f"{what}: change the study's design as above?", default=False):
        raise fail("not confirmed; nothing was changed")


@contextmanager
def refusals() -> Iterator[None]:
    """The one place the CLI maps the product's refusals (`PrbError`) to a message and exit 1."""
    from annotate.domain.dataset.importer import DatasetError
    from annotate.domain.study.studies import StudyNotFound

    try:
        yield
    except StudyNotFound as error:
        raise fail(f"{error}; import a dataset first") from None
    except DatasetError as error:
        exit_ = fail(str(error))
        err.print("Nothing was imported.")
        raise exit_ from None
    except PrbError as error:
        raise fail(str(error)) from None
