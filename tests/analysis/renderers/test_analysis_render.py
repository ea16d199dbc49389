"""JSON, Markdown and HTML renderings, and the charts."""

from __future__ import annotations

import json

import plotly.graph_objects as go
import pytest
from plotly.offline import get_plotlyjs

from analysis.renderers import charts
from analysis.renderers.render import render_report
from analysis.report import build_report
from annotate.vocabulary import DIMENSIONS

XSS = "<script>alert(1)</script>"


@pytest.fixture(scope="module")
def report(validating_study):
    df = validating_study.copy()
    df.loc[df["annotator"] == "annotator_0001", "annotator"] = XSS
    df.loc[df["domain"] == "Society_and_Culture", "domain"] = "Society | <b>Culture</b>"
    return build_report(df, n_boot=20)


def test_json_round_trips_without_nan(report):
    text = render_report(report, "json")
    assert json.loads(text) == report
    assert "NaN" not in text


def test_markdown_has_the_paper_table(report):
    md = render_report(report, "md")
    assert (
        "| Dimension | Mean chosen | Mean rejected | Model diff [95% CI] | TOST p | Equiv. bound "
        "| Superiority p | d_z [95% CI] | Pairs | Verdict |" in md
    )
    for dim in DIMENSIONS:
        assert f"\n| {report['dimensions'][dim]['label']} | " in md
    rubric = report["dimensions"]["rubric_alignment"]
    assert f"| {rubric['mean_chosen']:.2f} | {rubric['mean_rejected']:.2f} |" in md
    assert "## Study verdict: VALIDATED" in md
    assert "## Human accuracy" in md
    assert "## By domain" in md
    assert "Society \\| \\<b>Culture\\</b>" in md  # pipes and raw HTML escaped in cells
    assert XSS not in md
    assert "&lt;" not in md
    assert "&amp;" not in md
    assert "&gt;" not in md
    assert "| <0.001 |" in md  # a p-value stays plain text


def test_html_is_one_self_contained_file_with_escaped_text(report):
    page = render_report(report, "html")
    assert page.startswith("<!DOCTYPE html>")
    assert page.count(get_plotlyjs()) == 1  # plotly.js inlined exactly once
    assert "<script src=" not in page
    assert 'src="http' not in page
    assert XSS not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page  # tables
    assert "\\u003cscript\\u003ealert(1)" in page  # chart data (plotly's JSON escaping)
    assert "<b>Culture</b>" not in page
    for name in charts.FIGURES:
        assert f'id="chart-{name}"' in page


def test_figures_are_plotly_figures(report):
    figures = charts.all_figures(report)
    assert set(figures) == set(charts.FIGURES)
    for fig in figures.values():
        assert isinstance(fig, go.Figure)
        assert fig.data
    means = figures["means"]
    assert list(means.data[0].customdata) == list(DIMENSIONS)
    assert list(means.data[0].y) == [report["dimensions"][d]["mean_chosen"] for d in DIMENSIONS]
    assert list(means.data[1].y) == [report["dimensions"][d]["mean_rejected"] for d in DIMENSIONS]


def test_unknown_format(report):
    with pytest.raises(ValueError, match="unknown format"):
        render_report(report, "pdf")


def test_dimensions_without_a_verdict_are_said_once_with_the_reason():
    """Issue 34.5: the results page said "has insufficient data" four times and not why."""
    from analysis.schema.tables import verdict_words

    def result(verdict: str, notes: list[str], n: int = 6) -> dict:
        return {"verdict": verdict, "notes": notes, "n_pairs": n}

    few = "6 complete pairs, fewer than the minimum of 10: no verdict"
    report = {
        "dimensions": {
            "factuality": result("insufficient_data", [few]),
            "relevance": result("tie", [], 12),
            "helpfulness": result("insufficient_data", ["Wilcoxon: x", few]),
            "rubric_alignment": result("insufficient_data", [few]),
        }
    }
    labels = {"factuality": "Factuality", "relevance": "Relevance", "helpfulness": "Helpfulness",
              "rubric_alignment": "Rubric alignment"}  # fmt: skip
    assert verdict_words(report, labels) == (  # type: ignore[arg-type]
        "relevance ties; no verdict for factuality, helpfulness and rubric alignment: 6 "
        "complete pairs, fewer than the minimum of 10"
    )
