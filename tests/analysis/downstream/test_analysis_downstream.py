"""The downstream analysis (issue 25, item 3): comparison gains with identical questions at zero,
the judge against the humans (weighted kappa worked by hand, ordinal alpha with the judge as a
coder), the scaling curve and the correlation claim (Kendall and Spearman with exact permutation
p-values, checked against GNU R's `cor.test(..., exact = TRUE)` run live)."""

from __future__ import annotations

import json
import shutil
import subprocess
from itertools import product

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from analysis.designs.aspects import quadratic_kappa
from analysis.downstream.claim import attainable_interval, permutation_p, rank_statistics
from analysis.downstream.gains import human_gain, judge_gain
from analysis.downstream.judge_human import agreement, scaling_curve
from analysis.downstream.summary import downstream_summary
from analysis.inference.crossed import (
    crossed_mean,
)

needs_r = pytest.mark.skipif(shutil.which("Rscript") is None, reason="needs GNU R")


def ratings_for(study: str, diffs: dict[tuple[str, str], int]) -> pd.DataFrame:
    """A comparison study's rubric-alignment rows: chosen 3 + diff, rejected 3."""
    rows = []
    for (pair, annotator), diff in diffs.items():
        rows.append((study, pair, annotator, "chosen", "rubric_alignment", 3 + diff))
        rows.append((study, pair, annotator, "rejected", "rubric_alignment", 3))
        rows.append((study, pair, annotator, "chosen", "factuality", 5))
        rows.append((study, pair, annotator, "rejected", "factuality", 1))
    return pd.DataFrame(
        rows, columns=["study", "pair_id", "annotator", "response", "dimension", "score"]
    )


def test_identical_questions_count_as_zero_gain_and_their_share_is_reported():
    # Three rated questions: q1 (annotators +2, +0), q2 (+1, +1), q3 (-1, +1).
    ratings = ratings_for(
        "c", {("q1", "a"): 2, ("q1", "b"): 0, ("q2", "a"): 1, ("q2", "b"): 1,
              ("q3", "a"): -1, ("q3", "b"): 1},
    )  # fmt: skip
    gain = human_gain(ratings, n_identical=3)
    assert (gain["n_rated"], gain["n_identical"], gain["share_identical"]) == (3, 3, 0.5)
    # the rated questions' estimate is the main verdict's crossed model over pairs and
    # annotators (analysis.inference.crossed, checked against R's lmer there) ...
    diffs = [2, 0, 1, 1, -1, 1]
    crossed = crossed_mean(diffs, ["q1", "q1", "q2", "q2", "q3", "q3"], list("ababab"))
    assert gain["gain_rated"]["estimate"] == pytest.approx(crossed.estimate)
    assert gain["gain_rated"]["ci"] == pytest.approx(crossed.ci)
    assert gain["gain_rated"]["method"] == crossed.method
    # ... and the 3 identical questions count as zero: half of it, interval and se alike
    assert gain["gain"]["estimate"] == pytest.approx(crossed.estimate / 2)
    assert gain["gain"]["ci"] == pytest.approx([c / 2 for c in crossed.ci])
    assert gain["gain"]["se"] == pytest.approx(crossed.se / 2)
    assert gain["share_expected_higher"] == pytest.approx(4 / 6)


def test_the_judge_gain_uses_questions_with_usable_answers_for_both_conditions():
    outputs = pd.DataFrame(
        [
            ("bon:m:k16", "q1", 2.0, "ok"), ("bon:m:k1", "q1", 1.0, "ok"),
            ("bon:m:k16", "q2", 1.5, "ok"), ("bon:m:k1", "q2", 1.5, "ok"),
            ("bon:m:k16", "q3", 0.0, "empty"), ("bon:m:k1", "q3", 1.0, "ok"),
        ],
        columns=["condition", "pair_id", "judge_average", "judge_status"],
    )  # fmt: skip
    judged = judge_gain(outputs, "bon:m:k16", "bon:m:k1")
    assert judged["n_questions"] == 2
    assert judged["gain"]["estimate"] == pytest.approx(0.5)


