"""Equivalence margins: in scale points or in SD units, their sensitivity table, and the
pre-registration record (when the margin was set, and whether it changed after data arrived).

A margin in SD units is converted per dimension with the SD of one annotator's chosen -
rejected difference, sqrt(s2_pair + s2_annotator + s2_residual) from the crossed model's REML
components (:func:`unit_sd`), so "0.3 SD" is a standardised-effect margin that does not depend
on how many annotators rate each pair (the SD of per-pair means, sqrt(s2_pair + s2_annotator /
k + s2_residual / k) roughly, shrinks with k and would give the same population a narrower
margin at every k). The conversion uses the study's own data, which the methods text says.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

import numpy as np
import pandas as pd

from analysis.core.coded import FloatArray, IntArray
from analysis.schema.report_types import MarginRecord, MarginSensitivity, PairedTest
from annotate.questionnaire import DEFAULT_QUESTIONNAIRE, Questionnaire
from annotate.vocabulary import MARGIN_UNITS

MarginUnit = Literal["points", "sd"]  # MARGIN_UNITS, as a type
SENSITIVITY_GRID = tuple(round(0.1 * i, 1) for i in range(1, 11))
"""Margins of the sensitivity table, in the study's unit."""
UNIT_WORDS = {"points": "scale points", "sd": "SD of one annotator's chosen - rejected difference"}
UNIT_LABELS = {"points": "scale points", "sd": "SD units"}
"""A margin's unit in a label (a form field, a table's column)."""


def unit_sd(d: FloatArray, pair: IntArray, annotator: IntArray) -> float | None:
    """The SD unit of a margin: sqrt(s2_pair + s2_annotator + s2_residual), the crossed
    model's REML components of one annotator's chosen - rejected difference ``d`` (one value
    per pair-rating, with its pair and annotator); the plain SD of ``d`` when the design
    cannot separate the components (each annotator or each pair rated once); None with fewer
    than two values or no variation."""
    if len(d) < 2 or float(np.ptp(d)) == 0:
        return None
    pair = np.unique(pair, return_inverse=True)[1].ravel()
    annotator = np.unique(annotator, return_inverse=True)[1].ravel()
    factors = [f for f in (pair, annotator) if 1 < len(np.unique(f)) < len(d)]
    if len(factors) < 2:
        return float(np.std(d, ddof=1))
    # here, not at the top: the admin's Participants page reads the margin record through this
    # module and must not import scipy (tests/annotate/app/test_app_lazy_imports.py)
    from analysis.inference.reml import (
        fit_reml,
    )

    fit = fit_reml(d, np.ones((len(d), 1)), pair, annotator)
    return float(np.sqrt(fit.s2_pair + fit.s2_annotator + fit.s2_residual))


def check_unit(unit: str) -> MarginUnit:
    if unit == "points":
        return "points"
    if unit == "sd":
        return "sd"
    raise ValueError(f"margin unit must be one of {', '.join(MARGIN_UNITS)}, got {unit!r}")


def margin_points(margin: float, unit: MarginUnit, sd_diff: float | None) -> float | None:
    """The margin in scale points; None in SD units when the SD is undefined or zero."""
    if unit == "points":
        return margin
    return margin * sd_diff if sd_diff else None


def margin_sensitivity(
    results: Mapping[str, PairedTest],
    unit: MarginUnit,
    margins: Sequence[float] = SENSITIVITY_GRID,
    unit_sds: Mapping[str, float | None] | None = None,
    questionnaire: Questionnaire = DEFAULT_QUESTIONNAIRE,
) -> MarginSensitivity:
    """Would each ``tie`` question tie, and would the study be validated, at each margin?

    TOST at margin m holds exactly when the (1 - 2 alpha) CI lies inside (-m, m), i.e. when the
    dimension's ``equivalence_bound`` is below m (in points; an SD-unit margin is converted with
    that dimension's unit SD, ``unit_sds``). The ``diverge`` questions' superiority tests do not
    depend on the margin; when they all diverge, validated at m = all ``tie`` questions tie at m.
    A sensitivity table only: the verdict uses the pre-registered margin, never one chosen
    from this grid.
    """
    ties: dict[str, list[bool]] = {}
    for dim in questionnaire.tie_keys:
        r = results[dim]
        sd = None if unit_sds is None else unit_sds.get(dim)
        ties[dim] = [_ties_at(r, m, unit, sd) for m in margins]
    diverges = all(results[d]["verdict"] == "diverges" for d in questionnaire.diverge_keys)
    tested = bool(questionnaire.tie_keys or questionnaire.diverge_keys)
    validated = [
        tested and diverges and all(tie[i] for tie in ties.values()) for i in range(len(margins))
    ]
    return {
        "unit": unit,
        "margins": list(margins),
        "ties": ties,
        "validated": validated,
        "equivalence_bounds": {
            d: _bound_in_unit(results[d], unit, None if unit_sds is None else unit_sds.get(d))
            for d in results
        },
    }


def _ties_at(result: PairedTest, margin: float, unit: MarginUnit, sd: float | None) -> bool:
    bound = _bound_in_unit(result, unit, sd)
    return bound is not None and result["verdict"] != "insufficient_data" and bound < margin


def _bound_in_unit(result: PairedTest, unit: MarginUnit, sd: float | None) -> float | None:
    """The equivalence bound in the margin's unit (SD units: over the unit SD)."""
    bound = result["equivalence_bound"]
    if bound is None or unit == "points":
        return bound
    return bound / sd if sd else None


def margin_record(
    record: Mapping[str, object] | None, created_at: Sequence[str] | pd.Series
) -> MarginRecord | None:
    """Check a margin record ``{"set_at": ISO time, "history": [{"margin", "unit", "set_at"},
    ...]}`` (the current setting and its earlier values) against the first rating's time:
    ``changed_after_data`` when the margin was set or changed after ratings arrived: as the
    change recorded it (`after_data`, or the lock's `forced` mark: never undone by an erasure
    that removes the earliest ratings), else by the times."""
    if record is None:
        return None
    stamps = pd.to_datetime(pd.Series(list(created_at)), utc=True, errors="coerce").dropna()
    first = stamps.min() if len(stamps) else None
    set_at = _time(record.get("set_at"), "set_at")
    history = record.get("history") or []
    if not isinstance(history, list):
        raise ValueError("margin record: 'history' must be a list of {margin, unit, set_at}")
    changes = [_time(h.get("set_at"), "history[].set_at") for h in history if isinstance(h, dict)]
    times = [t for t in [set_at, *changes] if t is not None]
    recorded = any(h.get("after_data") or h.get("forced") for h in history if isinstance(h, dict))
    late = recorded or (first is not None and any(t > first for t in times))
    return {
        "set_at": None if set_at is None else set_at.isoformat(),
        "history": [dict(h) for h in history if isinstance(h, dict)],
        "first_rating_at": None if first is None else first.isoformat(),
        "changed_after_data": bool(late),
        "note": "margin set or changed after data arrived" if late else "margin set before data",
    }


def _time(value: object, field: str) -> pd.Timestamp | None:
    if value is None or value == "":
        return None
    stamp = pd.to_datetime(str(value), utc=True, errors="coerce")
    if pd.isna(stamp):
        raise ValueError(f"margin record: '{field}' must be an ISO date-time, got {value!r}")
    return pd.Timestamp(stamp)
