"""The `prb-annotate` command line (`annotate.cli:main`): one module per command group, all
registered on the Typer app of `annotate.cli.common`. The CLI is the operator's tool: it acts
with the database's credentials, as the system actor. A command's modules are imported when it
runs (`annotate.cli.commands` lists which), so a start imports only what its command needs."""

from __future__ import annotations

from annotate.cli.common import app


def main() -> None:
    app()
