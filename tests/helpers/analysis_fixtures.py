"""Shared fixtures for the analysis tests (simulated studies are built once per session)."""

from __future__ import annotations

import pandas as pd
import pytest

from analysis.simulate import simulate_ratings

VALIDATING_EFFECTS = {"rubric_alignment": 1.5}


@pytest.fixture(scope="session")
def validating_study() -> pd.DataFrame:
    """General effects 0, rubric effect 1.5, 150 pairs x 3 annotators from a pool of 8."""
    return simulate_ratings(150, 3, VALIDATING_EFFECTS, seed=11, n_annotators=8)


@pytest.fixture
def small_study() -> pd.DataFrame:
    """A small study (fresh copy per test, safe to modify)."""
    return simulate_ratings(12, 3, VALIDATING_EFFECTS, seed=3, n_annotators=4)
