"""Report values made JSON-serialisable: numpy scalars and arrays as Python values, NaN, inf
and pandas' missing values as None."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd


def to_jsonable(value: object) -> object:
    """Recursively convert numpy scalars/arrays to Python types and NaN/inf to None."""
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | np.ndarray):
        return [to_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if value is pd.NA or value is pd.NaT:
        return None
    return value