def test_weighted_kappa_worked_by_hand():
    # Human consensus against judge on 6 units of the 0/1/2 scale:
    #   human: 0 0 1 1 2 2 ; judge: 0 1 1 2 2 2
    # Table (rows human, columns judge): [[1,1,0],[0,1,1],[0,0,2]]; n = 6.
    # Quadratic weights of disagreement (i - j)^2: observed sum = (1*1 + 1*1) / 6 = 2/6.
    # Margins: rows (2, 2, 2), columns (1, 2, 3); expected sum = sum_ij r_i c_j (i-j)^2 / 36
    #   = [2*(1*0 + 2*1 + 3*4) + 2*(1*1 + 2*0 + 3*1) + 2*(1*4 + 2*1 + 3*0)] / 36
    #   = [2*14 + 2*4 + 2*6] / 36 = 48/36.
    # kappa = 1 - (2/6) / (48/36) = 1 - 0.25 = 0.75.
    human = np.array([0, 0, 1, 1, 2, 2])
    judge = np.array([0, 1, 1, 2, 2, 2])
    assert quadratic_kappa(human, judge) == pytest.approx(0.75)
    labelled = pd.DataFrame(
        {"condition": "c", "pair_id": [f"q{i}" for i in range(6)], "aspect_index": 0,
         "coverage": human, "annotator": "a"}
    )  # fmt: skip
    scores = labelled[["condition", "pair_id", "aspect_index"]].assign(coverage=judge)
    found = agreement(labelled, scores)
    assert found["kappa_quadratic"] == pytest.approx(0.75)
    assert found["exact_agreement"] == pytest.approx(4 / 6)
    # Two coders (human, judge), ordinal alpha: krippendorff.alpha on the 2 x 6 matrix gives
    # the same; here only that the judge counts as a coder (one coder alone has no alpha).
    assert found["alpha_ordinal_with_judge"] is not None


def r_cor_test(x: list[float], y: list[float]) -> dict[str, float]:
    script = (
        f"x <- c({', '.join(map(str, x))}); y <- c({', '.join(map(str, y))}); "
        "k <- cor.test(x, y, method = 'kendall', exact = TRUE); "
        "s <- cor.test(x, y, method = 'spearman', exact = TRUE); "
        "cat(sprintf('%.12f %.12f %.12f %.12f', k$estimate, k$p.value, s$estimate, s$p.value))"
    )
    out = subprocess.run(
        ["Rscript", "-e", script], capture_output=True, text=True, check=True, timeout=120
    ).stdout.split()
    return dict(zip(["tau", "p_tau", "rho", "p_rho"], map(float, out), strict=True))


@needs_r
@pytest.mark.parametrize(
    ("x", "y"),
    [
        ([0.61, 0.66, 0.70, 0.72, 0.76], [0.05, 0.22, 0.10, 0.31, 0.40]),
        ([0.55, 0.60, 0.64, 0.69, 0.71, 0.74], [0.30, -0.10, 0.12, 0.05, 0.41, 0.02]),
        ([0.5, 0.6, 0.7], [0.3, 0.2, 0.1]),
        ([0.51, 0.52, 0.58, 0.63, 0.67, 0.70, 0.74, 0.76], [1, 3, 2, 5, 4, 8, 6, 7]),
    ],
)
def test_rank_correlations_and_exact_permutation_p_match_r(x, y):
    expected = r_cor_test(x, y)
    tau, rho = rank_statistics(np.array(x), np.array(y, float))
    p_tau, p_rho, exact = permutation_p(np.array(x), np.array(y, float))
    assert exact
    assert tau == pytest.approx(expected["tau"], abs=1e-9)
    assert rho == pytest.approx(expected["rho"], abs=1e-9)
    assert p_tau == pytest.approx(expected["p_tau"], abs=1e-9)
    assert p_rho == pytest.approx(expected["p_rho"], abs=1e-9)


