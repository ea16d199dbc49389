"""Human accuracy and its Wilson interval."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from analysis.inference.accuracy import human_accuracy, wilson_interval

# R binom::binom.confint(x, n, methods = "wilson"), as recorded in statsmodels' test suite
# (statsmodels/stats/tests/results/results_proportion.py).
R_WILSON = {
    (18, 20): (0.6989663547715128, 0.972133518786232),
    (4, 20): (0.0806576625797981, 0.4160174322518935),
}


@pytest.mark.parametrize(("count", "n"), list(R_WILSON))
def test_wilson_interval_matches_r_binom(count, n):
    assert wilson_interval(count, n) == pytest.approx(list(R_WILSON[(count, n)]), rel=1e-9)


def test_single_annotator_headline_strict_and_ties_beside_it():
    """Five pairs, two annotators each: the headline is each judgement's credit (1 / 0.5 / 0)
    averaged (a balanced design: the crossed estimate is the plain mean)."""
    d = np.array([2.0, 1.0, 0.0, 1.0, 0.0, 0.0, -1.0, 1.0, 1.0, -2.0])
    pair = np.repeat(np.arange(5), 2)
    annotator = np.tile([0, 1], 5)
    acc = human_accuracy(d, pair, annotator)
    assert acc["ties_count_as"] == 0.5
    assert (acc["n_chosen_higher"], acc["n_ties"], acc["n_rejected_higher"]) == (5, 3, 2)
    assert acc["accuracy"] == pytest.approx((5 + 0.5 * 3) / 10)
    assert acc["strict_accuracy"] == pytest.approx(5 / 10)
    assert acc["ties"]["share"] == pytest.approx(3 / 10)
    assert acc["ci95_of"] == "accuracy"
    assert acc["headline"] == "single_annotator"
    assert acc["reward_model_reference"] == 0.7594
    # panel majority: pair votes (c,c) (t,c) (t,t) (r,c) (c,r) -> 1, half, half, half, half
    majority = acc["panel_majority"]
    assert majority["value"] == pytest.approx((1 + 0.5 * 4) / 5)
    assert majority["strict"] == pytest.approx(1 / 5)
    assert majority["ci95"] == pytest.approx(wilson_interval(3.0, 5))


def test_issue_example_49_wins_7_ties_4_losses_one_judgement_per_pair():
    """The issue's study, each pair judged once by a different annotator: the crossed model
    falls back to the one-sample t interval of the credits (R: t.test(credit)$conf.int), and the
    panel majority (k = 1) is the same share with a Wilson interval
    (R: prop.test(52.5, 60, correct=FALSE)$conf.int)."""
    d = np.r_[np.full(49, 1.0), np.full(7, 0.0), np.full(4, -1.0)]
    acc = human_accuracy(d, np.arange(60), np.arange(60))
    credit = np.r_[np.full(49, 1.0), np.full(7, 0.5), np.full(4, 0.0)]
    assert acc["accuracy"] == pytest.approx(0.875)
    t_ci = stats.t.interval(0.95, 59, loc=credit.mean(), scale=stats.sem(credit))
    assert acc["ci95"] == pytest.approx(list(t_ci), rel=1e-9)
    assert acc["strict"]["value"] == pytest.approx(49 / 60)
    assert acc["ties"]["count"] == 7
    assert acc["panel_majority"]["value"] == pytest.approx(0.875)
    assert acc["panel_majority"]["ci95"] == pytest.approx(wilson_interval(52.5, 60))
    assert acc["panel_majority"]["k"] == 1


def test_headline_does_not_grow_with_annotators_per_pair_but_the_majority_does():
    """Issue 23.4: on the same latent preferences the per-pair-mean win rate rose from 52% to
    77% between k = 1 and 9. The single-annotator figure estimates one number at every k; the
    panel majority grows with k."""
    rng = np.random.default_rng(4)
    n_pairs = 400
    latent = rng.normal(0.4, 0.6, n_pairs)
    headline, majority = [], []
    for k in (1, 3, 9):
        pair = np.repeat(np.arange(n_pairs), k)
        annotator = rng.integers(0, 30, len(pair))
        d = np.round(latent[pair] + rng.normal(0, 1.0, len(pair)))
        acc = human_accuracy(d, pair, annotator)
        headline.append(acc["accuracy"])
        majority.append(acc["panel_majority"]["value"])
    assert max(headline) - min(headline) < 0.04
    assert majority[2] > majority[0] + 0.08


def test_no_pairs():
    acc = human_accuracy(np.array([]), np.array([], dtype=int), np.array([], dtype=int))
    assert acc["accuracy"] is None
    assert acc["ci95"] is None
    assert acc["n_pairs"] == 0


def test_the_panel_majority_says_the_panels_as_rated():
    """Issue 34.5: a k = 3 study part-way read "Panel majority ..., k = 2" (the median)."""
    from analysis.inference.accuracy import panel_majority

    d = np.array([1.0, 1.0, -1.0, 1.0, 0.0, 2.0, 1.0, -1.0])
    pair = np.array([0, 0, 0, 1, 1, 2, 2, 3])  # 3, 2, 2 and 1 annotators
    label = panel_majority(d, pair)["label"]
    assert label.endswith(", 1 to 3 annotators per pair (median 2)")
    assert "k = " not in label
    even = panel_majority(d[:6], np.array([0, 0, 0, 1, 1, 1]))["label"]
    assert even.endswith(", 3 annotators per pair")
