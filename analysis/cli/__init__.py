"""Command line: ``python -m analysis report RATINGS_FILE [options]`` (also ``size``,
``power``, ``figures``, ``pairs``, ``downstream``): one module per group of commands, the app
they register on in :mod:`analysis.cli.app`.
"""

# Each command module registers its commands on the app; --help lists them in this order.
# isort: off
from analysis.cli import report  # noqa: F401
from analysis.cli import planning  # noqa: F401
from analysis.cli import figures  # noqa: F401

# isort: on
from analysis.cli.app import app

__all__ = ["app"]
