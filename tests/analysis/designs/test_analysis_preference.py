"""The direct preference's figures (analysis/designs/preference.py) against hand-computed values.

Eight judgements (4 pairs x 2 annotators), in terms of the responses (+ = chosen better):

    pair annotator preference  rubric chosen/rejected  implied by the scores
    p1   a1         +2          5/2                     chosen
    p1   a2         +1          4/3                     chosen
    p2   a1          0          3/3                     tie
    p2   a2         -1          4/2                     chosen
    p3   a1         +1          2/4                     rejected
    p3   a2         +2          5/1                     chosen
    p4   a1         -2          1/5                     rejected
    p4   a2          0          3/4                     rejected

Forced choice: 4 chosen, 2 ties, 2 rejected of 8; strict 4/8 = 0.5, with ties (4 + 2/2)/8 =
0.625. Wilson intervals from GNU R 4.x:
    prop.test(4, 8, correct=FALSE)$conf.int -> 0.2152160622 0.7847839378
    prop.test(5, 8, correct=FALSE)$conf.int -> 0.3057423946 0.8631557142
Agreement with the scores: directions agree in 5 of 8 (p1 a1, p1 a2, p2 a1, p3 a2, p4 a1) =
0.625. Cohen's kappa by hand: marginals direct (chosen, tie, rejected) = (4, 2, 2)/8, implied =
(4, 1, 3)/8; p_e = (16 + 2 + 6)/64 = 0.375; kappa = (0.625 - 0.375)/(1 - 0.375) = 0.4.
Ordinal alpha over pairs: the `krippendorff` package (an independent implementation),
krippendorff.alpha([[2, 0, 1, -2], [1, -1, 2, 0]], level_of_measurement="ordinal",
value_domain=[-2, -1, 0, 1, 2]) = 0.6435185185185185.
"""

from __future__ import annotations

import pandas as pd
import pytest

from analysis.designs.preference import forced_choice, preference_summary

JUDGEMENTS = [
    ("p1", "a1", 2, 5, 2),
    ("p1", "a2", 1, 4, 3),
    ("p2", "a1", 0, 3, 3),
    ("p2", "a2", -1, 4, 2),
    ("p3", "a1", 1, 2, 4),
    ("p3", "a2", 2, 5, 1),
    ("p4", "a1", -2, 1, 5),
    ("p4", "a2", 0, 3, 4),
]
DIMENSIONS = ("factuality", "relevance", "helpfulness", "rubric_alignment")


def _export(judgements=JUDGEMENTS) -> pd.DataFrame:
    """The export's rows: 8 scores per judgement, the preference repeated on each."""
    rows = []
    for pair, annotator, preference, chosen, rejected in judgements:
        for response, personal in (("chosen", chosen), ("rejected", rejected)):
            for dim in DIMENSIONS:
                score = personal if dim == "rubric_alignment" else 3
                rows.append(
                    {
                        "study": "s",
                        "pair_id": pair,
                        "annotator": annotator,
                        "response": response,
                        "dimension": dim,
                        "score": score,
                        "preference": preference,
                    }
                )
    frame = pd.DataFrame(rows)
    frame["preference"] = frame["preference"].astype("Int64")
    return frame


def test_the_figures_match_the_hand_computed_values():
    summary = preference_summary(_export())
    assert summary is not None
    choice = summary["forced_choice"]
    assert (choice["n_chosen"], choice["n_ties"], choice["n_rejected"]) == (4, 2, 2)
    assert choice["strict"]["value"] == 0.5
    assert choice["strict"]["ci95"] == pytest.approx([0.2152160622, 0.7847839378], abs=1e-9)
    assert choice["with_ties"]["value"] == 0.625
    assert choice["with_ties"]["ci95"] == pytest.approx([0.3057423946, 0.8631557142], abs=1e-9)
    scores = summary["with_scores"]
    assert scores["agreement"] == 0.625
    assert scores["kappa"] == pytest.approx(0.4)
    assert scores["table"]["chosen"] == {"chosen": 3, "tie": 0, "rejected": 1}
    assert scores["table"]["rejected"] == {"chosen": 1, "tie": 0, "rejected": 1}
    assert summary["alpha_ordinal"] == pytest.approx(0.6435185185185185)
    assert (summary["n_pairs"], summary["n_annotators"]) == (4, 2)


def test_an_export_without_the_preference_has_no_summary():
    frame = _export().drop(columns="preference")
    assert preference_summary(frame) is None
    frame = _export()
    frame["preference"] = pd.Series(pd.NA, index=frame.index, dtype="Int64")
    assert preference_summary(frame) is None


def test_a_judgement_with_a_missing_score_is_left_out_of_the_agreement_only():
    frame = _export()
    frame = frame[
        ~(
            (frame["pair_id"] == "p4")
            & (frame["annotator"] == "a2")
            & (frame["response"] == "rejected")
            & (frame["dimension"] == "rubric_alignment")
        )
    ]
    summary = preference_summary(frame)
    assert summary is not None
    assert summary["forced_choice"]["n_judgements"] == 8
    assert summary["with_scores"]["n_judgements"] == 7
    assert summary["with_scores"]["agreement"] == pytest.approx(5 / 7)