def make_inputs(gains: dict[str, float], seed: int = 1) -> tuple[pd.DataFrame, list, pd.DataFrame]:
    """Three or more reward models, each with a k16-vs-k1 comparison of 12 questions (2
    identical) rated by 3 annotators; the humans' differences centred on `gains`."""
    rng = np.random.default_rng(seed)
    ratings, outputs, comparisons = [], [], []
    for model, gain in gains.items():
        study = f"cmp-{model}"
        diffs = {
            (f"q{q}", a): int(np.clip(round(gain + rng.normal(0, 0.7)), -4, 1))
            for q, a in product(range(10), "abc")
        }
        ratings.append(ratings_for(study, diffs))
        comparisons.append(
            {"study": study, "expected": f"bon:{model}:k16", "baseline": f"bon:{model}:k1",
             "identical": ["q10", "q11"], "n_questions": 12}
        )  # fmt: skip
        for q in range(12):
            base = float(rng.integers(0, 3))
            top = base if q >= 10 else float(min(2, base + (gain > 0.3)))
            for k, avg in ((16, top), (1, base)):
                outputs.append(
                    (f"bon:{model}:k{k}", "bon", model, f"k{k}", k, f"q{q}", 2, 0.5,
                     [avg, avg], avg, "ok")
                )  # fmt: skip
    frame = pd.DataFrame(
        outputs,
        columns=["condition", "kind", "model", "variant", "k", "pair_id", "n_aspects",
                 "rm_score", "judge_scores", "judge_average", "judge_status"],
    )  # fmt: skip
    return frame, comparisons, pd.concat(ratings, ignore_index=True)


def test_the_claim_needs_three_models_and_says_what_the_humans_confirm():
    gains = {"m1": -0.5, "m2": 0.0, "m3": 0.4, "m4": 0.8, "m5": 1.0}
    accuracy = {"m1": 0.60, "m2": 0.64, "m3": 0.69, "m4": 0.72, "m5": 0.76}
    outputs, comparisons, ratings = make_inputs(gains)
    marks = pd.DataFrame(
        columns=["study", "pair_id", "annotator", "response", "aspect_index", "coverage"]
    )
    summary = downstream_summary(outputs, comparisons, ratings, marks, accuracy, n_boot=200)
    assert summary is not None
    claim = summary["claim"]
    assert claim["models"] == sorted(gains)
    human = claim["human"]
    x, y = np.array(claim["accuracy"]), np.array(human["gains"])
    assert human["kendall_tau"] == pytest.approx(stats.kendalltau(x, y).statistic)
    assert human["kendall_tau_ci"][0] <= human["kendall_tau"] <= human["kendall_tau_ci"][1]
    assert claim["sentence"].startswith("Over 5 reward models, the humans ")
    # every comparison reports its identical share
    assert {c["human"]["share_identical"] for c in summary["comparisons"]} == {2 / 12}
    two = {m: accuracy[m] for m in ("m1", "m2")}
    assert downstream_summary(outputs, comparisons, ratings, marks, two, n_boot=10)["claim"] is None


def test_a_contradicting_ranking_is_said_so():
    gains = {"m1": 1.0, "m2": 0.6, "m3": 0.1, "m4": -0.5}
    accuracy = {"m1": 0.60, "m2": 0.64, "m3": 0.69, "m4": 0.72}
    outputs, comparisons, ratings = make_inputs(gains, seed=3)
    marks = pd.DataFrame(
        columns=["study", "pair_id", "annotator", "response", "aspect_index", "coverage"]
    )
    claim = downstream_summary(outputs, comparisons, ratings, marks, accuracy, n_boot=50)["claim"]
    assert claim["human"]["kendall_tau"] < 0
    assert "do not confirm" in claim["sentence"]
    assert "negative rank correlation" in claim["sentence"]
    json.dumps(claim)  # plain JSON


