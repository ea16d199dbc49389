"""The published folder's reproduce.R (lme4/lmerTest) and reproduce.py recompute the verdict's
figures of report.json from the ratings file (issue 23.9), and its Krippendorff's alphas: per
dimension ordinal and interval (units (pair, response)) and interval on the chosen - rejected
difference (units = pairs), and the nominal alpha of the rubric preference (the Python twin with
the `krippendorff` package, the R script with its own base-R coincidence-matrix alpha).

A seeded study is written as a published folder would hold it (ratings.parquet, report.json from
`build_report`, the two scripts from
`annotate.domain.exports.card_reproduce.reproduce_scripts`); both scripts run as a reader would
run them, and their figures are compared with report.json: the R
scripts print the card's lines (report.json's figures to the digits that reproduce, at most one
unit of the last digit away). Debian has no R Parquet reader (arrow), so the test writes the same
rows as ratings.csv, as the published folder holds them
(tests/annotate/cli/test_publish_reproduce.py runs
both on published studies). Skipped without R and lmerTest.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from analysis.report import build_report
from analysis.schema.jsonable import to_jsonable
from analysis.simulate import simulate_ratings
from annotate.domain.exports.card_reproduce import reproduce_scripts, reproduced_output
from annotate.domain.exports.spreadsheet import spreadsheet_csv
from annotate.questionnaire import DEFAULT_QUESTIONNAIRE
from tests.helpers.printed_figures import last_digit_agrees
from tests.helpers.questionnaire_helpers import SIX
from tests.helpers.r_helpers import needs_lmertest

ASKED = {  # the benchmark's four dimensions, and a study of six questions (issue 35.1)
    "prb": (DEFAULT_QUESTIONNAIRE, {"rubric_alignment": 1.0}),
    "six": (SIX, {"accuracy": 1.0, "safety": 1.0}),
}


def _folder(tmp_path: Path, asked: str = "prb") -> tuple[Path, dict]:
    questionnaire, effects = ASKED[asked]
    ratings = simulate_ratings(60, 3, effects, seed=23, n_annotators=9, questionnaire=questionnaire)
    report = build_report(ratings, n_boot=0, mixed=False, questionnaire=questionnaire)
    ratings.to_parquet(tmp_path / "ratings.parquet", index=False)
    (tmp_path / "report.json").write_text(json.dumps(to_jsonable(report)), encoding="utf-8")
    for name, data in reproduce_scripts().items():
        (tmp_path / name).write_bytes(data)
    return tmp_path, report


@pytest.mark.parametrize("asked", list(ASKED))
def test_python_twin_recomputes_the_verdict(tmp_path, asked: str):
    folder, report = _folder(tmp_path, asked)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[4])}
    done = subprocess.run(
        [sys.executable, "reproduce.py", "."], cwd=folder, env=env,
        capture_output=True, text=True, check=True, timeout=300,
    )  # fmt: skip
    last_digit_agrees(done.stdout.splitlines(), reproduced_output(report))


@needs_lmertest
@pytest.mark.parametrize("asked", list(ASKED))
def test_r_script_recomputes_the_verdict(tmp_path, asked: str):
    folder, report = _folder(tmp_path, asked)
    import pandas as pd

    ratings = pd.read_parquet(folder / "ratings.parquet")
    (folder / "ratings.csv").write_text(spreadsheet_csv(ratings), encoding="utf-8")
    done = subprocess.run(
        ["Rscript", "reproduce.R", "."], cwd=folder, capture_output=True, text=True, check=True,
        timeout=300,
    )  # fmt: skip
    last_digit_agrees(done.stdout.splitlines(), reproduced_output(report))
