"""Validation statistics for prb-annotate ratings exports (backend only).

Public entry points::

    from analysis import load_ratings, build_report, render_report, simulate_ratings

They are loaded on first use, so that importing a light submodule (e.g. `analysis.options`)
does not load scipy and statsmodels.
"""

from __future__ import annotations

import importlib
from typing import Any

_PUBLIC = {
    "RatingsError": ".ratings",
    "load_ratings": ".ratings",
    "validate_ratings": ".ratings",
    "render_report": ".render",
    "build_report": ".report",
    "simulate_ratings": ".simulate",
}

__all__ = sorted(_PUBLIC)


def __getattr__(name: str) -> Any:
    if name not in _PUBLIC:
        raise AttributeError(f"module 'analysis' has no attribute {name!r}")
    return getattr(importlib.import_module(_PUBLIC[name], __name__), name)
