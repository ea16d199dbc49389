"""Before and after adjudication (issue 15.3) on a hand-made export, and the ordinary figures'
indifference to skip rows and adjudications.

The hand-made study: four pairs rated by a, b, c (rubric alignment only; each value below is
that annotator's chosen - rejected score):

    p1: +2 +1 +1  -> majority chosen,   mean +4/3
    p2: +1 -1 -1  -> majority rejected, mean -1/3; adjudicator x: +2 -> chosen, +2
    p3:  0 +1 -1  -> one vote each: tie, mean 0;   x: 0, y: +1 -> split: tie, mean +1/2
    p4: -1 -2 +1  -> majority rejected, mean -2/3

So before: strict accuracy 1/4 (only p1 above 0), mean difference (4/3 - 1/3 + 0 - 2/3)/4 =
1/12; after: 3/4 (p1, p2, p3), mean (4/3 + 2 + 1/2 - 2/3)/4 = 19/24; only p2 changed verdict.
The p-values are checked against scipy's one-sample t-test (an independent implementation of
the same test) and the intervals against the Wilson formula written out here.
"""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest
from scipy import stats
from typer.testing import CliRunner

from analysis.cli import app
from analysis.core.ratings import RatingsError, load_ratings, ordinary_rows, validate_ratings
from analysis.designs.adjudication import (
    adjudication_summary,
    adjudication_table,
    attach_adjudication,
)
from analysis.renderers.render import render_report
from analysis.report import build_report

DIFFS = {
    "p1": {"a": 2, "b": 1, "c": 1},
    "p2": {"a": 1, "b": -1, "c": -1},
    "p3": {"a": 0, "b": 1, "c": -1},
    "p4": {"a": -1, "b": -2, "c": 1},
}
ADJUDICATED = {"p2": {"x": 2}, "p3": {"x": 0, "y": 1}}


def _rows(pair: str, annotator: str, diff: int, purpose: str) -> list[dict[str, object]]:
    rejected = 3
    base = {"study": "s", "pair_id": pair, "domain": "D", "annotator": annotator}
    base |= {"seconds": 10.0, "created_at": "2026-12-04T10:00:00.000000Z"}
    base |= {"purpose": purpose, "status": "done"}
    return [
        base | {"response": "chosen", "side": "A", "dimension": dim, "score": score}
        for dim, score in (("rubric_alignment", rejected + diff), ("factuality", 3))
    ] + [
        base | {"response": "rejected", "side": "B", "dimension": dim, "score": rejected}
        for dim in ("rubric_alignment", "factuality")
    ]


def export() -> pd.DataFrame:
    rows = [
        row
        for pair, given in DIFFS.items()
        for annotator, diff in given.items()
        for row in _rows(pair, annotator, diff, "rating")
    ]
    rows += [
        row
        for pair, given in ADJUDICATED.items()
        for annotator, diff in given.items()
        for row in _rows(pair, annotator, diff, "adjudication")
    ]
    skip = {"study": "s", "pair_id": "p4", "domain": "D", "annotator": "z"}
    skip |= {"response": "", "side": "", "dimension": "", "score": pd.NA, "seconds": None}
    skip |= {"created_at": "", "purpose": "rating", "status": "skipped"}
    return pd.DataFrame([*rows, skip])


def wilson(successes: int, n: int, z: float = 1.959963984540054) -> list[float]:
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return [centre - half, centre + half]


def test_before_and_after_figures_match_the_hand_computed_values():
    summary = adjudication_summary(export(), margin=0.5)
    assert summary is not None
    before, after = summary["before"], summary["after"]
    assert before["n_pairs"] == after["n_pairs"] == 4
    assert before["strict_accuracy"] == 0.25
    assert after["strict_accuracy"] == 0.75
    assert before["accuracy_ci95"] == pytest.approx(wilson(1, 4))
    assert after["accuracy_ci95"] == pytest.approx(wilson(3, 4))
    assert before["mean_rubric_diff"] == pytest.approx(1 / 12)
    assert after["mean_rubric_diff"] == pytest.approx(19 / 24)
    d_before = [4 / 3, -1 / 3, 0, -2 / 3]
    d_after = [4 / 3, 2, 1 / 2, -2 / 3]
    for stage, d in ((before, d_before), (after, d_after)):
        expected = stats.ttest_1samp(d, 0, alternative="greater").pvalue
        assert stage["superiority_p"] == pytest.approx(expected)
        assert stage["rubric_verdict"] == "insufficient_data"  # 4 pairs, fewer than 10
    assert before["verdicts"] == {"chosen": 1, "rejected": 2, "tie": 1}
    assert after["verdicts"] == {"chosen": 2, "rejected": 1, "tie": 1}
    assert summary["n_adjudicated_pairs"] == 2
    assert summary["n_adjudicators"] == 2
    assert summary["changed"] == [
        {
            "pair_id": "p2",
            "domain": "D",
            "before": "rejected",
            "after": "chosen",
            "rubric_diff_before": pytest.approx(-1 / 3),
            "rubric_diff_after": 2.0,
            "n_annotators": 3,
            "n_adjudicators": 1,
        }
    ]


