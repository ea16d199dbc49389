"""The equivalence margin is pre-registered: the study records when it was set and its earlier
values, and the report says whether it was set before the first rating or changed after it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


def _rated_study(run, tmp_path: Path) -> None:
    run("synth", "dataset", str(tmp_path / "data"), "--scale", "0.005", "--profile-size", "2")
    run("import", *map(str, sorted((tmp_path / "data").glob("*.jsonl"))), "--study", "s")
    run("synth", "ratings", "--study", "s", "--annotators", "3", "--count")


def _record(cli) -> dict:
    """The report's margin record (from stdout: a forced change is also said on stderr)."""
    result = cli("report", "--study", "s", "--bootstrap", "0")
    assert result.exit_code == 0, result.stdout + result.stderr
    return json.loads(result.stdout)["margin_record"]


def test_a_margin_set_before_the_data_is_reported_as_such(run, cli, tmp_path: Path) -> None:
    run("studies", "create", "s", "--margin", "0.3", "--margin-unit", "sd")
    _rated_study(run, tmp_path)
    record = _record(cli)
    assert record["changed_after_data"] is False
    assert record["history"] == []
    assert "plan set at" in run("studies", "show", "s")


def test_a_margin_changed_after_the_data_is_flagged_with_its_earlier_value(
    run, cli, tmp_path: Path
) -> None:
    run("studies", "create", "s", "--margin", "0.5")
    _rated_study(run, tmp_path)
    with pytest.raises(AssertionError, match="not pre-registered; pass the force flag"):
        run("studies", "edit", "s", "--margin", "0.8", "--yes")  # locked once ratings exist
    run("studies", "edit", "s", "--margin", "0.8", "--yes", "--force")
    record = _record(cli)
    assert record["changed_after_data"] is True
    (earlier,) = record["history"]
    assert earlier["margin"] == 0.5
    assert earlier["unit"] == "points"
    shown = run("studies", "show", "s")
    assert "0.8 points" in shown
    assert "margin 0.5 points, smallest_effect None, alpha 0.05, planned_pairs None (set " in shown
    assert "replaced after data" in shown


def test_an_unknown_margin_unit_is_refused(run) -> None:
    with pytest.raises(AssertionError, match="margin unit must be one of points, sd"):
        run("studies", "create", "s", "--margin-unit", "percent")


def test_the_study_report_plans_power_from_its_own_ratings(run, tmp_path: Path) -> None:
    run("studies", "create", "s")
    _rated_study(run, tmp_path)
    plain = json.loads(run("report", "--study", "s", "--bootstrap", "0"))
    assert plain.get("power") is None
    planned = json.loads(run("report", "--study", "s", "--bootstrap", "0", "--plan-pairs", "60"))[
        "power"
    ]
    assert planned is not None
    assert '"n_pairs": 60' in json.dumps(planned)