def test_too_few_models_for_significance_are_said_so_and_a_reversed_ranking_contradicts():
    marks = pd.DataFrame(
        columns=["study", "pair_id", "annotator", "response", "aspect_index", "coverage"]
    )
    four = {"m1": 1.0, "m2": 0.6, "m3": 0.1, "m4": -0.5}
    outputs, comparisons, ratings = make_inputs(four, seed=3)
    accuracy = {"m1": 0.60, "m2": 0.64, "m3": 0.69, "m4": 0.72}
    claim = downstream_summary(outputs, comparisons, ratings, marks, accuracy, n_boot=20)["claim"]
    assert claim["sentence"].endswith("With 4 models no exact p-value below 0.0833 is possible.")
    five = {"m1": 1.0, "m2": 0.5, "m3": 0.0, "m4": -0.5, "m5": -1.0}
    outputs, comparisons, ratings = make_inputs(five, seed=4)
    accuracy = {"m1": 0.60, "m2": 0.64, "m3": 0.69, "m4": 0.72, "m5": 0.76}
    claim = downstream_summary(outputs, comparisons, ratings, marks, accuracy, n_boot=20)["claim"]
    assert claim["human"]["kendall_tau"] == pytest.approx(-1.0)
    assert claim["human"]["p_tau"] == pytest.approx(2 / 120)  # exact: 2 of the 5! orders
    assert claim["sentence"].startswith("Over 5 reward models, the humans contradict the")


def test_adjudicators_and_excluded_pairs_are_left_out():
    ratings = ratings_for("c", {("q1", "a"): 2, ("q2", "a"): 1, ("q3", "a"): 0})
    ratings["purpose"] = "rating"
    ratings["pair_excluded"] = ratings["pair_id"] == "q3"
    adjudicator = ratings_for("c", {("q1", "z"): -4})
    adjudicator["purpose"], adjudicator["pair_excluded"] = "adjudication", False
    both = pd.concat([ratings, adjudicator], ignore_index=True)
    marks = pd.DataFrame(
        columns=["study", "pair_id", "annotator", "response", "aspect_index", "coverage"]
    )
    outputs = pd.DataFrame(
        columns=["condition", "kind", "model", "variant", "k", "pair_id", "n_aspects",
                 "rm_score", "judge_scores", "judge_average", "judge_status"]
    )  # fmt: skip
    comparison = {"study": "c", "expected": "bon:m:k4", "baseline": "bon:m:k1", "identical": []}
    summary = downstream_summary(outputs, [comparison], both, marks, {}, n_boot=10)
    gain = summary["comparisons"][0]["human"]
    assert (gain["n_rated"], gain["n_annotators"]) == (2, 1)
    assert gain["gain"]["estimate"] == pytest.approx(1.5)


def test_the_judge_is_one_more_coder_in_the_ordinal_alpha():
    import krippendorff

    # 4 (condition, question, aspect) units, two annotators and the judge
    human_a, human_b, judge = [0, 1, 2, 2], [0, 2, 2, 1], [1, 1, 2, 0]
    units = [("c", f"q{i}", 0) for i in range(4)]
    labelled = pd.DataFrame(
        [(c, q, i, v, who) for who, values in (("a", human_a), ("b", human_b))
         for (c, q, i), v in zip(units, values, strict=True)],
        columns=["condition", "pair_id", "aspect_index", "coverage", "annotator"],
    )  # fmt: skip
    scores = pd.DataFrame(
        [(c, q, i, v) for (c, q, i), v in zip(units, judge, strict=True)],
        columns=["condition", "pair_id", "aspect_index", "coverage"],
    )
    # the reliability matrix (coders x units), through krippendorff's own path
    expected = krippendorff.alpha(
        reliability_data=np.array([human_a, human_b, judge], float),
        level_of_measurement="ordinal",
        value_domain=[0, 1, 2],
    )
    found = agreement(labelled, scores)
    assert found["alpha_ordinal_with_judge"] == pytest.approx(expected)
    # consensus: medians 0, 1.5 -> 1 (a half toward "partly"), 2, 1.5 -> 1; judge 1, 1, 2, 0
    assert found["exact_agreement"] == pytest.approx(2 / 4)


