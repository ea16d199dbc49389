"""The figures every benchmark prints for a set of timings: one definition of p50 and p95."""

from __future__ import annotations

import math
import statistics


def distribution(values: list[float]) -> dict[str, float]:
    """Count, median, 95th percentile (nearest rank) and maximum of `values`, in their unit."""
    ordered = sorted(values)
    if not ordered:
        return {"n": 0, "p50": 0.0, "p95": 0.0, "max": 0.0}
    return {
        "n": len(ordered),
        "p50": statistics.median(ordered),
        "p95": ordered[math.ceil(0.95 * len(ordered)) - 1],
        "max": ordered[-1],
    }
