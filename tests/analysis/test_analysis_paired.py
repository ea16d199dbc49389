"""Paired tests against published worked examples, and against the reference libraries."""

from __future__ import annotations

import numpy as np
import pingouin
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.weightstats import ttost_paired

from analysis.paired import (
    DIVERGES,
    INCONCLUSIVE,
    TIE,
    apply_holm,
    compare_dimension,
    study_checks,
    tost_p,
    verdict,
    wilcoxon_test,
)

# "clinic" data, columns var1 and var2, rows 1-15 vs 16-30; from statsmodels' test suite
# (statsmodels/stats/tests/test_tost.py), whose expected values come from R:
# equivalence::tost(-clinic$var1[16:30] + clinic$var1[1:15], eps=0.6) and
# t.test(..., paired=TRUE).
CLINIC_VAR1 = np.array(
    [
        2.84,
        2.51,
        2.41,
        2.95,
        3.14,
        3.79,
        4.14,
        3.85,
        3.02,
        3.45,
        5.37,
        3.81,
        4.19,
        3.16,
        3.84,
        2.60,
        2.82,
        2.18,
        3.46,
        4.01,
        3.04,
        3.47,
        4.06,
        2.91,
        3.59,
        4.51,
        3.16,
        3.86,
        3.31,
        3.02,
    ]
)
CLINIC_VAR2 = np.array(
    [
        4.00,
        3.26,
        4.14,
        3.42,
        3.25,
        4.34,
        4.97,
        4.31,
        3.11,
        3.41,
        5.02,
        4.21,
        4.59,
        5.30,
        4.32,
        3.76,
        3.66,
        3.65,
        3.60,
        3.48,
        2.87,
        3.24,
        3.92,
        3.99,
        4.21,
        4.21,
        3.31,
        3.61,
        2.97,
        2.73,
    ]
)

# Hollander & Wolfe (1973, p. 29f): Hamilton depression scale, first (x) and second (y) visit.
# R's wilcox.test(x, y, paired = TRUE) gives V = 40, p-value = 0.03906 (two-sided; the help
# page's alternative = "greater" gives 0.01953); R's regression tests check p = 0.0391 against
# Hollander & Wolfe (1999, 2nd ed., p. 40).
DEPRESSION_X = np.array([1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30])
DEPRESSION_Y = np.array([0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29])


def test_tost_clinic_var1_matches_r_equivalence():
    x, y = CLINIC_VAR1[:15], CLINIC_VAR1[15:]
    result = compare_dimension(x, y, margin=0.6)
    assert result["tost_p"] == pytest.approx(0.003166881489265175, rel=1e-10)
    assert result["mean_diff"] == pytest.approx(0.1646666666666667, rel=1e-12)
    # R t.test(paired=TRUE) 95% CI and the TOST (90%) CI from equivalence::tost
    assert result["ci95"] == pytest.approx([-0.1264911434745851, 0.4558244768079186], rel=1e-10)
    assert result["ci_tost"] == pytest.approx([-0.0744336620516462, 0.4037669953849797], rel=1e-10)
    assert result["verdict"] == TIE


def test_tost_clinic_var2_not_equivalent():
    x, y = CLINIC_VAR2[:15], CLINIC_VAR2[15:]
    result = compare_dimension(x, y, margin=0.6)
    assert result["tost_p"] == pytest.approx(0.4412034046017588, rel=1e-10)
    assert result["mean_diff"] == pytest.approx(0.5626666666666665, rel=1e-12)
    assert result["verdict"] != TIE


def test_wilcoxon_depression_matches_r():
    result = wilcoxon_test(DEPRESSION_X, DEPRESSION_Y)
    assert result.statistic == 40
    assert result.pvalue == pytest.approx(0.0390625, abs=1e-12)  # = 2 * 10 / 2**9
    assert round(result.pvalue, 4) == 0.0391
    assert result.method == "exact"
    full = compare_dimension(DEPRESSION_X, DEPRESSION_Y)
    assert full["wilcoxon_p"] == pytest.approx(0.0390625)
    assert full["wilcoxon_statistic"] == 40


@pytest.mark.parametrize("seed", range(5))
def test_tost_agrees_with_statsmodels_and_pingouin(seed):
    rng = np.random.default_rng(seed)
    chosen = rng.integers(1, 6, 80) + rng.normal(0, 0.3, 80)
    rejected = chosen - rng.normal(0.1 * seed, 0.8, 80)
    ours = tost_p(chosen, rejected, 0.5)
    assert ours == pytest.approx(ttost_paired(chosen, rejected, -0.5, 0.5)[0], rel=1e-12)
    pg = pingouin.tost(chosen, rejected, bound=0.5, paired=True).at["TOST", "pval"]
    assert ours == pytest.approx(pg, rel=1e-9)


