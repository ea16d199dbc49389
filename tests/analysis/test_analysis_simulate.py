"""The ratings simulator."""

from __future__ import annotations

import pandas as pd
import pytest

from analysis.core.ratings import validate_ratings
from analysis.simulate import DEFAULT_DOMAINS, simulate_ratings
from annotate.vocabulary import EXPORT_COLUMNS


def test_export_format_and_size():
    df = simulate_ratings(30, 4, {"rubric_alignment": 1.0}, seed=1, n_annotators=9)
    assert list(df.columns) == list(EXPORT_COLUMNS)
    assert len(df) == 30 * 4 * 8
    validate_ratings(df)  # raises on any format problem
    per_pair = df.groupby("pair_id")["annotator"].nunique()
    assert (per_pair == 4).all()
    assert df["annotator"].nunique() <= 9
    assert sorted(df["domain"].unique()) == sorted(DEFAULT_DOMAINS)
    assert df.groupby("domain")["pair_id"].nunique().tolist() == [10, 10, 10]


def test_sides_random_and_opposite():
    df = simulate_ratings(50, 3, seed=2)
    sides = df.drop_duplicates(["pair_id", "annotator", "response"]).pivot_table(
        index=["pair_id", "annotator"], columns="response", values="side", aggfunc="first"
    )
    assert (sides["chosen"] != sides["rejected"]).all()
    assert 0.35 < (sides["chosen"] == "A").mean() < 0.65


def test_seeded():
    a = simulate_ratings(10, 2, {"factuality": 0.5}, seed=4)
    pd.testing.assert_frame_equal(a, simulate_ratings(10, 2, {"factuality": 0.5}, seed=4))
    assert not a.equals(simulate_ratings(10, 2, {"factuality": 0.5}, seed=5))


def test_effects_recovered():
    df = simulate_ratings(400, 3, {"rubric_alignment": 1.5, "helpfulness": 0.0}, seed=7)
    means = df.groupby(["dimension", "response"])["score"].mean().unstack()
    diff = means["chosen"] - means["rejected"]
    assert diff["rubric_alignment"] == pytest.approx(1.5, abs=0.2)
    assert diff["helpfulness"] == pytest.approx(0.0, abs=0.1)


def test_bad_arguments():
    with pytest.raises(ValueError, match="unknown dimensions"):
        simulate_ratings(5, 2, {"fluency": 1.0})
    with pytest.raises(ValueError, match="n_annotators_per_pair <= n_annotators"):
        simulate_ratings(5, 4, n_annotators=3)
