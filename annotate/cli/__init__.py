"""The `prb-annotate` command line (`annotate.cli:main`): one module per command group, all
registered on the Typer app of `annotate.cli.common`. The CLI is the operator's tool: it acts
with the database's credentials, as the system actor."""

from __future__ import annotations

# Each command module registers its commands on the app; --help lists them in this order.
# isort: off
from annotate.cli import data  # noqa: F401
from annotate.cli import demo  # noqa: F401
from annotate.cli import studies  # noqa: F401
from annotate.cli import rules  # noqa: F401
from annotate.cli import study_files  # noqa: F401
from annotate.cli import admin  # noqa: F401
from annotate.cli import models  # noqa: F401
from annotate.cli import operations  # noqa: F401
from annotate.cli import judge  # noqa: F401
from annotate.cli import adjudication  # noqa: F401
from annotate.cli import drilldown  # noqa: F401
from annotate.cli import participants  # noqa: F401
from annotate.cli import downstream  # noqa: F401
from annotate.cli import crowd  # noqa: F401
from annotate.cli import monitor  # noqa: F401
from annotate.cli import platform  # noqa: F401

# isort: on
from annotate.cli.common import app


def main() -> None:
    app()
