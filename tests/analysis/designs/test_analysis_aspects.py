"""The aspect checklist's figures (analysis/designs/aspects.py) against hand-computed values.

Three pairs, two rubric aspects each, two annotators (x, y); coverage of chosen (C) and
rejected (R):

    pair aspect  x: C R   y: C R   unit means C / R   C - R
    p1   1          2 0      2 0       2.0 / 0.0        2.0
    p1   2          1 1      2 0       1.5 / 0.5        1.0
    p2   1          2 1      1 1       1.5 / 1.0        0.5
    p2   2          0 0      0 0       0.0 / 0.0        0.0
    p3   1          1 2      1 2       1.0 / 2.0       -1.0
    p3   2          2 0      2 1       2.0 / 0.5        1.5

Per pair (aspects averaged): C = 1.75, 0.75, 1.5; R = 0.25, 0.5, 1.25; d = 1.5, 0.25, 0.25.
Means 4/3 and 2/3, difference 2/3. t interval: sd(d) = 0.7216878, se = 0.4166667,
qt(0.975, 2) = 4.302653, half-width 1.792772 -> [-1.126105, 2.459439].
Wilcoxon (R's wilcox.test(d), ties -> normal approximation with continuity correction): ranks
3, 1.5, 1.5, V = 6, mean 3, variance 3*4*7/24 - (2^3 - 2)/48 = 3.375,
z = (6 - 3 - 0.5)/sqrt(3.375) = 1.360828, p = 2 * pnorm(-z) = 0.1735682.
Units where chosen covers more: 4 of 6; ties 1 of 6. Weakest: p3 aspect 1 (-1), p2 aspect 2 (0).
By aspect: aspect 1 differences 2, 0.5, -1 (mean 0.5); aspect 2: 1, 0, 1.5 (mean 0.8333):
aspect 2 ranks first.
Rubric-alignment differences per pair 3, 1, 2: Spearman of (1.5, 0.25, 0.25) with them: ranks
(3, 1.5, 1.5) and (3, 1, 2): rho = 1.5 / sqrt(1.5 * 2) = 0.8660254.
Ordinal alpha over the 12 (pair, response, aspect) units: the `krippendorff` package (an
independent implementation), krippendorff.alpha([[2,0,1,1,2,1,0,0,1,2,2,0],
[2,0,2,0,1,1,0,0,1,2,2,1]], level_of_measurement="ordinal", value_domain=[0,1,2]) = 0.7604167;
aspect 1 only (units 1, 2, 5, 6, 9, 10): 0.8129252.

Judge against the human median (a half rounded toward 1), same unit order:
human 2 0 1 1 1 1 0 0 1 2 2 1, judge 2 0 2 0 1 1 0 1 1 2 2 0: 8 of 12 agree. Quadratic kappa by
hand: table (human rows, judge columns) [[2,1,0],[2,3,1],[0,0,3]]; observed weighted
disagreement (1 + 2 + 1)/12 = 1/3; expected: rows (3,6,3)/12, columns (4,4,4)/12,
sum (i-j)^2 r_i c_j = (0.25*5 + 0.5*2 + 0.25*5)/3 = 7/6; kappa = 1 - (1/3)/(7/6) = 5/7.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analysis.designs.aspect_report import aspect_table, judge_table, weak_aspect_table
from analysis.designs.aspects import aspect_summary, attach_aspects, consensus, quadratic_kappa
from analysis.renderers.render import render_report
from analysis.report import build_report

X = [2, 0, 1, 1, 2, 1, 0, 0, 1, 2, 2, 0]  # unit order: p1 a1 C, R; p1 a2 C, R; p2 ...
Y = [2, 0, 2, 0, 1, 1, 0, 0, 1, 2, 2, 1]
JUDGE = [2, 0, 2, 0, 1, 1, 0, 1, 1, 2, 2, 0]
UNITS = [(p, a, r) for p in ("p1", "p2", "p3") for a in (0, 1) for r in ("chosen", "rejected")]


def marks() -> pd.DataFrame:
    rows = [
        {"study": "s", "pair_id": p, "domain": "d", "annotator": who, "response": r,
         "side": "A", "aspect_index": a, "aspect": f"aspect {a + 1} of {p}", "coverage": v}
        for who, values in (("x", X), ("y", Y))
        for (p, a, r), v in zip(UNITS, values, strict=True)
    ]  # fmt: skip
    return pd.DataFrame(rows)


def ratings() -> pd.DataFrame:
    """Rubric-alignment scores whose chosen - rejected differences are 3, 1, 2."""
    scores = {"p1": (5, 2), "p2": (3, 2), "p3": (4, 2)}
    return pd.DataFrame(
        [{"pair_id": p, "annotator": "x", "response": r, "dimension": "rubric_alignment",
          "score": s} for p, pair in scores.items()
         for r, s in zip(("chosen", "rejected"), pair, strict=True)]
    )  # fmt: skip


def judges() -> pd.DataFrame:
    return pd.DataFrame(
        [{"judge": "gpt", "pair_id": p, "response": r, "aspect_index": a, "coverage": v}
         for (p, a, r), v in zip(UNITS, JUDGE, strict=True)]
    )  # fmt: skip


def test_chosen_against_rejected_over_all_aspects():
    summary = aspect_summary(marks(), ratings())
    assert summary is not None
    overall = summary["overall"]
    assert overall["n_pairs"] == 3
    assert overall["mean_chosen"] == pytest.approx(4 / 3)
    assert overall["mean_rejected"] == pytest.approx(2 / 3)
    assert overall["mean_diff"] == pytest.approx(2 / 3)
    assert overall["ci95"] == pytest.approx([-1.126105, 2.459439], abs=1e-6)
    assert overall["wilcoxon_p"] == pytest.approx(0.1735682, abs=1e-7)
    assert overall["share_chosen_higher"] == pytest.approx(4 / 6)
    assert overall["share_tied"] == pytest.approx(1 / 6)
    assert overall["with_rubric"]["spearman_rho"] == pytest.approx(0.8660254)
    assert overall["alpha_ordinal"] == pytest.approx(0.7604167, abs=1e-7)
    assert (summary["n_marks"], summary["n_pairs"], summary["n_annotators"]) == (24, 3, 2)


def test_aspects_ranked_by_difference_and_the_weakest_units():
    summary = aspect_summary(marks(), ratings())
    assert summary is not None
    first, second = summary["by_aspect"]
    assert (first["label"], second["label"]) == ("Aspect 2", "Aspect 1")
    assert first["mean_diff"] == pytest.approx(2.5 / 3)
    assert second["mean_diff"] == pytest.approx(0.5)
    assert second["alpha_ordinal"] == pytest.approx(0.8129252, abs=1e-7)
    assert [(w["pair_id"], w["aspect_index"]) for w in summary["weakest"]] == [
        ("p3", 0),
        ("p2", 1),
    ]
    assert summary["weakest"][0]["aspect"] == "aspect 1 of p3"
    assert summary["n_weak"] == 2


def test_human_against_judge_exact_agreement_and_quadratic_kappa():
    summary = aspect_summary(marks(), ratings(), judges())
    assert summary is not None
    overall = summary["judges"]["gpt"][0]
    assert overall["label"] == "All aspects"
    assert overall["n"] == 12
    assert overall["exact_agreement"] == pytest.approx(8 / 12)
    assert overall["kappa_quadratic"] == pytest.approx(5 / 7)
    assert [a["label"] for a in summary["judges"]["gpt"]] == ["All aspects", "Aspect 1", "Aspect 2"]


def test_quadratic_kappa_matches_a_hand_computed_table():
    # Table [[2,1,0],[0,2,1],[0,1,3]]: observed disagreement 3/10; rows (.3,.3,.4), columns
    # (.2,.4,.4): expected sum (i-j)^2 r_i c_j = 0.60 + 0.18 + 0.48 = 1.26; kappa = 1 - .3/1.26.
    first = np.array([0, 0, 0, 1, 1, 1, 2, 2, 2, 2])
    second = np.array([0, 0, 1, 1, 1, 2, 1, 2, 2, 2])
    assert quadratic_kappa(first, second) == pytest.approx(1 - 0.3 / 1.26)
    assert quadratic_kappa(np.array([1, 1]), np.array([1, 1])) is None  # undefined
    assert quadratic_kappa(np.array([], int), np.array([], int)) is None


@pytest.mark.parametrize(("values", "expected"), [([0, 1], 1), ([1, 2], 1), ([0, 2], 1),
                                                  ([2, 2, 0], 2), ([0], 0)])  # fmt: skip
def test_the_human_consensus_is_the_median_with_halves_toward_partly(values, expected):
    medians = pd.Series({"unit": values}).map(np.median)
    assert consensus(medians).tolist() == [expected]


def test_excluded_pairs_are_left_out_and_no_marks_means_no_section():
    summary = aspect_summary(marks(), ratings(), excluded={"p3"})
    assert summary is not None
    assert summary["overall"]["n_pairs"] == 2
    assert aspect_summary(marks().iloc[0:0], ratings()) is None


def test_an_adjudicator_s_marks_are_left_out_of_the_aspect_figures(validating_study):
    plain = build_report(validating_study, n_boot=0)
    ordinary = marks().assign(purpose="rating")
    adjudicator = marks().assign(annotator="adj", purpose="adjudication", coverage=0)
    with_adjudicator = pd.concat([ordinary, adjudicator], ignore_index=True)
    expected = attach_aspects(plain, ordinary, ratings())["aspects"]
    assert attach_aspects(plain, with_adjudicator, ratings())["aspects"] == expected
    assert expected["n_annotators"] == 2  # x and y, not the adjudicator


@pytest.fixture(scope="module")
def report(validating_study):
    return build_report(validating_study, n_boot=0)


def test_the_report_sections_appear_only_with_the_checklist(report):
    from analysis.methods import ASPECT_METHOD, methods_paragraph

    plain = render_report(report, "md")
    assert "Aspect checklist" not in plain
    extended = attach_aspects(report, marks(), ratings(), judges())
    assert ASPECT_METHOD in methods_paragraph(extended)
    assert ASPECT_METHOD not in methods_paragraph(report)
    assert attach_aspects(report, None, ratings()) is report
    for fmt in ("md", "html", "latex"):
        text = render_report(extended, fmt)
        assert "Aspect checklist: chosen vs rejected coverage" in text
        assert "annotators vs LLM judge" in text
    table = aspect_table(extended)
    assert table.rows[0][:4] == ["All aspects", "3", "1.33", "0.67"]
    assert table.rows[0][4] == "+0.67 [-1.13, +2.46]"
    assert weak_aspect_table(extended).rows[0][:3] == ["p3", "1", "aspect 1 of p3"]
    assert judge_table(extended).rows[0] == ["gpt", "All aspects", "12", "66.7%", "0.714"]


def test_aspect_text_is_inert_in_the_rendered_report(report):
    hostile = marks()
    hostile["aspect"] = "<script>alert(1)</script> | cell"
    extended = attach_aspects(report, hostile, ratings())
    assert "<script>alert(1)" not in render_report(extended, "html")
    markdown = render_report(extended, "md")  # escaped as render.markdown_cell does
    assert "\\<script>alert(1)\\</script> \\| cell" in markdown


def test_an_aspect_table_file_is_read_and_a_bad_value_located(tmp_path):
    from analysis.core.ratings import RatingsError
    from analysis.designs.aspects import load_aspects

    path = tmp_path / "aspects.csv"
    marks().to_csv(path, index=False)
    table = load_aspects(path)
    assert table["coverage"].tolist() == X + Y
    bad = marks()
    bad.loc[4, "coverage"] = 3
    bad.to_csv(path, index=False)
    with pytest.raises(RatingsError, match=r"aspects.csv line 6, column 'coverage': expected an "
                       r"integer from 0 to 2, got 3"):  # fmt: skip
        load_aspects(path)
    marks().drop(columns=["aspect"]).to_csv(path, index=False)
    with pytest.raises(RatingsError, match="missing column"):
        load_aspects(path)


def test_python_m_analysis_report_takes_the_aspect_table(tmp_path, validating_study):
    from typer.testing import CliRunner

    from analysis.cli import app

    ratings_path, aspects_path = tmp_path / "ratings.csv", tmp_path / "aspects.csv"
    validating_study.to_csv(ratings_path, index=False)
    marks().to_csv(aspects_path, index=False)
    args = ["report", str(ratings_path), "--format", "md", "--bootstrap", "0"]
    plain = CliRunner().invoke(app, args)
    assert plain.exit_code == 0, plain.output
    assert "Aspect checklist" not in plain.output
    result = CliRunner().invoke(app, [*args, "--aspects", str(aspects_path)])
    assert result.exit_code == 0, result.output
    assert "## Aspect checklist: chosen vs rejected coverage" in result.output
    assert "| All aspects | 3 | 1.33 | 0.67 |" in result.output


def test_the_aspects_key_has_exactly_the_typed_keys(report):
    from typing import get_type_hints

    from analysis.schema import aspect_types

    extended = attach_aspects(report, marks(), ratings(), judges())
    summary = extended["aspects"]

    def keys(shape: type) -> set[str]:
        return set(get_type_hints(shape))

    assert set(summary) == keys(aspect_types.AspectSummary)
    for comparison in [summary["overall"], *summary["by_aspect"]]:
        assert set(comparison) == keys(aspect_types.AspectComparison)
    assert {frozenset(w) for w in summary["weakest"]} == {frozenset(keys(aspect_types.WeakAspect))}
    lines = [line for judge in summary["judges"].values() for line in judge]
    assert {frozenset(a) for a in lines} == {frozenset(keys(aspect_types.JudgeAgreement))}
