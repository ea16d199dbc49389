"""Command line: ``python -m analysis report RATINGS_FILE [options]`` (also ``size``,
``power``, ``figures``, ``pairs``, ``downstream``): one module per group of commands, the app
they register on in :mod:`analysis.cli.app`.
"""

from analysis.cli import figures, planning, report  # noqa: F401  (registers the commands)
from analysis.cli.app import app

__all__ = ["app"]
