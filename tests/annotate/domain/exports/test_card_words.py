"""The validation card says verdicts and panels in words (issue 34.5: it showed the report's
key `insufficient_data` and a panel "k" that was the median, read as the study's k)."""

from __future__ import annotations

from annotate.domain.exports.card_results import _accuracy_lines, verdict_section


def _dimension(verdict: str) -> dict:
    return {
        "n_pairs": 6,
        "mean_diff": 0.1,
        "ci95": [-0.2, 0.4],
        "tost_p": None,
        "wilcoxon_p": None,
        "verdict": verdict,
    }


def test_the_card_s_verdict_column_is_in_words():
    report = {
        "checks": {
            "validated": False,
            "general_quality_tie": False,
            "rubric_alignment_diverges": False,
        },
        "dimensions": {
            "factuality": _dimension("insufficient_data"),
            "relevance": _dimension("tie"),
        },
    }
    text = "\n".join(verdict_section(report))
    assert "insufficient_data" not in text
    assert "| insufficient data |" in text


def test_the_card_s_panel_majority_says_the_median_panel():
    majority = {"value": 0.7, "ci95": [0.5, 0.8], "k": 2.0}
    accuracy = {
        "single_annotator": {},
        "accuracy": 0.7,
        "ci95": [0.6, 0.8],
        "strict": {"value": 0.6, "ci95": [0.5, 0.7]},
        "ties": {"share": 0.1},
        "n_ratings": 20,
        "n_pairs": 8,
        "panel_majority": majority,
    }
    text = "\n".join(_accuracy_lines(accuracy))
    assert "k = 2" not in text
    assert "Panel majority (a median of 2 annotators per pair" in text
