"""`prb-annotate models import/list/audit`, `synth model-outputs` and the report's reward-model
keys, driven like a user would (CliRunner on a real database)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest


@pytest.fixture
def rated(cli, tmp_path, make_record, write_records) -> Iterator[Path]:
    """A study of 12 pairs rated by 3 simulated annotators; yields the dataset file."""
    dataset = write_records(tmp_path / "Art_test.jsonl", [make_record(f"r{i}") for i in range(12)])
    assert cli("import", str(dataset), "--study", "s").exit_code == 0
    assert cli("synth", "ratings", "--study", "s", "--annotators", "3", "--count").exit_code == 0
    return dataset


def test_synth_import_list_audit_and_report(cli, rated, tmp_path):
    outputs = tmp_path / "rm.jsonl"
    result = cli(
        "synth",
        "model-outputs",
        str(rated),
        "-o",
        str(outputs),
        "--accuracy",
        "0.75",
        "--seed",
        "3",
    )
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in outputs.read_text().splitlines()]
    assert len(records) == 24
    assert {r["label"] for r in records} == {"chosen", "rejected"}
    judge = tmp_path / "judge.jsonl"
    assert (
        cli(
            "synth",
            "model-outputs",
            str(rated),
            "-o",
            str(judge),
            "--kind",
            "pairwise",
            "--accuracy",
            "0.5",
        ).exit_code
        == 0
    )

    result = cli("models", "import", str(outputs), "--study", "s", "--model", "rm-a")
    assert result.exit_code == 0, result.output
    assert "Imported pointwise model 'rm-a' in study 's': 24 records, 12 pairs." in result.stdout
    result = cli("models", "import", str(outputs), "--study", "s", "--model", "rm-a")
    assert "Unchanged: pointwise model 'rm-a'" in result.stdout
    assert cli("models", "import", str(judge), "-s", "s", "-m", "judge").exit_code == 0

    listing = cli("models", "list", "--study", "s")
    lines = listing.stdout.splitlines()
    assert lines[0].split()[:3] == ["model", "kind", "records"]
    assert [line.split()[:3] for line in lines[1:]] == [
        ["judge", "pairwise", "12"],
        ["rm-a", "pointwise", "24"],
    ]

    csv = tmp_path / "audit.csv"
    result = cli("models", "audit", "--study", "s", "--csv", str(csv))
    assert result.exit_code == 0, result.output
    audit = pd.read_csv(csv)
    assert list(audit.columns[:5]) == [
        "pair_id",
        "domain",
        "human_majority",
        "n_annotators",
        "mean_rubric_diff",
    ]
    assert set(audit["human_majority"]) <= {"rejected", "tie"}

    report = tmp_path / "report.json"
    result = cli("report", "--study", "s", "--bootstrap", "0", "--output", str(report))
    assert result.exit_code == 0, result.output
    data = json.loads(report.read_text())
    assert data["reward_models"]["rm-a"]["accuracy_all"] == pytest.approx(0.75)  # 9 of 12
    assert data["reward_models"]["judge"]["accuracy_all"] == pytest.approx(0.5)
    assert data["reward_models"]["rm-a"]["n_rated"] == 12
    assert len(data["label_audit"]) == len(audit)


def test_bad_input_fails_with_located_errors_and_imports_nothing(cli, rated, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "r1", "label": "chosen", "score": "high"}\n', encoding="utf-8")
    result = cli("models", "import", str(bad), "-s", "s", "-m", "rm")
    assert result.exit_code == 1
    assert f"{bad}, line 1, field 'score': expected a number, got a string" in result.stderr
    assert "Nothing was imported." in result.stderr
    assert "No reward model in study 's'." in cli("models", "list", "-s", "s").stdout
    result = cli("models", "import", str(bad), "-s", "s", "-m", "rm", "--kind", "listwise")
    assert result.exit_code == 1
    assert "--kind must be one of" in result.stderr
    unknown = tmp_path / "unknown.jsonl"
    unknown.write_text(
        '{"id": "zz", "label": "chosen", "score": 1}\n{"id": "r1", "label": "chosen", "score": 1}\n'
        '{"id": "r1", "label": "rejected", "score": 0}\n',
        encoding="utf-8",
    )
    result = cli("models", "import", str(unknown), "-s", "s", "-m", "rm")
    assert result.exit_code == 1
    assert "use --allow-unknown" in result.stderr
    result = cli("models", "import", str(unknown), "-s", "s", "-m", "rm", "--allow-unknown")
    assert result.exit_code == 0
    assert "1 ids not in the study, skipped" in result.stdout
    other = tmp_path / "other.jsonl"
    other.write_text(
        '{"id": "r1", "label": "chosen", "score": 0}\n'
        '{"id": "r1", "label": "rejected", "score": 1}\n',
        encoding="utf-8",
    )
    result = cli("models", "import", str(other), "-s", "s", "-m", "rm")
    assert result.exit_code == 1
    assert "pass --replace" in result.stderr
    result = cli("models", "import", str(other), "-s", "s", "-m", "rm", "--replace")
    assert result.exit_code == 0
    assert "Replaced pointwise model 'rm'" in result.stdout
    assert cli("models", "delete", "-s", "s", "-m", "rm").exit_code == 0
    assert "No reward model in study 's'." in cli("models", "list", "-s", "s").stdout
    result = cli("models", "delete", "-s", "s", "-m", "rm")
    assert result.exit_code == 1
    assert "no model 'rm' in study 's'" in result.stderr


def test_audit_of_a_study_without_ratings_fails_cleanly(cli, tmp_path, make_record, write_records):
    dataset = write_records(tmp_path / "Art_test.jsonl", [make_record("r0")])
    assert cli("import", str(dataset), "--study", "s").exit_code == 0
    result = cli("models", "audit", "--study", "s")
    assert result.exit_code == 1
    assert "has no ratings yet" in result.stderr
    assert cli("models", "list", "--study", "nope").exit_code == 1
