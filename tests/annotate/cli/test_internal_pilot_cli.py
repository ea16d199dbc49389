"""The internal pilot through the command line (issue 33 item 4): pre-registered with the
study (`--internal-pilot 'first=N tie_alpha=0.04'`), shown, exported in the plan (JSON and
Markdown), locked once ratings exist, and read by the report (each tie TOST at tie_alpha), its
methods paragraph and the published card."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analysis.methods import methods_paragraph


@pytest.fixture
def rated(run, tmp_path: Path) -> Path:
    run("studies", "create", "s", "--margin", "0.8", "--internal-pilot", "first=12 tie_alpha=0.03")
    run("studies", "edit", "s", "--count-simulated", "--yes")
    run("synth", "dataset", str(tmp_path / "data"), "--scale", "0.005", "--profile-size", "2")
    run("import", *map(str, sorted((tmp_path / "data").glob("*.jsonl"))), "--study", "s")
    run("synth", "ratings", "--study", "s", "--annotators", "3")
    return tmp_path


def test_the_internal_pilot_is_set_shown_exported_locked_and_read(run, cli, rated: Path) -> None:
    shown = " ".join(run("studies", "show", "s").split())
    assert "a first stage of 12 pairs, then one sample-size re-estimation look" in shown
    assert "each tie question's TOST at 0.03 (the superiority test at alpha 0.05)" in shown
    path = rated / "plan.json"
    run("studies", "export-plan", "--study", "s", str(path))
    assert json.loads(path.read_text())["plan"]["internal_pilot"] == {
        "first_stage_pairs": 12, "tie_alpha": 0.03,
    }  # fmt: skip
    assert "- Internal pilot: a first stage of 12 pairs" in path.with_suffix(".md").read_text()
    refused = cli("studies", "edit", "s", "--internal-pilot", "none", "--yes")
    assert refused.exit_code != 0
    assert "pass the force flag" in refused.stdout + refused.stderr
    result = cli("report", "--study", "s", "--bootstrap", "0")
    assert result.exit_code == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["settings"]["tie_alpha"] == 0.03
    assert report["plan"]["internal_pilot"] == {"first_stage_pairs": 12, "tie_alpha": 0.03}
    for dim in ("factuality", "relevance", "helpfulness"):
        p = report["dimensions"][dim]["tost_p"]
        if report["dimensions"][dim]["verdict"] == "tie":
            assert p < 0.03
    assert "each tie question's TOST at 0.03, its interval the 94% one" in methods_paragraph(report)
    folder = rated / "card"
    run("publish", str(folder), "--study", "s", "--bootstrap", "0")
    card = (folder / "README.md").read_text()
    assert "- **Internal pilot**: a first stage of 12 pairs" in card
    assert "each tie question's TOST at 0.03" in card


def test_the_settings_file_and_none_clear_it(run, tmp_path: Path) -> None:
    settings = tmp_path / "s.json"
    settings.write_text(json.dumps({"internal_pilot": {"first_stage_pairs": 30}}))
    run("studies", "create", "s", "--settings", str(settings))
    assert "TOST at 0.04" in " ".join(run("studies", "show", "s").split())  # the default
    run("studies", "edit", "s", "--internal-pilot", "none", "--yes")
    assert "internal pilot none" in " ".join(run("studies", "show", "s").split())


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("first=0", "internal_pilot.first_stage_pairs"),
        ("first=40 tie_alpha=0.7", "internal_pilot.tie_alpha"),
        ("first=x", "expected a number"),
        ("first=40 tie_alpha=0.06", "internal_pilot.tie_alpha: at most alpha"),
        ("stage=40", "expected first=N or tie_alpha"),
    ],
)
def test_a_bad_internal_pilot_is_refused_with_its_field(cli, value: str, said: str) -> None:
    result = cli("studies", "create", "s", "--internal-pilot", value)
    assert result.exit_code != 0
    assert said in result.stdout + result.stderr
    assert cli("studies", "show", "s").exit_code != 0  # nothing written
