"""Paired tests against published worked examples, and against the reference libraries."""

from __future__ import annotations

import numpy as np
import pingouin
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.weightstats import ttost_paired

from analysis.inference.paired import (
    DIVERGES,
    INCONCLUSIVE,
    INSUFFICIENT,
    MIN_PAIRS,
    TIE,
    apply_holm,
    compare_dimension,
    hodges_lehmann,
    holm_adjust,
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


def test_all_zero_differences_are_insufficient_data_not_tie():
    x = np.array([3.0, 4.0, 2.5, 4.0, 3.5, 2.0, 5.0, 4.5, 1.0, 3.0, 2.5])
    result = compare_dimension(x, x.copy())
    assert result["wilcoxon_p"] == 1.0
    assert any("all paired differences are zero" in n for n in result["notes"])
    assert result["d_z"] is None
    assert result["tost_p"] is None
    assert result["verdict"] == INSUFFICIENT  # zero variance is never a "tie"


def test_too_few_pairs():
    result = compare_dimension(np.array([3.0]), np.array([2.0]))
    assert result["tost_p"] is None
    assert result["ci95"] is None
    assert result["verdict"] == INSUFFICIENT
    empty = compare_dimension(np.array([]), np.array([]))
    assert empty["mean_chosen"] is None
    assert empty["wilcoxon_p"] is None


def test_fewer_than_the_minimum_pairs_is_insufficient_even_when_tost_holds():
    rng = np.random.default_rng(1)
    x = rng.normal(3, 1, MIN_PAIRS - 1)
    y = x + rng.normal(0, 0.01, MIN_PAIRS - 1)
    result = compare_dimension(x, y, margin=0.5)
    assert result["tost_p"] < 0.001
    assert result["verdict"] == INSUFFICIENT
    assert compare_dimension(*_extend(x, y), margin=0.5)["verdict"] == TIE


def _extend(x, y):
    return np.append(x, [3.0, 3.5]), np.append(y, [3.01, 3.49])


def test_d_z_is_mean_over_sd_of_differences():
    x = np.array([4.0, 5.0, 3.0, 4.5, 5.0])
    y = np.array([3.0, 3.0, 3.5, 2.0, 4.0])
    d = x - y
    assert compare_dimension(x, y)["d_z"] == pytest.approx(d.mean() / d.std(ddof=1))


def _result(tost, superiority, n=30, rule="equivalence"):
    return {
        "n_pairs": n,
        "tost_p": tost,
        "superiority_p": superiority,
        "tost_p_adjusted": None,
        "superiority_p_adjusted": None,
        "rule": rule,
    }


@pytest.mark.parametrize(
    ("tost", "superiority", "rule", "expected"),
    [
        (0.01, 0.5, "equivalence", TIE),
        (0.01, 0.001, "equivalence", TIE),  # a general dimension: equivalence first
        (0.01, 0.001, "superiority", DIVERGES),  # rubric: a real effect never reads "tie"
        (0.01, 0.5, "superiority", TIE),
        (0.3, 0.001, "equivalence", DIVERGES),
        (0.3, 0.999, "superiority", INCONCLUSIVE),  # chosen lower is not "diverges"
        (0.3, 0.2, "superiority", INCONCLUSIVE),
        (None, None, "equivalence", INSUFFICIENT),
    ],
)
def test_verdict_rule(tost, superiority, rule, expected):
    assert verdict(_result(tost, superiority, rule=rule), 0.05) == expected


def test_verdict_needs_the_minimum_number_of_pairs():
    assert verdict(_result(0.001, 0.5, n=MIN_PAIRS - 1), 0.05) == INSUFFICIENT
    assert verdict(_result(0.001, 0.5, n=MIN_PAIRS), 0.05) == TIE


def test_holm_adjusts_one_family_across_domains_and_changes_verdicts():
    names = ["factuality", "relevance", "helpfulness", "rubric_alignment"]
    tost = [0.01, 0.04, 0.03, 0.005]
    domain_a = {d: {**_result(p, 0.5), "wilcoxon_p": 0.5} for d, p in zip(names, tost, strict=True)}
    domain_b = {d: {**_result(0.9, 0.9), "wilcoxon_p": 0.5} for d in names}
    apply_holm([domain_a, domain_b], 0.05)
    raw = tost + [0.9] * 4 + [0.5] * 4 + [0.9] * 4
    expected = multipletests(raw, method="holm")[1]
    assert [domain_a[d]["tost_p_adjusted"] for d in names] == pytest.approx(list(expected[:4]))
    assert [domain_b[d]["superiority_p_adjusted"] for d in names] == pytest.approx(
        list(expected[12:])
    )
    # 16 tests: 0.005 x 16 = 0.08, so nothing survives
    assert [domain_a[d]["verdict"] for d in names] == [INCONCLUSIVE] * 4


def test_study_checks():
    def dims(*verdicts):
        names = ["factuality", "relevance", "helpfulness", "rubric_alignment"]
        return {d: {"verdict": v} for d, v in zip(names, verdicts, strict=True)}

    assert study_checks(dims(TIE, TIE, TIE, DIVERGES), reliability_caveat=False) == {
        "general_quality_tie": True,
        "rubric_alignment_diverges": True,
        "validated": True,
        "insufficient_data": [],
        "reliability_caveat": False,
    }
    assert study_checks(dims(TIE, DIVERGES, TIE, DIVERGES))["validated"] is False
    assert study_checks(dims(TIE, TIE, TIE, TIE))["validated"] is False
    insufficient = study_checks(dims(INSUFFICIENT, TIE, TIE, DIVERGES))
    assert insufficient["validated"] is False
    assert insufficient["insufficient_data"] == ["factuality"]


# --- against GNU R 4.x (values printed with options(digits=15)) ------------------------------


def test_superiority_matches_r_one_sided_t_test():
    # x <- clinic$var1[1:15]; y <- clinic$var1[16:30]
    # t.test(x, y, paired=TRUE, alternative="greater")$p.value  -> 0.122599964856574
    # t.test(x, y, paired=TRUE, conf.level=0.9)$conf.int -> -0.0744336620516462 0.4037669953849797
    result = compare_dimension(CLINIC_VAR1[:15], CLINIC_VAR1[15:], margin=0.6, rubric=True)
    assert result["superiority_p"] == pytest.approx(0.122599964856574, rel=1e-10)
    assert result["equivalence_bound"] == pytest.approx(0.4037669953849797, rel=1e-10)
    assert result["verdict"] == TIE  # rubric: not superior, but TOST at 0.6 holds
    assert compare_dimension(CLINIC_VAR1[:15], CLINIC_VAR1[15:], margin=0.40)["verdict"] == (
        INCONCLUSIVE  # below the equivalence bound TOST fails
    )


def test_hodges_lehmann_and_sign_test_match_r():
    # w <- wilcox.test(hx, hy, paired=TRUE, conf.int=TRUE): (pseudo)median 0.46, CI 0.010 0.786
    # binom.test(sum(hx - hy > 0), sum(hx - hy != 0))$p.value -> 0.1796875
    result = compare_dimension(DEPRESSION_X, DEPRESSION_Y)
    assert result["hodges_lehmann"] == pytest.approx(0.46, abs=1e-9)
    assert result["hodges_lehmann_ci95"] == pytest.approx([0.010, 0.786], abs=1e-9)
    assert result["sign_p"] == pytest.approx(0.1796875, rel=1e-12)
    # clinic var1: wilcox.test(x, y, paired=TRUE, conf.int=TRUE): 0.2, CI -0.14 0.49 (exact)
    # binom.test(...)$p.value -> 0.60723876953125
    clinic = compare_dimension(CLINIC_VAR1[:15], CLINIC_VAR1[15:])
    assert clinic["hodges_lehmann"] == pytest.approx(0.2, abs=1e-9)
    assert clinic["hodges_lehmann_ci95"] == pytest.approx([-0.14, 0.49], abs=1e-9)
    assert clinic["sign_p"] == pytest.approx(0.60723876953125, rel=1e-12)


def test_d_z_interval_matches_r_noncentral_t_inversion():
    # d <- x - y; n <- 15; t0 <- mean(d)/sd(d)*sqrt(n)
    # uniroot(function(ncp) pt(t0, n-1, ncp) - 0.975, c(-20, 20), tol=1e-12)$root / sqrt(n)
    # and 0.025: d_z 0.313195653129743, CI -0.211021332073738 0.826873592935171
    result = compare_dimension(CLINIC_VAR1[:15], CLINIC_VAR1[15:])
    assert result["d_z"] == pytest.approx(0.313195653129743, rel=1e-10)
    assert result["d_z_ci95"] == pytest.approx([-0.211021332073738, 0.826873592935171], rel=1e-6)


def test_wilcoxon_is_exact_below_50_like_r_and_asymptotic_at_50():
    rng = np.random.default_rng(4)
    assert wilcoxon_test(rng.normal(0, 1, 49), np.zeros(49)).method == "exact"
    assert wilcoxon_test(rng.normal(0, 1, 50), np.zeros(50)).method == "asymptotic"


def test_hodges_lehmann_interval_covers_in_simulation():
    """Seeded: the 95% HL interval of a symmetric shift covers the true centre about 95%."""
    rng = np.random.default_rng(7)
    covered = 0
    for _ in range(200):
        _, ci = hodges_lehmann(rng.standard_t(5, 30) + 0.3)
        covered += ci[0] <= 0.3 <= ci[1]
    assert 0.91 <= covered / 200 <= 0.99


def test_holm_adjust_matches_r_p_adjust():
    # GNU R 4: p.adjust(c(0.01, 0.2, 0.03, 0.5, 0.04, 0.001, 0.04), method = "holm")
    # (a tie at 0.04, a product above the running maximum, and one capped by it)
    p = [0.01, 0.2, 0.03, 0.5, 0.04, 0.001, 0.04]
    r = [0.06, 0.4, 0.15, 0.5, 0.16, 0.007, 0.16]
    assert holm_adjust(p) == pytest.approx(r, abs=1e-15)
    assert holm_adjust([0.3, 0.6]) == [0.6, 0.6]  # made non-decreasing, capped at 1 below
    assert holm_adjust([0.7, 0.9]) == [1.0, 1.0]
    assert holm_adjust([]) == []
