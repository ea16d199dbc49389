"""The command line, through typer's CliRunner."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from analysis.cli import app

runner = CliRunner()
REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def ratings_file(validating_study, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("cli") / "ratings.csv"
    validating_study.to_csv(path, index=False)
    return path


def test_json_to_stdout(ratings_file):
    result = runner.invoke(app, ["report", str(ratings_file), "--bootstrap", "10", "--seed", "3"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["checks"]["validated"] is True
    assert report["settings"]["n_boot"] == 10
    assert report["settings"]["seed"] == 3


def test_markdown_with_options(ratings_file):
    args = [
        "report",
        str(ratings_file),
        "--format",
        "md",
        "--bootstrap",
        "0",
        "--holm",
        "--margin",
        "0.4",
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "| Dimension | Mean chosen |" in result.stdout
    assert "Holm: yes" in result.stdout
    assert "margin ±0.4" in result.stdout


def test_html_to_file(ratings_file, tmp_path):
    out = tmp_path / "report.html"
    result = runner.invoke(
        app, ["report", str(ratings_file), "-f", "html", "--bootstrap", "0", "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert result.stdout == ""


def test_bad_file_gives_clear_error_without_traceback(validating_study, tmp_path):
    path = tmp_path / "bad.csv"
    df = validating_study.copy()
    df.loc[4, "score"] = 9
    df.to_csv(path, index=False)
    result = runner.invoke(app, ["report", str(path)])
    assert result.exit_code == 1
    assert "error: bad.csv line 6, column 'score'" in result.output
    assert "Traceback" not in result.output
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit)


@pytest.mark.parametrize(
    ("args", "message"),
    [(["report", "missing.csv"], "no such file"), (["report", "{file}", "--alpha", "2"], "alpha")],
)
def test_other_errors(ratings_file, args, message):
    args = [a.replace("{file}", str(ratings_file)) for a in args]
    result = runner.invoke(app, args)
    assert result.exit_code == 1
    assert message in result.output
    assert "Traceback" not in result.output


def test_unknown_format_is_a_usage_error(ratings_file):
    result = runner.invoke(app, ["report", str(ratings_file), "--format", "pdf"])
    assert result.exit_code == 2


def test_python_dash_m(ratings_file):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "analysis",
            "report",
            str(ratings_file),
            "--bootstrap",
            "0",
            "-f",
            "md",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "# Validation report" in done.stdout


def test_margin_unit_and_planned_power(ratings_file):
    args = ["report", str(ratings_file), "--bootstrap", "0", "--margin-unit", "sd"]
    result = runner.invoke(app, [*args, "--margin", "0.4", "--plan-pairs", "50"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["settings"]["margin_unit"] == "sd"
    assert report["power"]["n_pairs"] == 50
    assert report["power"]["annotators_per_pair"] == 3
    assert report["schema_version"] == 3
    bad = runner.invoke(app, ["report", str(ratings_file), "--margin-unit", "percent"])
    assert bad.exit_code != 0


def test_pairs_behind_a_figure_from_an_export(tmp_path):
    from tests.analysis.inference.test_analysis_drilldown import hand_made

    export = tmp_path / "ratings.csv"
    hand_made().to_csv(export, index=False)
    out = tmp_path / "pairs.csv"
    args = ["pairs", str(export), "--figure", "verdict:rubric_alignment", "-o", str(out)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "wrote 4 pairs" in result.stderr
    # the order worked out by hand in test_analysis_drilldown.py
    assert pd.read_csv(out)["pair_id"].tolist() == ["p4", "p3", "p2", "p1"]
    result = runner.invoke(app, ["pairs", str(export), "--figure", "alpha"])
    assert result.exit_code == 1
    assert "unknown figure 'alpha'; expected one of: agreement:factuality" in result.stderr
