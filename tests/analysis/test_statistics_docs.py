"""docs/statistics.md against the methods text (issue 33.6): the statements the report's methods
paragraph makes (`analysis.methods.DOC_STATEMENTS`) appear in the page's prose, word for word,
and the six passages that contradicted the computation are gone (estimand, superiority null,
human accuracy, caveat, mixed model, Holm). The reliability caveat says what it measures and
that the verdict's interval already includes that disagreement; a missing alpha says why."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from analysis.methods import (
    CAVEAT_MEANING,
    DOC_STATEMENTS,
    PLANNER_STATEMENTS,
    methods,
    methods_paragraph,
)
from analysis.report import build_report
from analysis.simulate import simulate_ratings

DOCS = Path(__file__).resolve().parents[2] / "docs" / "statistics.md"
CONTRADICTIONS = {  # what the page said, against what the computation does
    "estimand": "the tests are paired t-tests on *n* pairs",
    "superiority": "a one-sided paired t-test of\nchosen > rejected",
    "human_accuracy": "(ties are not wins)",
    "caveat": "rests\non unreliable ratings",
    "mixed_model": "(fitted by REML) is the secondary analysis",
    "holm": "exploratory and Holm-adjusted as one family (Holm, 1979)",
}


def _plain(text: str) -> str:
    """Text with Markdown emphasis and line breaks gone, minus signs as hyphens."""
    text = text.replace("−", "-").replace("*", "").replace("`", "")
    return re.sub(r"\s+", " ", text)


@pytest.fixture(scope="module")
def report():
    ratings = simulate_ratings(30, 3, {"rubric_alignment": 1.0}, seed=4, n_annotators=6)
    return build_report(ratings, n_boot=0, mixed=False, domains=False)


def test_the_page_states_what_the_methods_text_states(report):
    page = _plain(DOCS.read_text(encoding="utf-8"))
    said = _plain(" ".join(methods(report).values()) + " " + methods_paragraph(report))
    for topic, statement in DOC_STATEMENTS.items():
        assert _plain(statement) in said, topic  # the report says it...
        assert _plain(statement) in page, topic  # ...and so does the page


def test_the_page_states_what_the_planner_states():
    """The sizing planner's statements (where its pilot says little) are on the page word for
    word; its own output says them too (tests/analysis/inference/test_sizing.py)."""
    page = _plain(DOCS.read_text(encoding="utf-8"))
    for topic, statement in PLANNER_STATEMENTS.items():
        assert _plain(statement) in page, topic


def test_the_six_contradicting_passages_are_gone():
    page = DOCS.read_text(encoding="utf-8")
    for topic, passage in CONTRADICTIONS.items():
        assert _plain(passage) not in _plain(page), topic


def test_the_caveat_says_what_it_measures_and_that_the_interval_includes_it():
    """Two studies alike but for how much annotators disagree on a pair's rubric difference:
    both raise the caveat, its words say what it measures, and the noisier one's interval is
    wider: the disagreement is already in the verdict's interval."""
    widths = []
    for noise in (0.3, 1.2):
        ratings = simulate_ratings(
            40, 3, {"rubric_alignment": 1.0}, seed=2, n_annotators=6, noise_sd=noise,
            response_sd=0.0,
        )  # fmt: skip
        found = build_report(ratings, n_boot=0, mixed=False, domains=False)
        assert found["checks"]["reliability_caveat"] is True
        assert CAVEAT_MEANING in found["checks"]["reliability"]
        low, high = found["dimensions"]["rubric_alignment"]["ci95"]
        widths.append(high - low)
    assert widths[1] > 2 * widths[0]
    assert _plain(CAVEAT_MEANING) in _plain(DOCS.read_text(encoding="utf-8"))


def test_a_missing_alpha_says_why():
    """Every annotator gives every pair the same rubric scores (5 for chosen, 3 for rejected):
    no variation at all, so alpha is 0/0; the report says so instead of 'cannot be computed'
    (fails on the old code)."""
    ratings = simulate_ratings(12, 3, {"rubric_alignment": 1.0}, seed=1, n_annotators=4)
    rubric = ratings["dimension"] == "rubric_alignment"
    ratings.loc[rubric, "score"] = ratings.loc[rubric, "response"].map({"chosen": 5, "rejected": 3})
    found = build_report(ratings, n_boot=0, mixed=False, domains=False)
    assert found["dimensions"]["rubric_alignment"]["alpha_difference"] is None
    words = found["checks"]["reliability"]
    assert "not assessed (every annotator gave every pair the same value (2)" in words
    assert "with no variation at all alpha is 0/0" in words
