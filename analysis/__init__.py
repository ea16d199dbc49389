"""Validation statistics for prb-annotate ratings exports (backend only).

Public entry points::

    from analysis import load_ratings, build_report, render_report, simulate_ratings
"""

from .ratings import RatingsError, load_ratings, validate_ratings
from .render import render_report
from .report import build_report
from .simulate import simulate_ratings

__all__ = [
    "RatingsError",
    "build_report",
    "load_ratings",
    "render_report",
    "simulate_ratings",
    "validate_ratings",
]
