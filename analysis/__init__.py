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
    "RatingsError": "analysis.core.ratings",
    "load_ratings": "analysis.core.ratings",
    "validate_ratings": "analysis.core.ratings",
    "render_report": "analysis.renderers.render",
    "build_report": "analysis.report",
    "simulate_ratings": "analysis.simulate",
}

__all__ = sorted(_PUBLIC)


def __getattr__(name: str) -> Any:
    if name not in _PUBLIC:
        raise AttributeError(f"module 'analysis' has no attribute {name!r}")
    return getattr(importlib.import_module(_PUBLIC[name], __name__), name)
