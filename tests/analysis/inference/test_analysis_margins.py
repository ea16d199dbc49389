"""Margins in points or SD units, the sensitivity table, the margin record, planned power."""

from __future__ import annotations

import numpy as np
import pytest

from analysis.core.coded import encode_ratings
from analysis.core.ratings import validate_ratings
from analysis.inference.margins import check_unit, margin_record, unit_sd
from analysis.inference.primary import RatingDiffs
from analysis.inference.reml import (
    fit_reml,
)
from analysis.renderers.render import render_report
from analysis.report import build_report
from analysis.simulate import simulate_ratings
from annotate.vocabulary import DIMENSIONS, GENERAL_DIMENSIONS


@pytest.fixture(scope="module")
def report(validating_study):
    return build_report(validating_study, n_boot=0)


def test_sd_units_convert_with_each_dimensions_sd(validating_study, report):
    in_sd = build_report(validating_study, margin=0.5, margin_unit="sd", n_boot=0)
    assert in_sd["settings"]["margin_unit"] == "sd"
    diffs = RatingDiffs(encode_ratings(validate_ratings(validating_study)))
    for i, dim in enumerate(DIMENSIONS):
        sd = unit_sd(*diffs.of(i, None))
        assert in_sd["settings"]["unit_sds"][dim] == pytest.approx(sd)
        assert in_sd["settings"]["margins_points"][dim] == pytest.approx(0.5 * sd)
        assert in_sd["dimensions"][dim]["margin"] == pytest.approx(0.5 * sd)
    assert "standard deviations" in in_sd["methods"]["tost"]
    with pytest.raises(ValueError, match="margin unit"):
        check_unit("percent")


def test_sensitivity_follows_the_equivalence_bound(report):
    table = report["margin_sensitivity"]
    assert table["margins"][0] == 0.1
    assert table["margins"][-1] == 1.0
    for dim in GENERAL_DIMENSIONS:
        bound = report["dimensions"][dim]["equivalence_bound"]
        assert table["ties"][dim] == [bound < m for m in table["margins"]]
    expected = [all(table["ties"][d][i] for d in GENERAL_DIMENSIONS) for i in range(10)]
    assert table["validated"] == expected
    assert "smallest_validating_margin" not in table  # no margin to pick after the data
    # at the study margin (0.5) the grid agrees with the verdict itself
    assert table["validated"][table["margins"].index(0.5)] is report["checks"]["validated"]
    markdown = render_report(report, "md")
    assert "## Sensitivity to the equivalence margin" in markdown
    assert "validating margin" not in markdown.lower()


def test_margin_record_flags_a_change_after_data_arrived(validating_study, report):
    assert report["margin_record"] is None  # the module's report: no margin record given
    first = validating_study["created_at"].min()
    before = {"set_at": "2025-12-01T00:00:00+00:00", "history": []}
    ok = build_report(validating_study, n_boot=0, margin_history=before)["margin_record"]
    assert ok["changed_after_data"] is False
    assert ok["first_rating_at"].startswith(first[:10])
    changed = {
        "set_at": "2025-12-01T00:00:00+00:00",
        "history": [{"margin": 0.3, "unit": "points", "set_at": "2026-03-01T00:00:00Z"}],
    }
    flagged = build_report(validating_study, n_boot=0, margin_history=changed)
    assert flagged["margin_record"]["changed_after_data"] is True
    assert "CHANGED AFTER DATA ARRIVED" in render_report(flagged, "md")
    with pytest.raises(ValueError, match="set_at"):
        margin_record({"set_at": "yesterday"}, [first])


def test_power_only_when_planned(validating_study, report):
    assert report["power"] is None
    planned = {"n_pairs": 60, "annotators_per_pair": 3, "general_diff": 0.1, "simulations": 200}
    power = build_report(validating_study, n_boot=0, planned=planned)["power"]
    assert power["n_pairs"] == 60
    assert set(power["tests"]) == set(DIMENSIONS)
    assert power["sd_source"].startswith("pilot (150 pairs)")
    assert 0 <= power["joint_power"] <= 1


@pytest.mark.parametrize("seed", [1])
def test_an_sd_margin_is_the_same_points_whatever_the_annotators_per_pair(seed):
    """Issue 33.6: one population (simulate_ratings: pair SD of the difference sqrt(2) x 0.3,
    noise sqrt(2) x 0.8, rounding) rated by k = 1, 2, 3, 5 annotators per pair from a pool of
    30. The margin of 0.5 SD in points is 0.5 x the SD of one annotator's chosen - rejected
    (the crossed model's sqrt(s2_pair + s2_annotator + s2_residual)), so it is the same at
    every k within Monte Carlo error: each within 12% of their mean (relative SE of an SD from
    600+ values about 3%). The SD of per-pair means used before shrank with k: the old
    code gives factuality 0.622 / 0.444 / 0.374 / 0.314 points at k = 1/2/3/5 (this test
    failed on it)."""
    points = {}
    for k in (1, 2, 3, 5):
        ratings = simulate_ratings(600, k, {"rubric_alignment": 1.0}, seed=seed, n_annotators=30)
        report = build_report(
            ratings, margin=0.5, margin_unit="sd", n_boot=0, mixed=False, domains=False
        )
        points[k] = report["settings"]["margins_points"]
    for dim in DIMENSIONS:
        values = [points[k][dim] for k in points]
        centre = sum(values) / len(values)
        assert all(abs(v - centre) < 0.12 * centre for v in values), (dim, values)


def test_the_unit_sd_is_the_crossed_models_total_and_falls_back_to_the_plain_sd():
    ratings = simulate_ratings(40, 3, {}, seed=4, n_annotators=8)
    d, pair, annotator = RatingDiffs(encode_ratings(validate_ratings(ratings))).of(0, None)
    fit = fit_reml(d, np.ones((len(d), 1)), pair, annotator)
    total = fit.s2_pair + fit.s2_annotator + fit.s2_residual
    assert unit_sd(d, pair, annotator) == pytest.approx(np.sqrt(total), rel=1e-12)
    once = np.arange(len(d))  # every pair rated once: no pair variance to separate
    assert unit_sd(d, once, annotator) == pytest.approx(np.std(d, ddof=1))
    assert unit_sd(d[:1], pair[:1], annotator[:1]) is None
    assert unit_sd(np.zeros(5), np.arange(5), np.arange(5)) is None