def test_an_excluded_pair_is_left_out_before_and_after():
    summary = adjudication_summary(export(), margin=0.5, excluded=["p2"])
    assert summary is not None
    assert summary["before"]["n_pairs"] == 3
    assert summary["changed"] == []
    assert summary["n_adjudicated_pairs"] == 1
    assert summary["after"]["strict_accuracy"] == pytest.approx(2 / 3)  # p1, p3 (+1/2)


def test_no_adjudication_no_key_and_the_ordinary_figures_ignore_adjudications_and_skips():
    frame = export()
    ordinary = frame[frame["purpose"] == "rating"].drop(index=frame.index[-1])
    assert adjudication_summary(ordinary, margin=0.5) is None
    assert len(ordinary_rows(frame)) == len(ordinary)
    # the validated ratings of the whole export are those of its ordinary rows
    pd.testing.assert_frame_equal(validate_ratings(frame), validate_ratings(ordinary))
    with_adj = build_report(frame, n_boot=0)
    without = build_report(ordinary, n_boot=0)
    # the skip is counted where missing data are reported (issue 33.2), in no figure
    assert (with_adj["missing_data"]["n_skipped"], without["missing_data"]["n_skipped"]) == (1, 0)
    assert {k: v for k, v in with_adj.items() if k != "missing_data"} == {
        k: v for k, v in without.items() if k != "missing_data"
    }
    # and the adjudication rows change nothing at all
    assert build_report(frame[frame["purpose"] == "rating"], n_boot=0) == with_adj
    assert "adjudication" not in with_adj
    assert attach_adjudication(without, ordinary) is without
    assert "No pair was adjudicated." in render_report(without, "md")


def test_the_report_section_lists_before_after_and_the_changed_pair():
    frame = export()
    report = attach_adjudication(build_report(frame, n_boot=0), frame)
    assert report["adjudication"]["after"]["strict_accuracy"] == 0.75
    table = adjudication_table(report)
    assert ["Human accuracy, strict", "25.0%", "75.0%"] in table.rows
    assert ["Changed: p2 (D)", "rejected", "chosen"] in table.rows
    md = render_report(report, "md")
    assert "## Adjudication" in md
    assert "2 pairs adjudicated by 2 adjudicators" in md
    assert "2 disputed pairs were rated again, blind, by 2 adjudicators" in md  # methods


def test_a_bad_row_after_a_skip_row_is_located_on_its_own_line(tmp_path):
    frame = export()
    frame = pd.concat([frame.iloc[[-1]], frame.iloc[:-1]], ignore_index=True)  # skip row first
    frame.loc[5, "score"] = 9  # an ordinary row (p1, b): line 7 of the file, after the header
    assert frame.loc[5, "purpose"] == "rating"
    path = tmp_path / "ratings.csv"
    frame.to_csv(path, index=False)
    with pytest.raises(RatingsError, match=r"ratings\.csv line 7, column .score."):
        load_ratings(path)


def test_python_m_analysis_report_reads_the_adjudications_of_an_export_file(tmp_path):
    frame = export()
    path = tmp_path / "ratings.csv"
    frame.to_csv(path, index=False)
    result = CliRunner().invoke(app, ["report", str(path), "--bootstrap", "0"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["adjudication"]["after"]["strict_accuracy"] == 0.75
    assert [c["pair_id"] for c in report["adjudication"]["changed"]] == ["p2"]
    plain = tmp_path / "plain.csv"
    frame[frame["purpose"] == "rating"].to_csv(plain, index=False)
    result = CliRunner().invoke(app, ["report", str(plain), "--bootstrap", "0"])
    assert "adjudication" not in json.loads(result.stdout)