def test_the_scaling_curve_by_hand():
    outputs = pd.DataFrame(
        [("bon:m:k1", "bon", "m", "k1", 1, "q1", 2.0, "ok"),
         ("bon:m:k1", "bon", "m", "k1", 1, "q2", 0.0, "ok"),
         ("bon:m:k1", "bon", "m", "k1", 1, "q3", 0.0, "empty"),
         ("bon:m:k16", "bon", "m", "k16", 16, "q1", 1.5, "ok"),
         ("bon:m:k16", "bon", "m", "k16", 16, "q2", 2.0, "ok")],
        columns=["condition", "kind", "model", "variant", "k", "pair_id", "judge_average",
                 "judge_status"],
    )  # fmt: skip
    labelled = pd.DataFrame(
        [("bon:m:k1", "q1", 0, 1), ("bon:m:k1", "q1", 1, 2), ("bon:m:k1", "q2", 0, 0),
         ("bon:m:k16", "q1", 0, 2), ("bon:m:k16", "q2", 0, 2)],
        columns=["condition", "pair_id", "aspect_index", "coverage"],
    )  # fmt: skip
    low, high = scaling_curve(labelled, outputs)
    # k1: humans q1 1.5, q2 0 -> 0.75; judge 2 and 0 (q3 not usable) -> 1.0, one not usable
    assert (low["k"], low["human_mean"], low["judge_mean"], low["n_unusable"]) == (1, 0.75, 1.0, 1)
    # t interval of (1.5, 0): mean 0.75, sd 1.06066, se 0.75, qt(0.975, 1) = 12.7062 (R)
    assert low["human_ci"] == pytest.approx([0.75 - 12.7062 * 0.75, 0.75 + 12.7062 * 0.75], 1e-4)
    assert (high["k"], high["human_mean"], high["judge_mean"]) == (16, 2.0, 1.75)


def test_a_significant_order_whose_tau_interval_covers_0_is_not_a_confirmation():
    """Issue 33.6: five models in the benchmark's order (tau 1, exact p = 2/120 = 0.0167) whose
    human gains are too close to tell apart over questions and annotators. The sentence carries
    the interval and does not say "confirm"; the interval's ends are taus the resamples took
    (with 5 untied models, multiples of 0.2: the old percentile interpolated to -0.108). Fails
    on the old code (it said "confirm" and gave [-0.108, 1.0])."""
    gains = {"m1": 0.0, "m2": 0.15, "m3": 0.3, "m4": 0.45, "m5": 0.6}
    accuracy = {"m1": 0.60, "m2": 0.64, "m3": 0.69, "m4": 0.72, "m5": 0.76}
    outputs, comparisons, ratings = make_inputs(gains, seed=6)
    marks = pd.DataFrame(
        columns=["study", "pair_id", "annotator", "response", "aspect_index", "coverage"]
    )
    claim = downstream_summary(outputs, comparisons, ratings, marks, accuracy, n_boot=400)["claim"]
    human = claim["human"]
    assert human["kendall_tau"] == pytest.approx(1.0)
    assert human["p_tau"] == pytest.approx(2 / 120)
    assert human["kendall_tau_ci"] == pytest.approx([-0.2, 1.0])
    assert "the humans point the same way as, but do not confirm," in claim["sentence"]
    assert "(Kendall's tau 1.00, 95% interval [-0.20, 1.00], exact p = 0.0167" in claim["sentence"]
    assert "the human tau interval covers 0" in claim["sentence"]


def test_the_interval_ends_are_values_the_draws_took():
    draws = np.array([-0.2] * 3 + [0.0] * 3 + [0.2] * 50 + [0.6] * 40 + [1.0] * 4)
    assert attainable_interval(draws) == [-0.2, 1.0]  # never between two taus
    assert set(attainable_interval(draws)) <= set(draws.tolist())