@pytest.mark.parametrize("seed", range(5))
def test_wilcoxon_agrees_with_scipy_on_likert_means(seed):
    """Means of two annotators are exact in binary: scipy on (chosen, rejected) agrees."""
    rng = np.random.default_rng(seed)
    chosen = rng.integers(1, 6, (120, 2)).mean(axis=1)
    rejected = rng.integers(1, 6, (120, 2)).mean(axis=1)
    ours = wilcoxon_test(chosen, rejected)
    assert ours.method == "asymptotic"  # ties and zeros
    ref = stats.wilcoxon(chosen, rejected, correction=True, method="asymptotic")
    assert ours.pvalue == pytest.approx(ref.pvalue, rel=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_wilcoxon_small_samples_without_ties_use_exact(seed):
    rng = np.random.default_rng(seed)
    chosen, rejected = rng.normal(3, 1, 20), rng.normal(3, 1, 20)
    ours = wilcoxon_test(chosen, rejected)
    assert ours.method == "exact"
    assert ours.pvalue == pytest.approx(stats.wilcoxon(chosen, rejected, method="exact").pvalue)


def test_wilcoxon_means_of_three_tie_after_rounding():
    """Means of three annotators carry float noise (7/3 - 6/3 != 5/3 - 4/3 in binary); ties
    are restored by rounding the differences, as scipy on the rounded differences shows."""
    rng = np.random.default_rng(0)
    chosen = rng.integers(1, 6, (120, 3)).mean(axis=1)
    rejected = rng.integers(1, 6, (120, 3)).mean(axis=1)
    ours = wilcoxon_test(chosen, rejected)
    d = np.round(chosen - rejected, 9)
    ref = stats.wilcoxon(d, correction=True, method="asymptotic")
    assert ours.pvalue == pytest.approx(ref.pvalue, rel=1e-12)


def test_wilcoxon_ties_from_float_noise_are_ties():
    chosen = np.array([11, 7, 5, 4, 6]) / 3
    rejected = np.array([8, 4, 2, 3, 3]) / 3
    result = wilcoxon_test(chosen, rejected)
    assert result.method == "asymptotic"  # differences 1, 1, 1, 1/3, 1: tied
    d = np.round(chosen - rejected, 9)
    assert result.pvalue == pytest.approx(
        stats.wilcoxon(d, correction=True, method="asymptotic").pvalue
    )


def test_all_zero_differences_give_p_one_with_note():
    x = np.array([3.0, 4.0, 2.5, 4.0])
    result = compare_dimension(x, x.copy())
    assert result["wilcoxon_p"] == 1.0
    assert any("all paired differences are zero" in n for n in result["notes"])
    assert result["d_z"] is None
    assert result["verdict"] == TIE  # zero variance at zero difference: TOST p = 0


def test_too_few_pairs():
    result = compare_dimension(np.array([3.0]), np.array([2.0]))
    assert result["tost_p"] is None
    assert result["ci95"] is None
    assert result["verdict"] == INCONCLUSIVE
    empty = compare_dimension(np.array([]), np.array([]))
    assert empty["mean_chosen"] is None
    assert empty["wilcoxon_p"] is None


def test_d_z_is_mean_over_sd_of_differences():
    x = np.array([4.0, 5.0, 3.0, 4.5, 5.0])
    y = np.array([3.0, 3.0, 3.5, 2.0, 4.0])
    d = x - y
    assert compare_dimension(x, y)["d_z"] == pytest.approx(d.mean() / d.std(ddof=1))


@pytest.mark.parametrize(
    ("tost", "wilcox", "diff", "expected"),
    [
        (0.01, 0.5, 0.1, TIE),
        (0.01, 0.001, 0.2, TIE),  # equivalence takes precedence
        (0.3, 0.001, 1.2, DIVERGES),
        (0.3, 0.001, -1.2, INCONCLUSIVE),  # chosen lower is not "diverges"
        (0.3, 0.2, 0.4, INCONCLUSIVE),
        (None, None, None, INCONCLUSIVE),
    ],
)
def test_verdict_rule(tost, wilcox, diff, expected):
    assert verdict(tost, wilcox, diff, 0.05) == expected


def test_holm_matches_hand_computation_and_changes_verdicts():
    results = {
        d: {
            "tost_p": p,
            "wilcoxon_p": 0.5,
            "mean_diff": 0.1,
            "tost_p_adjusted": None,
            "wilcoxon_p_adjusted": None,
            "verdict": TIE,
        }
        for d, p in zip(
            ["factuality", "relevance", "helpfulness", "rubric_alignment"],
            [0.01, 0.04, 0.03, 0.005],
            strict=True,
        )
    }
    apply_holm(results, 0.05)
    # sorted 0.005, 0.01, 0.03, 0.04 -> x4, x3, x2, x1 with running max: .02, .03, .06, .06
    adjusted = [results[d]["tost_p_adjusted"] for d in results]
    assert adjusted == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert adjusted == pytest.approx(
        list(multipletests([0.01, 0.04, 0.03, 0.005], method="holm")[1])
    )
    assert [results[d]["verdict"] for d in results] == [TIE, INCONCLUSIVE, INCONCLUSIVE, TIE]


def test_study_checks():
    def dims(*verdicts):
        names = ["factuality", "relevance", "helpfulness", "rubric_alignment"]
        return {d: {"verdict": v} for d, v in zip(names, verdicts, strict=True)}

    assert study_checks(dims(TIE, TIE, TIE, DIVERGES)) == {
        "general_quality_tie": True,
        "rubric_alignment_diverges": True,
        "validated": True,
    }
    assert study_checks(dims(TIE, DIVERGES, TIE, DIVERGES))["validated"] is False
    assert study_checks(dims(TIE, TIE, TIE, TIE)) == {
        "general_quality_tie": True,
        "rubric_alignment_diverges": False,
        "validated": False,
    }
