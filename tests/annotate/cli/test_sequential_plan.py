"""The group-sequential plan through the command line (issue 33 item 1): set with the study,
shown, exported in the plan, locked once ratings exist, and read by the report, its Markdown,
the methods paragraph and the published card (look k of K, the boundary, stop or continue)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analysis.methods import methods_paragraph

PLAN = "looks=5,10,15,20 alpha=pocock futility=obrien-fleming"


@pytest.fixture
def rated(run, tmp_path: Path) -> Path:
    run("studies", "create", "s", "--margin", "0.8", "--sequential", PLAN, "--count-simulated")
    run("synth", "dataset", str(tmp_path / "data"), "--scale", "0.005", "--profile-size", "2")
    run("import", *map(str, sorted((tmp_path / "data").glob("*.jsonl"))), "--study", "s")
    run("synth", "ratings", "--study", "s", "--annotators", "3")
    return tmp_path


def test_the_plan_is_set_shown_locked_and_read_at_its_look(run, cli, rated: Path) -> None:
    shown = run("studies", "show", "s")
    assert "looks at 5, 10, 15, 20 pairs; Lan-DeMets alpha spending, pocock type" in shown
    assert "non-binding futility by obrien-fleming-type beta spending" in shown
    refused = cli("studies", "edit", "s", "--sequential", "none", "--yes")
    assert refused.exit_code != 0
    assert "pass the force flag" in refused.stdout + refused.stderr
    result = cli("report", "--study", "s", "--bootstrap", "0")
    assert result.exit_code == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    look = report["plan"]["sequential"]
    n_pairs = report["plan"]["n_pairs_collected"]
    assert look["n_looks"] == 4
    assert look["look"] == sum(n_pairs >= n for n in (5, 10, 15, 20))
    assert look["decision"] in ("stop", "continue", "stop for futility")
    assert f"look {look['look']} of 4" in report["plan"]["note"]
    assert report["checks"]["validated"] == (
        look["crossed"] and report["checks"]["general_quality_tie"]
        and report["checks"]["rubric_alignment_diverges"]
    )  # fmt: skip
    assert "Lan-DeMets pocock-type" in methods_paragraph(report)
    folder = rated / "card"
    run("publish", str(folder), "--study", "s", "--bootstrap", "0")
    card = (folder / "README.md").read_text()
    assert f"**Group-sequential plan**: look {look['look']} of 4" in card
    plan = json.loads((folder / "plan.json").read_text())["plan"]["sequential"]
    assert plan["looks"] == [5, 10, 15, 20]
    assert (plan["alpha_spending"], plan["futility"], plan["binding"]) == (
        "pocock", "obrien-fleming", False,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("looks=30", "sequential.looks"),
        ("looks=30,60 alpha=haybittle", "sequential.alpha_spending"),
        ("looks=30,x", "expected numbers"),
        ("spending=pocock", "expected one of looks"),
    ],
)
def test_a_bad_plan_is_refused_with_its_field(cli, value: str, said: str) -> None:
    result = cli("studies", "create", "s", "--sequential", value)
    assert result.exit_code != 0
    assert said in result.stdout + result.stderr
    assert cli("studies", "show", "s").exit_code != 0  # nothing written
