"""The published folder's reproduce.R (lme4/lmerTest) and reproduce.py recompute the verdict's
figures of report.json from the ratings file (issue 23.9), and its Krippendorff's alphas: per
dimension ordinal and interval (units (pair, response)) and interval on the chosen - rejected
difference (units = pairs), and the nominal alpha of the rubric preference (the Python twin with
the `krippendorff` package, the R script with its own base-R coincidence-matrix alpha).

A seeded study is written as a published folder would hold it (ratings.parquet, report.json from
`build_report`, the two scripts from `annotate.domain.exports.publish.reproduce_scripts`); both
scripts run as a reader would run them, and their figures are compared with report.json: the R
script's within optimizer tolerance (lme4 and our REML differ in the last digits), the Python
twin's closely. Debian has no R Parquet reader (arrow), so for R the test also writes the same
rows as ratings.csv, the script's documented fallback. Skipped without R and lmerTest.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from r_helpers import needs_lmertest

from analysis.report import build_report
from analysis.schema.jsonable import to_jsonable
from analysis.simulate import simulate_ratings
from annotate.domain.exports.publish import reproduce_scripts


def _folder(tmp_path: Path) -> tuple[Path, dict]:
    ratings = simulate_ratings(60, 3, {"rubric_alignment": 1.0}, seed=23, n_annotators=9)
    report = build_report(ratings, n_boot=0, mixed=False)
    ratings.to_parquet(tmp_path / "ratings.parquet", index=False)
    (tmp_path / "report.json").write_text(json.dumps(to_jsonable(report)), encoding="utf-8")
    for name, data in reproduce_scripts().items():
        (tmp_path / name).write_bytes(data)
    return tmp_path, report


def _figures(stdout: str) -> dict[str, list[str]]:
    return {line.split()[0]: line.split()[1:] for line in stdout.splitlines() if line.strip()}


def _check(figures: dict[str, list[str]], report: dict, tolerance: float) -> None:
    for dim, r in report["dimensions"].items():
        est, low, high, df, tost, sup, verdict = figures[dim]
        assert float(est) == pytest.approx(r["mean_diff"], abs=tolerance), dim
        assert [float(low), float(high)] == pytest.approx(r["ci95"], abs=tolerance), dim
        assert float(df) == pytest.approx(r["primary"]["df"], rel=10 * tolerance), dim
        assert float(tost) == pytest.approx(r["tost_p"], abs=tolerance), dim
        assert float(sup) == pytest.approx(r["superiority_p"], abs=tolerance), dim
        assert verdict == r["verdict"], dim
    assert figures["validated"] == [str(report["checks"]["validated"]).upper()]
    for dim, r in report["dimensions"].items():
        keys = ("alpha_ordinal", "alpha_interval", "alpha_difference")
        _same_alphas(figures[f"alpha:{dim}"], [r[k] for k in keys], tolerance, dim)
    preference = report["agreement"]["preference"]["alpha_nominal"]
    _same_alphas(figures["alpha:preference"], [preference], tolerance, "preference")


def _same_alphas(printed: list[str], expected: list, tolerance: float, where: str) -> None:
    assert len(printed) == len(expected), where
    for text, value in zip(printed, expected, strict=True):
        if value is None:
            assert text == "NA", where
        else:
            assert float(text) == pytest.approx(value, abs=tolerance), where


def test_python_twin_recomputes_the_verdict(tmp_path):
    folder, report = _folder(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    done = subprocess.run(
        [sys.executable, "reproduce.py", "."], cwd=folder, env=env,
        capture_output=True, text=True, check=True, timeout=300,
    )  # fmt: skip
    _check(_figures(done.stdout), report, 1e-6)


@needs_lmertest
def test_r_script_recomputes_the_verdict(tmp_path):
    folder, report = _folder(tmp_path)
    import pandas as pd

    pd.read_parquet(folder / "ratings.parquet").to_csv(folder / "ratings.csv", index=False)
    done = subprocess.run(
        ["Rscript", "reproduce.R", "."], cwd=folder, capture_output=True, text=True, check=True,
        timeout=300,
    )  # fmt: skip
    _check(_figures(done.stdout), report, 1e-4)
