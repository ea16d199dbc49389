"""Reward models against humans (analysis.models.reward_models): hand-computed and R-computed
values.

R 4.x reference calls are recorded next to each expected value; R is not called from the tests.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from analysis.core.human_verdicts import annotator_votes, human_verdicts
from analysis.models.model_report import label_audit_table, reward_model_table
from analysis.models.reward_models import (
    attach_reward_models,
    cohen_kappa,
    label_audit_frame,
    mcnemar_test,
    reward_models_section,
)
from analysis.renderers.render import render_report
from analysis.report import build_report
from annotate.domain.models.reward_models import PREDICTION_COLUMNS
from annotate.vocabulary import DIMENSIONS, VERDICTS


def ratings(pairs: dict[str, list[tuple[str, int, int, str]]], domain: str = "D") -> pd.DataFrame:
    """Export-format rows: per pair, (annotator, rubric chosen, rubric rejected, chosen's side);
    the general-quality dimensions get chosen = rejected = 3 (a constant margin)."""
    rows = []
    for pair_id, votes in pairs.items():
        for annotator, chosen, rejected, side in votes:
            other = "B" if side == "A" else "A"
            for dim in DIMENSIONS:
                c, r = (chosen, rejected) if dim == "rubric_alignment" else (3, 3)
                for response, score, where in (("chosen", c, side), ("rejected", r, other)):
                    rows.append(
                        {
                            "study": "s",
                            "pair_id": pair_id,
                            "domain": domain,
                            "annotator": annotator,
                            "response": response,
                            "side": where,
                            "dimension": dim,
                            "score": score,
                            "seconds": 10.0,
                            "created_at": "2026-12-04T10:00:00",
                        }
                    )
    return pd.DataFrame(rows)


def pointwise_rows(model: str, scores: dict[str, tuple[float | None, float | None]], **kw):
    rows = []
    for pair_id, (chosen, rejected) in scores.items():
        status = kw.get("status", {}).get(pair_id, "ok")
        rows.append(
            [model, "pointwise", pair_id, "D", chosen, rejected, None, None, None, False, status]
        )
    return rows


def pairwise_rows(model: str, results: dict[str, tuple[bool, str]], failed=()):
    rows = []
    for pair_id, (pos_in_a, prediction) in results.items():
        correct = prediction == ("A" if pos_in_a else "B")
        status = "parse_failed" if pair_id in failed else "ok"
        rows.append(
            [
                model,
                "pairwise",
                pair_id,
                "D",
                None,
                None,
                prediction,
                pos_in_a,
                correct,
                pair_id in failed,
                status,
            ]
        )
    return rows


def frame(rows) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=list(PREDICTION_COLUMNS))


# ---------------------------------------------------------------- kappa, by hand


def test_kappa_by_hand_on_a_two_by_two_table():
    # 50 items: both yes 20, first yes/second no 5, first no/second yes 10, both no 15.
    # p_o = 35/50 = 0.70; first says yes 25/50 = 0.5, second 30/50 = 0.6;
    # p_e = 0.5*0.6 + 0.5*0.4 = 0.50; kappa = (0.70 - 0.50) / (1 - 0.50) = 0.40.
    first = np.array(["y"] * 20 + ["y"] * 5 + ["n"] * 10 + ["n"] * 15)
    second = np.array(["y"] * 20 + ["n"] * 5 + ["y"] * 10 + ["n"] * 15)
    assert cohen_kappa(first, second, ("y", "n")) == pytest.approx(0.40)


def test_kappa_by_hand_with_three_categories():
    # model:  C C C R C R C C T R      human: C C C C C R R T T C
    # agree on 6 of 10 (C,C,C,C,R,T): p_o = 0.6.
    # model: C 6, R 3, T 1; human: C 6, R 2, T 2 (of 10).
    # p_e = .6*.6 + .3*.2 + .1*.2 = 0.36 + 0.06 + 0.02 = 0.44; kappa = 0.16 / 0.56 = 2/7.
    model = np.array(list("CCCRCRCCTR"))
    human = np.array(list("CCCCCRRTTC"))
    assert cohen_kappa(model, human, ("C", "R", "T")) == pytest.approx(2 / 7)
    assert cohen_kappa(model[:0], human[:0], ("C",)) is None
    assert cohen_kappa(np.array(["C", "C"]), np.array(["C", "C"]), ("C", "R")) is None


# ---------------------------------------------------------------- McNemar, against R


def paired(both: int, model_only: int, human_only: int, neither: int):
    model = np.array([True] * both + [True] * model_only + [False] * human_only + [False] * neither)
    human = np.array([True] * both + [False] * model_only + [True] * human_only + [False] * neither)
    return model, human


def test_mcnemar_small_discordant_counts_use_the_exact_binomial_test():
    # b = 2 (model only), c = 5 (human only): 7 discordant pairs < 25, exact.
    # R: binom.test(2, 7)$p.value          -> 0.453125
    # (R: mcnemar.test(matrix(c(10, 5, 2, 13), 2)) would give chi-squared 0.57143, p 0.4497;
    #  with correct = FALSE 1.2857, p 0.2568: the exact test is used instead at this size.)
    result = mcnemar_test(*paired(10, 2, 5, 13))
    assert result["method"] == "exact binomial"
    assert (result["model_only_correct"], result["human_only_correct"]) == (2, 5)
    assert result["p"] == pytest.approx(0.453125, abs=1e-12)
    assert result["statistic"] is None


def test_mcnemar_large_discordant_counts_match_r_with_continuity_correction():
    # R: r <- mcnemar.test(matrix(c(120, 40, 18, 60), 2))
    #    McNemar's chi-squared = 7.6034, df = 1, p-value = 0.005826
    #    print(r$p.value, digits = 15)  -> 0.00582567782836839
    # matrix(c(120, 40, 18, 60), 2): rows model correct yes/no, columns human correct yes/no,
    # so b = [1,2] = 18 (model only), c = [2,1] = 40 (human only).
    result = mcnemar_test(*paired(120, 18, 40, 60))
    assert result["method"] == "chi-squared with continuity correction"
    assert result["statistic"] == pytest.approx(441 / 58)  # (|18 - 40| - 1)^2 / 58 = 7.6034
    assert result["p"] == pytest.approx(0.00582567782836839, rel=1e-9)


def test_mcnemar_edge_cases():
    assert mcnemar_test(*paired(5, 0, 0, 5))["p"] == 1.0  # no discordant pair
    empty = mcnemar_test(np.array([], bool), np.array([], bool))
    assert (empty["p"], empty["method"]) == (None, None)


# ---------------------------------------------------------------- human verdicts


def test_human_verdict_is_the_leading_vote_and_a_tie_when_none_leads():
    data = ratings(
        {
            "p1": [("a", 5, 2, "A"), ("b", 4, 3, "B"), ("c", 2, 4, "A")],  # 2 chosen, 1 rejected
            "p2": [("a", 2, 4, "A"), ("b", 1, 5, "B"), ("c", 3, 3, "A")],  # 2 rejected, 1 tie
            "p3": [("a", 5, 2, "A"), ("b", 2, 5, "B")],  # 1 chosen, 1 rejected: no lead
            "p4": [("a", 3, 3, "B")],  # tie
        }
    )
    verdicts = human_verdicts(annotator_votes(data))
    assert verdicts["verdict"].to_dict() == {
        "p1": "chosen",
        "p2": "rejected",
        "p3": "tie",
        "p4": "tie",
    }
    assert verdicts.loc["p1", "mean_rubric_diff"] == pytest.approx((3 + 1 - 2) / 3)
    assert verdicts.loc["p2", ["n_chosen", "n_rejected", "n_tie"]].tolist() == [0, 2, 1]
    assert verdicts["n_annotators"].tolist() == [3, 3, 2, 1]


# ---------------------------------------------------------------- one model, end to end


HUMANS = {
    "p1": [("a", 5, 2, "A"), ("b", 4, 3, "B")],  # chosen
    "p2": [("a", 5, 1, "B"), ("b", 4, 2, "A")],  # chosen
    "p3": [("a", 2, 4, "A"), ("b", 1, 4, "B")],  # rejected, mean diff -2.5
    "p4": [("a", 3, 3, "A"), ("b", 3, 3, "B")],  # tie, mean diff 0
}


def test_pointwise_model_figures_by_hand():
    # Model prefers chosen on p1, p3, p5 (unrated), rejected on p2, tie on p4 (counted wrong);
    # p6 has one score and p7 a non-finite one: left out and counted.
    predictions = frame(
        pointwise_rows(
            "rm",
            {
                "p1": (2.0, 1.0),
                "p2": (0.0, 1.0),
                "p3": (3.0, 1.0),
                "p4": (1.0, 1.0),
                "p5": (5.0, 0.0),
                "p6": (1.0, None),
                "p7": (None, 1.0),
            },
            status={"p6": "missing_score", "p7": "non_finite"},
        )
    )
    models, audit = reward_models_section(ratings(HUMANS), predictions)
    m = models["rm"]
    assert (m["n_pairs"], m["n_predictions"], m["n_missing_score"], m["n_non_finite"]) == (
        5,
        7,
        1,
        1,
    )
    assert m["accuracy_all"] == pytest.approx(3 / 5)  # p1, p3, p5
    assert m["n_rated"] == 4
    assert m["accuracy_rated"] == pytest.approx(2 / 4)
    # the report's headline definition: a single annotator, ties as half: a and b both put
    # chosen higher on p1, p2 and tie on p4: (4 + 0.5 * 2) / 8
    assert m["human_accuracy_same_pairs"] == pytest.approx(5 / 8)
    assert m["human_majority_accuracy_same_pairs"] == pytest.approx(2 / 4)  # p1, p2
    # model C R C T vs human C C R T: agree on p1 and p4 -> 0.5
    assert m["agreement"] == pytest.approx(0.5)
    # p_o = 0.5; model C 2, R 1, T 1; human C 2, R 1, T 1 (of 4):
    # p_e = .25 + .0625 + .0625 = 0.375; kappa = 0.125 / 0.625 = 0.2
    assert m["kappa"] == pytest.approx(0.2)
    # model-correct T F T F, human-correct T T F F: b = 1 (p3), c = 1 (p2); binom.test(1, 2) = 1
    assert (m["mcnemar"]["model_only_correct"], m["mcnemar"]["human_only_correct"]) == (1, 1)
    assert m["mcnemar_p"] == pytest.approx(1.0)
    assert m["accuracy_where_humans_agree"] == {
        "n": 2,
        "accuracy": 0.5,
        "ci95": pytest.approx(
            [0.0945312, 0.9054688], abs=1e-6
        ),  # R: prop.test(1, 2, correct=FALSE)
    }
    assert m["accuracy_where_humans_disagree"]["accuracy"] == pytest.approx(0.5)  # p3 of p3, p4
    # score margins 1, -1, 2, 0 against rubric margins 2, 3, -2.5, 0: Spearman by hand, ranks
    # (3, 1, 4, 2) vs (3, 4, 1, 2): d^2 = 0 + 9 + 9 + 0 = 18, rho = 1 - 6*18/(4*15) = -0.8
    assert m["margin_correlation"]["rubric_alignment"]["spearman_rho"] == pytest.approx(-0.8)
    assert m["margin_correlation"]["factuality"]["spearman_rho"] is None  # human margin constant
    assert m["position"] is None
    assert m["by_domain"]["D"]["n_pairs"] == 5
    assert [a["pair_id"] for a in audit] == ["p3", "p4"]
    assert audit[0] == {
        "pair_id": "p3",
        "domain": "D",
        "human_majority": "rejected",
        "n_annotators": 2,
        "mean_rubric_diff": -2.5,
    }


def test_pairwise_model_position_beside_the_humans():
    predictions = frame(
        pairwise_rows(
            "judge",
            {"p1": (True, "A"), "p2": (False, "A"), "p3": (False, "A"), "p4": (True, "A")},
            failed=("p3",),
        )
    )
    models, _ = reward_models_section(ratings(HUMANS), predictions)
    m = models["judge"]
    # The parse failure keeps its default prediction "A" (wrong here) and stays in, counted.
    assert (m["n_pairs"], m["n_parse_failed"]) == (4, 1)
    assert m["accuracy_all"] == pytest.approx(0.5)
    assert m["position"]["chosen_at_A"]["accuracy"] == pytest.approx(1.0)  # p1, p4
    assert m["position"]["chosen_at_B"]["accuracy"] == pytest.approx(0.0)  # p2, p3
    # Humans: chosen at A for a/p1 (C), b/p2 (C), a/p3 (R), a/p4 (T): 2 of 4;
    # chosen at B for b/p1 (C), a/p2 (C), b/p3 (R), b/p4 (T): 2 of 4.
    assert m["human_position"]["chosen_at_A"] == {
        "n": 4,
        "accuracy": 0.5,
        "ci95": pytest.approx([0.150039, 0.849961], abs=1e-6),  # R: prop.test(2, 4, correct=FALSE)
    }
    assert m["margin_correlation"] is None


# ---------------------------------------------------------------- report keys and rendering


def test_report_keys_are_exactly_the_issues(tmp_path):
    data = ratings(HUMANS)
    report = build_report(data, n_boot=0)
    predictions = frame(pointwise_rows("rm", {"p1": (2.0, 1.0), "p2": (0.0, 1.0)}))
    extended = attach_reward_models(report, data, predictions)
    issue_keys = {
        "kind",
        "n_pairs",
        "accuracy_all",
        "accuracy_rated",
        "accuracy_rated_ci95",
        "human_accuracy_same_pairs",
        "agreement",
        "kappa",
        "mcnemar_p",
        "by_domain",
    }
    assert issue_keys <= set(extended["reward_models"]["rm"])
    assert set(extended["label_audit"][0]) == {
        "pair_id",
        "domain",
        "human_majority",
        "n_annotators",
        "mean_rubric_diff",
    }
    text = render_report(extended, "json")
    assert json.loads(text)["reward_models"]["rm"]["kind"] == "pointwise"
    markdown = render_report(extended, "md")
    assert "## Reward models" in markdown
    assert "## Label audit" in markdown
    assert "75.94" not in markdown  # the reference goes once a model is measured
    html = render_report(extended, "html")
    assert 'id="chart-reward_models"' in html


def test_without_models_the_reference_is_labelled():
    data = ratings(HUMANS)
    report = attach_reward_models(build_report(data, n_boot=0), data, frame([]))
    assert report["reward_models"] == {}
    table = reward_model_table(report)
    assert "No reward model imported" in table.note
    assert table.rows[0][1] == "75.94%"
    plain = build_report(data, n_boot=0)  # a report from a ratings file has no model keys
    assert "published" in render_report(plain, "md")


def test_untrusted_ids_are_escaped_in_markdown_and_html():
    data = ratings({"<b>p</b>|x": [("a", 1, 5, "A")]})
    report = attach_reward_models(build_report(data, n_boot=0), data, frame([]))
    assert label_audit_table(report).rows[0][0] == "<b>p</b>|x"
    assert "<b>p</b>" not in render_report(report, "md")
    assert "<b>p</b>" not in render_report(report, "html")


def test_the_audit_csv_has_scores_comments_and_models_wrong():
    data = ratings(HUMANS)
    predictions = frame(pointwise_rows("rm", {"p3": (0.0, 1.0), "p4": (1.0, 1.0)}))
    comments = pd.DataFrame(
        [["p3", "a", "B is clearly the better fit"]], columns=["pair_id", "annotator", "comment"]
    )
    table = label_audit_frame(data, predictions, comments)
    assert table["pair_id"].tolist() == ["p3", "p4"]
    first = table.iloc[0]
    assert first["rubric_scores_chosen_rejected"] == "a: 2/4; b: 1/4"
    assert first["comments"] == "a: B is clearly the better fit"
    assert table["models_wrong"].tolist() == [1, 1]
    assert list(VERDICTS) == ["chosen", "rejected", "tie"]
    assert not any(isinstance(v, float) and math.isnan(v) for v in table["mean_rubric_diff"])
