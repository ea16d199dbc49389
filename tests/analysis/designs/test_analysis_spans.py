"""Spans in the report (`analysis.designs.spans`): a worked example by hand, its interval and
test against GNU R (recorded below, run live when Rscript is installed):

``t.test(c(2/3, 0, 1, 0))$conf.int`` = -0.37894490965426, 1.21227824298759 (the per-pair
differences of the share with a span, chosen minus rejected); ``mcnemar.test(matrix(c(1, 1, 5,
3), nrow = 2))$p.value`` = 0.220671361919847 (both / chosen only / rejected only / neither).
"""

from __future__ import annotations

import shutil
import subprocess

import pandas as pd
import pytest

from analysis.designs.spans import attach_spans, span_summary, tokens

CHOSEN = "alpha beta gamma delta"  # tokens 0-5, 6-10, 11-16, 17-22
REJECTED = "one two three four"  # tokens 0-3, 4-7, 8-13, 14-18
TEXTS = {
    (p, r): CHOSEN if r == "chosen" else REJECTED for p in "1234" for r in ("chosen", "rejected")
}
RATED = [("1", "x"), ("1", "y"), ("1", "z"), ("2", "x"), ("2", "y"), ("2", "z")] + [
    (p, a) for p in "34" for a in "xy"
]
SPANS = [  # (pair, annotator, response, start, end)
    ("1", "x", "chosen", 0, 10),  # alpha beta
    ("1", "y", "chosen", 6, 16),  # beta gamma
    ("1", "z", "chosen", 0, 5),  # alpha
    ("1", "z", "rejected", 0, 3),  # one
    ("2", "x", "rejected", 4, 7),  # two
    ("2", "z", "chosen", 11, 22),  # gamma delta
    ("3", "x", "chosen", 17, 22),  # delta
    ("3", "y", "chosen", 17, 20),  # part of delta: overlaps its token
]
R_INTERVAL = [-0.37894490965426, 1.21227824298759]
R_MCNEMAR_P = 0.220671361919847


def _ratings() -> pd.DataFrame:
    rows = [
        {"pair_id": p, "annotator": a, "response": r, "dimension": "q", "score": 3}
        for p, a in RATED
        for r in ("chosen", "rejected")
    ]
    return pd.DataFrame(rows)


def _spans() -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"pair_id": p, "annotator": a, "response": r, "label": "rubric", "start": s, "end": e}
            for p, a, r, s, e in SPANS
        ]
    )


def test_tokens_are_runs_of_non_space_characters():
    assert tokens(CHOSEN) == [(0, 5), (6, 10), (11, 16), (17, 22)]
    assert tokens(" 中文 🎉x \n y") == [(1, 3), (4, 6), (9, 10)]  # code points


def test_the_worked_example():
    labels = {"rubric": "Breaks the rubric", "error": "Factual error"}
    rubric, error = span_summary(_spans(), _ratings(), TEXTS, labels)
    assert rubric["label"] == "rubric"
    assert rubric["words"] == "Breaks the rubric"
    assert rubric["n_spans"] == 8
    assert rubric["n_ratings"] == 10
    assert rubric["n_pairs"] == 4
    assert rubric["chosen_share"] == pytest.approx(0.6)  # 6 of 10 ratings
    assert rubric["rejected_share"] == pytest.approx(0.2)
    assert rubric["difference"] == pytest.approx(5 / 12)  # pairs: 2/3, 0, 1, 0
    assert rubric["difference_ci"] == pytest.approx(R_INTERVAL, rel=1e-12)
    assert rubric["mcnemar_table"] == [[1, 5], [1, 3]]
    assert rubric["mcnemar_p"] == pytest.approx(R_MCNEMAR_P, rel=1e-12)
    # 16 annotator pairs compared over both responses; tokens in common 3, marked 20
    assert rubric["agreement"] == {"f1": pytest.approx(6 / 20), "n_compared": 16}
    assert error["n_spans"] == 0
    assert (error["chosen_share"], error["rejected_share"]) == (0.0, 0.0)
    assert error["mcnemar_p"] is None
    assert error["agreement"]["f1"] is None  # nobody marked a token: no agreement to speak of


def test_a_study_without_span_labels_gets_no_spans_key():
    report = {"settings": {"alpha": 0.05}}
    assert attach_spans(report, None, _ratings(), {}, {}) is report
    assert attach_spans(report, _spans(), _ratings(), TEXTS, {}) is report
    attached = attach_spans(report, _spans(), _ratings(), TEXTS, {"rubric": "Breaks"})
    assert [entry["label"] for entry in attached["spans"]] == ["rubric"]


@pytest.mark.skipif(shutil.which("Rscript") is None, reason="needs GNU R (Rscript)")
def test_the_recorded_r_figures_are_rs():
    code = (
        "x <- t.test(c(2/3, 0, 1, 0))$conf.int; cat(sprintf('%.15g %.15g ', x[1], x[2]));"
        "cat(sprintf('%.15g', mcnemar.test(matrix(c(1, 1, 5, 3), nrow = 2))$p.value))"
    )
    done = subprocess.run(
        ["Rscript", "-e", code], capture_output=True, text=True, check=True, timeout=60
    )
    low, high, p_value = map(float, done.stdout.split())
    assert [low, high] == pytest.approx(R_INTERVAL, rel=1e-12)
    assert p_value == pytest.approx(R_MCNEMAR_P, rel=1e-12)


def test_the_spans_table_in_the_markdown_report_and_the_card():
    from analysis.designs.span_report import span_table
    from analysis.renderers.sections import SECTIONS
    from annotate.domain.exports.card_results import spans_section

    labels = {"rubric": "Breaks the rubric"}
    report = attach_spans({"settings": {"alpha": 0.05}}, _spans(), _ratings(), TEXTS, labels)
    table = span_table(report)
    assert table is not None
    assert table.rows == [
        ["Breaks the rubric", "8", "60.0%", "20.0%", "+0.42", "[-0.38, 1.21]", "0.221",
         "0.30", "16"]
    ]  # fmt: skip
    assert any(s.table is span_table for s in SECTIONS)
    card = "\n".join(spans_section(report))
    assert "## Spans" in card
    row = (
        "| Breaks the rubric | 8 | 0.600 | 0.200 | 0.417 | \\[-0.379, 1.212] | 0.221 | 0.300 | 16 |"
    )
    assert row in card  # the card's cells: Markdown made inert
    assert span_table({}) is None
    assert spans_section({}) == []
