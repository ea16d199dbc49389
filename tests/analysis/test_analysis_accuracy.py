"""Human accuracy and its Wilson interval."""

from __future__ import annotations

import numpy as np
import pytest

from analysis.core.accuracy import human_accuracy, wilson_interval

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


def test_issue_example_49_wins_7_ties_4_losses_three_ways_match_r_prop_test():
    """The issue's study: 81.7% strict, 87.5% ties as half, 92.5% ties dropped.

    R: prop.test(49, 60, correct=FALSE)$conf.int -> 0.700802462535320 0.894422031108024
       prop.test(7, 60, correct=FALSE)$conf.int  -> 0.0576772064005603 0.2217878802417085
       prop.test(49, 53, correct=FALSE)$conf.int -> 0.821415225163468 0.970260444913053
    """
    chosen = np.r_[np.full(49, 4.0), np.full(7, 3.0), np.full(4, 2.0)]
    acc = human_accuracy(chosen, np.full(60, 3.0))
    strict = acc["strict"]
    assert strict["value"] == pytest.approx(49 / 60)  # the headline: 81.7%
    assert strict["ci95"] == pytest.approx([0.700802462535320, 0.894422031108024], rel=1e-9)
    assert "strict" in strict["label"].lower()
    assert acc["ties"]["count"] == 7
    assert acc["ties"]["ci95"] == pytest.approx([0.0576772064005603, 0.2217878802417085], rel=1e-9)
    assert acc["ties_as_half"]["value"] == pytest.approx(0.875)
    dropped = acc["ties_dropped"]
    assert dropped["value"] == pytest.approx(49 / 53)
    assert dropped["n"] == 53
    assert dropped["ci95"] == pytest.approx([0.821415225163468, 0.970260444913053], rel=1e-9)
    assert acc["ci95"] == strict["ci95"]  # the old key: interval of the strict share