def test_forced_choice_of_nothing_is_undefined():
    empty = forced_choice(pd.Series([], dtype="int64").to_numpy())
    assert empty["strict"] == {"value": None, "ci95": None, "n": 0}


# ---------------------------------------------------------------- by annotator attribute
#
# a1 answered "18-29", a2 "30+". Rubric wins per judgement (chosen above rejected): a1 wins p1
# only (5/2; 3/3, 2/4, 1/5 are not wins) = 1/4; a2 wins p1, p2, p3 (4/3, 4/2, 5/1; not 3/4) =
# 3/4. GNU R: prop.test(1, 4, correct=FALSE)$conf.int -> 0.04558726081 0.69935815742;
# prop.test(3, 4, correct=FALSE)$conf.int -> 0.3006418426 0.9544127392. Preferences: a1 (2, 0,
# 1, -2): 2 chosen, 1 tie, 1 rejected; a2 (1, -1, 2, 0): the same counts.


def test_figures_by_survey_answer_match_the_hand_computed_values():
    from analysis.designs.attributes import by_attribute

    frame = _export()
    frame["survey_age"] = frame["annotator"].map({"a1": "18-29", "a2": "30+"})
    frame["survey_field"] = frame["annotator"].map({"a1": "", "a2": None})  # nothing to group
    groups = by_attribute(frame)
    assert list(groups) == ["age"]
    young, older = groups["age"]["18-29"], groups["age"]["30+"]
    assert (young["n_annotators"], older["n_annotators"]) == (1, 1)
    assert (young["rubric_accuracy"]["value"], older["rubric_accuracy"]["value"]) == (0.25, 0.75)
    assert young["rubric_accuracy"]["ci95"] == pytest.approx([0.04558726081, 0.69935815742])
    assert older["rubric_accuracy"]["ci95"] == pytest.approx([0.3006418426, 0.9544127392])
    for group in (young, older):
        choice = group["forced_choice"]
        assert choice is not None
        assert (choice["n_chosen"], choice["n_ties"], choice["n_rejected"]) == (2, 1, 1)


def test_an_attribute_with_too_many_answers_is_left_out():
    from analysis.designs.attributes import MAX_GROUPS, by_attribute

    rows = [(f"p{i}", f"a{i}", 1, 4, 2) for i in range(MAX_GROUPS + 1)]
    frame = _export(rows)
    frame["survey_city"] = frame["annotator"]  # one answer per annotator: 21 groups
    assert by_attribute(frame) == {}
    frame = frame.drop(columns="preference")
    frame["survey_city"] = "Cardiff"
    (group,) = by_attribute(frame)["city"].values()
    assert group["forced_choice"] is None
    assert group["rubric_accuracy"]["value"] == 1.0


def test_the_tables_show_the_figures():
    from analysis.designs.attributes import attribute_table, by_attribute
    from analysis.designs.preference import preference_table

    frame = _export()
    frame["survey_age"] = frame["annotator"].map({"a1": "18-29", "a2": "30+"})
    report = {"preference": preference_summary(frame), "by_attribute": by_attribute(frame)}
    table = preference_table(report)
    assert table is not None
    assert table.rows[0][:2] == ["Forced-choice accuracy, strict (ties are not wins)", "50.0%"]
    assert table.rows[3][1] == "0.400"  # kappa
    groups = attribute_table(report)
    assert groups is not None
    assert [row[:3] for row in groups.rows] == [["age", "18-29", "1"], ["age", "30+", "1"]]
    assert groups.rows[0][3].startswith("25.0%")
    assert preference_table({}) is None
    assert attribute_table({}) is None


def test_every_report_format_shows_the_preference_and_survey_sections_only_when_present(
    small_study,
):
    from analysis.designs.attributes import by_attribute
    from analysis.renderers.render import render_report
    from analysis.report import build_report

    plain = build_report(small_study, n_boot=0)
    frame = _export()
    frame["survey_age"] = frame["annotator"].map({"a1": "18-29", "a2": "30+"})
    designed = {**plain, "preference": preference_summary(frame)}
    designed["by_attribute"] = by_attribute(frame)
    headings = ("Direct preference", "By annotator attribute (survey)")
    for fmt, marker in (("md", "## {}\n"), ("html", "<h2>{}</h2>"), ("latex", "\\caption{{{}")):
        with_design, without = render_report(designed, fmt), render_report(plain, fmt)
        for heading in headings:
            assert marker.format(heading) in with_design, (fmt, heading)
            assert marker.format(heading) not in without, (fmt, heading)
    markdown = render_report(designed, "md")
    assert "| Forced-choice accuracy, strict (ties are not wins) | 50.0% |" in markdown
    from analysis.methods import PREFERENCE_METHOD, methods_paragraph

    assert PREFERENCE_METHOD in methods_paragraph(designed)  # the methods say how it was asked
    assert PREFERENCE_METHOD not in methods_paragraph(plain)
