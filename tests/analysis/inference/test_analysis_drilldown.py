"""The drill-down's pairs behind each figure, on a hand-made study whose orders and measures
were worked out by hand (the arithmetic is in the comments)."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from analysis.core.ratings import validate_ratings
from analysis.inference.drilldown import (
    FIGURES,
    annotator_scores,
    figure_note,
    figure_pairs,
    pair_scores,
)
from annotate.errors import Invalid

# (pair, annotator) -> dimension -> (chosen, rejected); None: that score is missing.
# p1..p3 in domain D1, p4 in D2 (rated by a alone). Relevance is 3/3 everywhere.
SCORES: dict[tuple[str, str], dict[str, tuple[int | None, int | None]]] = {
    ("p1", "a"): {"factuality": (4, 4), "helpfulness": (3, 3), "rubric_alignment": (5, 1)},
    ("p1", "b"): {"factuality": (4, 4), "helpfulness": (3, 3), "rubric_alignment": (5, 2)},
    ("p1", "c"): {"factuality": (None, None), "helpfulness": (3, 3), "rubric_alignment": (4, 1)},
    ("p2", "a"): {"factuality": (5, 2), "helpfulness": (3, 3), "rubric_alignment": (2, 4)},
    ("p2", "b"): {"factuality": (5, 2), "helpfulness": (3, 3), "rubric_alignment": (5, 1)},
    ("p2", "c"): {"factuality": (5, 2), "helpfulness": (3, 3), "rubric_alignment": (3, 3)},
    ("p3", "a"): {"factuality": (3, 4), "helpfulness": (3, 3), "rubric_alignment": (3, 3)},
    ("p3", "b"): {"factuality": (1, 4), "helpfulness": (3, 3), "rubric_alignment": (3, 3)},
    ("p4", "a"): {"factuality": (4, 4), "helpfulness": (3, None), "rubric_alignment": (2, 3)},
}


def hand_made() -> pd.DataFrame:
    rows = []
    for (pair, who), dims in SCORES.items():
        for dim, (chosen, rejected) in {"relevance": (3, 3), **dims}.items():
            for response, side, score in (("chosen", "A", chosen), ("rejected", "B", rejected)):
                if score is not None:
                    rows.append(
                        {
                            "study": "s",
                            "pair_id": pair,
                            "domain": "D2" if pair == "p4" else "D1",
                            "annotator": who,
                            "response": response,
                            "side": side,
                            "dimension": dim,
                            "score": score,
                            "seconds": 10.0,
                            "created_at": "2026-12-04T10:00:00",
                        }
                    )
    return validate_ratings(pd.DataFrame(rows))


@pytest.fixture
def ratings() -> pd.DataFrame:
    return hand_made()


def test_agreement_puts_the_most_disagreeing_pair_first(ratings):
    table = figure_pairs(ratings, "agreement:rubric_alignment")
    # p2: chosen 2,5,3 and rejected 4,1,3 both have variance 7/3 -> pooled SD sqrt(7/3);
    # differences -2,4,0 -> SD sqrt(28/3). p1: chosen 5,5,4 and rejected 1,2,1, variance 1/3
    # each -> sqrt(1/3); differences 4,3,3 -> sqrt(1/3). p3: no variance. p4 has one annotator:
    # no unit alpha can pair, so it is not behind the figure.
    assert table["pair_id"].tolist() == ["p2", "p1", "p3"]
    assert table["score_sd"].tolist() == pytest.approx([np.sqrt(7 / 3), np.sqrt(1 / 3), 0.0])
    assert table["diff_sd"].tolist() == pytest.approx([np.sqrt(28 / 3), np.sqrt(1 / 3), 0.0])
    assert table["n_annotators"].tolist() == [3, 3, 2]
    assert table.loc[0, "scores"] == "a 2/4; b 5/1; c 3/3"


def test_agreement_on_a_general_dimension_breaks_ties_by_pair(ratings):
    table = figure_pairs(ratings, "agreement:factuality")
    # p3: chosen 3,1 (variance 2), rejected 4,4 (0) -> sqrt((2 + 0) / 2) = 1; the others 0,
    # then by pair id. p1's third annotator has no factuality score.
    assert table["pair_id"].tolist() == ["p3", "p1", "p2"]
    assert table["score_sd"].tolist() == pytest.approx([1.0, 0.0, 0.0])
    assert table.loc[0, "diff_sd"] == pytest.approx(np.sqrt(2))  # differences -1, -3
    assert table.loc[1, "n_annotators"] == 2


def test_a_general_verdict_lists_the_largest_absolute_difference_first(ratings):
    table = figure_pairs(ratings, "verdict:factuality")
    # mean chosen - mean rejected: p2 5 - 2 = 3, p3 2 - 4 = -2, p1 and p4 0 (by pair id).
    assert table["pair_id"].tolist() == ["p2", "p3", "p1", "p4"]
    assert table["mean_diff"].tolist() == pytest.approx([3.0, -2.0, 0.0, 0.0])


def test_the_rubric_verdict_lists_rejected_at_or_above_chosen_first(ratings):
    table = figure_pairs(ratings, "verdict:rubric_alignment")
    # p4 2 - 3 = -1; p3 0; p2 10/3 - 8/3 = 2/3; p1 14/3 - 4/3 = 10/3.
    assert table["pair_id"].tolist() == ["p4", "p3", "p2", "p1"]
    assert table["mean_diff"].tolist() == pytest.approx([-1, 0, 2 / 3, 10 / 3])
    assert table["mean_chosen"].tolist() == pytest.approx([2, 3, 10 / 3, 14 / 3])


def test_a_pair_missing_one_mean_is_not_behind_the_verdict(ratings):
    table = figure_pairs(ratings, "verdict:helpfulness")
    assert "p4" not in table["pair_id"].tolist()  # p4 has no rejected helpfulness score
    assert pair_scores(ratings, "helpfulness").loc["p4", "scores"] == "a 3/-"


def test_accuracy_lists_the_pairs_not_counted_as_wins_first_with_their_votes(ratings):
    table = figure_pairs(ratings, "accuracy")
    assert table["pair_id"].tolist() == ["p4", "p3", "p2", "p1"]
    outcomes = ["rejected higher", "tie", "chosen higher", "chosen higher"]
    assert table["outcome"].tolist() == outcomes
    # p2's votes: a -2 (rejected), b +4 (chosen), c 0 (tie): no majority -> tie.
    p2 = table.set_index("pair_id").loc["p2"]
    assert (p2["n_chosen"], p2["n_tie"], p2["n_rejected"], p2["majority"]) == (1, 1, 1, "tie")
    assert table.set_index("pair_id").loc["p1", "majority"] == "chosen"


def test_preference_agreement_puts_split_votes_first(ratings):
    table = figure_pairs(ratings, "agreement:preference")
    # p2: one vote each -> 1 - 1/3; p1 (3 chosen) and p3 (2 ties) agree fully, p1 has more
    # annotators; p4 has a single vote.
    assert table["pair_id"].tolist() == ["p2", "p1", "p3"]
    assert table["disagreement"].tolist() == pytest.approx([2 / 3, 0, 0])


def test_a_domain_restricts_the_pairs(ratings):
    assert figure_pairs(ratings, "accuracy", domain="D1")["pair_id"].tolist() == [
        "p3",
        "p2",
        "p1",
    ]
    assert figure_pairs(ratings, "verdict:rubric_alignment", domain="D2")["pair_id"].tolist() == [
        "p4"
    ]


def test_unknown_figures_and_domains_are_refused_with_the_names_expected(ratings):
    with pytest.raises(Invalid, match=r"unknown figure 'alpha'.*agreement:factuality"):
        figure_pairs(ratings, "alpha")
    with pytest.raises(Invalid, match="no rated pair in domain 'D9'; domains: D1, D2"):
        figure_pairs(ratings, "accuracy", domain="D9")


def test_every_figure_has_a_note_and_builds(ratings):
    for figure in FIGURES:
        assert figure_note(figure)
        table = figure_pairs(ratings, figure)
        assert list(table.columns[:2]) == ["pair_id", "domain"]
        measure = {"agreement": "score_sd", "verdict": "n_annotators", "accuracy": "outcome"}
        if figure != "agreement:preference":  # its measure is the disagreement
            assert table.columns[2] == measure[figure.split(":")[0]]
        assert {"n_annotators", "mean_diff", "scores"} <= set(table.columns)


def test_the_table_survives_a_csv_round_trip(ratings):
    table = figure_pairs(ratings, "accuracy")
    back = pd.read_csv(io.StringIO(table.to_csv(index=False)))
    assert back["pair_id"].tolist() == table["pair_id"].tolist()
    assert back["mean_diff"].tolist() == pytest.approx(table["mean_diff"].tolist())
    assert back["scores"].tolist() == table["scores"].tolist()


def test_one_pairs_scores_by_annotator(ratings):
    table = annotator_scores(ratings, "p1").set_index("annotator")
    assert list(table.columns) == ["factuality", "relevance", "helpfulness", "rubric_alignment"]
    assert table["rubric_alignment"].tolist() == ["5/1", "5/2", "4/1"]
    assert table.loc["c", "factuality"] == "-/-"  # c gave no factuality score


def test_with_one_annotator_no_pair_is_behind_agreement_but_every_verdict_has_pairs(ratings):
    alone = ratings[ratings["annotator"] == "a"]
    for figure in FIGURES:
        table = figure_pairs(alone, figure)
        if figure.startswith("agreement:"):
            assert table.empty
            assert list(table.columns[:2]) == ["pair_id", "domain"]  # still a table, no rows
        else:
            assert len(table) == (3 if figure == "verdict:helpfulness" else 4)
    with pytest.raises(Invalid, match="no ratings yet"):
        figure_pairs(ratings.iloc[:0], "accuracy")
