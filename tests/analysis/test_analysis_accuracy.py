"""Human accuracy and its Wilson interval."""

from __future__ import annotations

import numpy as np
import pytest

from analysis.accuracy import human_accuracy, wilson_interval

# R binom::binom.confint(x, n, methods = "wilson"), as recorded in statsmodels' test suite
# (statsmodels/stats/tests/results/results_proportion.py).
R_WILSON = {
    (18, 20): (0.6989663547715128, 0.972133518786232),
    (4, 20): (0.0806576625797981, 0.4160174322518935),
}


@pytest.mark.parametrize(("count", "n"), list(R_WILSON))
def test_wilson_interval_matches_r_binom(count, n):
    assert wilson_interval(count, n) == pytest.approx(list(R_WILSON[(count, n)]), rel=1e-9)


def test_ties_count_half_and_strict_share_reported():
    chosen = np.array([4.0, 3.5, 3.0, 2.0, 11 / 3])
    rejected = np.array([2.0, 3.0, 3.0, 3.0, 11 / 3])
    acc = human_accuracy(chosen, rejected)
    assert acc["ties_count_as"] == 0.5
    assert (acc["n_chosen_higher"], acc["n_ties"], acc["n_rejected_higher"]) == (2, 2, 1)
    assert acc["accuracy"] == pytest.approx((2 + 0.5 * 2) / 5)
    assert acc["strict_accuracy"] == pytest.approx(2 / 5)
    assert acc["ci95"] == pytest.approx(wilson_interval(2, 5))
    assert acc["ci95_of"] == "strict_accuracy"
    assert acc["reward_model_reference"] == 0.7594


def test_wilson_ci_of_strict_share_matches_r_for_18_of_20():
    chosen = np.r_[np.full(18, 4.0), np.full(2, 2.0)]
    acc = human_accuracy(chosen, np.full(20, 3.0))
    assert acc["strict_accuracy"] == 0.9
    assert acc["ci95"] == pytest.approx(list(R_WILSON[(18, 20)]), rel=1e-9)


def test_no_pairs():
    acc = human_accuracy(np.array([]), np.array([]))
    assert acc["accuracy"] is None
    assert acc["ci95"] is None
    assert acc["n_pairs"] == 0
