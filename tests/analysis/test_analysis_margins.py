"""Margins in points or SD units, the sensitivity table, the margin record, planned power."""

from __future__ import annotations

import pytest

from analysis.inference.margins import check_unit, margin_record
from analysis.renderers.render import render_report
from analysis.report import build_report
from annotate.vocabulary import DIMENSIONS, GENERAL_DIMENSIONS


@pytest.fixture(scope="module")
def report(validating_study):
    return build_report(validating_study, n_boot=0)


def test_sd_units_convert_with_each_dimensions_sd(validating_study, report):
    in_sd = build_report(validating_study, margin=0.5, margin_unit="sd", n_boot=0)
    assert in_sd["settings"]["margin_unit"] == "sd"
    for dim in DIMENSIONS:
        sd = report["dimensions"][dim]["sd_diff"]
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


def test_margin_record_flags_a_change_after_data_arrived(validating_study):
    first = validating_study["created_at"].min()
    before = {"set_at": "2025-12-01T00:00:00+00:00", "history": []}
    ok = build_report(validating_study, n_boot=0, margin_history=before)["margin_record"]
    assert ok["changed_after_data"] is False
    assert ok["first_rating_at"].startswith(first[:10])
    changed = {
        "set_at": "2025-12-01T00:00:00+00:00",
        "history": [{"margin": 0.3, "unit": "points", "set_at": "2026-03-01T00:00:00Z"}],
    }
    report = build_report(validating_study, n_boot=0, margin_history=changed)
    assert report["margin_record"]["changed_after_data"] is True
    assert "CHANGED AFTER DATA ARRIVED" in render_report(report, "md")
    assert build_report(validating_study, n_boot=0)["margin_record"] is None
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
