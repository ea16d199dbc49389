"""The crossed mixed model: against statsmodels' MixedLM, and on annotator effects."""

from __future__ import annotations

import numpy as np
import pytest

from analysis.core.coded import encode_ratings
from analysis.inference.mixed import fit_crossed, rating_level
from analysis.report import build_report
from analysis.simulate import simulate_ratings
from annotate.vocabulary import DIMENSIONS

RUBRIC = DIMENSIONS.index("rubric_alignment")


def _rubric_data(n_pairs, per_pair, pool, seed=1):
    coded = encode_ratings(
        simulate_ratings(n_pairs, per_pair, {"rubric_alignment": 0.5}, seed=seed, n_annotators=pool)
    )
    d, side, pair, annotator = rating_level(coded, RUBRIC)
    return d, np.column_stack([np.ones(len(d)), side]), pair, annotator


def test_matches_statsmodels_mixedlm_with_crossed_variance_components():
    """statsmodels 0.14, REML, on the same data (takes ~50 s there, so recorded here):
    smf.mixedlm("d ~ s", data, groups="g", vc_formula={"pair": "0+C(pair)",
    "ann": "0+C(ann)"}).fit(reml=True) with data from simulate_ratings(300, 3,
    {"rubric_alignment": 0.5}, seed=1, n_annotators=8): Intercept 0.45485795395946815,
    SE 0.04330307991756526, vcomp [ann 1.97e-07, pair 0.176694704]."""
    fit = fit_crossed(*_rubric_data(300, 3, 8))
    assert fit.beta[0] == pytest.approx(0.45485795395946815, abs=1e-5)
    assert np.sqrt(fit.cov[0, 0]) == pytest.approx(0.04330307991756526, rel=2e-3)
    assert fit.s2_pair == pytest.approx(0.176694704, rel=5e-3)
    assert fit.s2_annotator < 1e-4
    assert fit.converged


def test_finds_a_better_optimum_where_statsmodels_does_not_converge():
    """simulate_ratings(90, 5, ..., n_annotators=5): statsmodels warns that its optimisation
    failed and stops at s2_residual 1.2711293544408009, s2_pair 0.11088659, s2_annotator
    0.03646; our REML criterion is lower at our optimum."""
    data = _rubric_data(90, 5, 5)
    fit = fit_crossed(*data)

    def criterion(s2e: float, s2p: float, s2a: float) -> float:
        """The fit's REML criterion at variances (residual, pair, annotator)."""
        relative = {"pair": np.sqrt(s2p / s2e), "annotator": np.sqrt(s2a / s2e)}
        theta = [relative[name] for name in fit.reml.factors]
        return fit.reml.deviance(np.array([*theta, np.sqrt(s2e)]))

    theirs = criterion(1.2711293544408009, 0.11088659, 0.03646)
    ours = criterion(fit.s2_residual, fit.s2_pair, fit.s2_annotator)
    assert ours < theirs


def test_annotators_who_favour_chosen_widen_the_interval():
    """One of five annotators adds a point to every chosen rubric score: the per-pair t-test
    (now the sensitivity analysis) reads that as a rubric effect; the mixed model, and the
    primary inference over pairs and annotators (schema 3), see one annotator's habit, not
    enough evidence about annotators in general."""
    df = simulate_ratings(120, 5, {}, seed=4, n_annotators=5)
    biased = (df["annotator"] == "annotator_0000") & (df["response"] == "chosen")
    df.loc[biased, "score"] = (df.loc[biased, "score"] + 1).clip(upper=5)
    report = build_report(df, n_boot=0)
    primary = report["dimensions"]["rubric_alignment"]
    mixed = report["mixed_model"]["dimensions"]["rubric_alignment"]
    assert mixed["var_annotator"] > 0.05
    per_pair = primary["sensitivity"]
    width = mixed["ci95"][1] - mixed["ci95"][0]
    assert width > 2 * (per_pair["ci95"][1] - per_pair["ci95"][0])
    assert primary["ci95"][1] - primary["ci95"][0] > 2 * (per_pair["ci95"][1] - per_pair["ci95"][0])
    assert mixed["estimate"] == pytest.approx(per_pair["mean_diff"], abs=0.05)
    assert per_pair["verdict"] == "diverges"
    assert mixed["verdict"] != "diverges"
    assert primary["verdict"] != "diverges"
    assert report["checks"]["validated"] is False


def test_too_few_pairs_is_insufficient():
    report = build_report(simulate_ratings(5, 3, {}, seed=1), n_boot=0)
    assert {r["verdict"] for r in report["mixed_model"]["dimensions"].values()} == {
        "insufficient_data"
    }


def test_a_report_without_the_mixed_model_has_the_same_other_figures(small_study):
    from analysis.inference.mixed import NOT_FITTED
    from analysis.report import build_report

    full = build_report(small_study, n_boot=0)
    quick = build_report(small_study, n_boot=0, mixed=False)
    assert quick["mixed_model"]["note"] == NOT_FITTED
    assert quick["mixed_model"]["disagreements"] == []
    assert all(d["estimate"] is None for d in quick["mixed_model"]["dimensions"].values())
    assert full["mixed_model"]["note"] != NOT_FITTED
    assert {k: v for k, v in quick.items() if k != "mixed_model"} == {
        k: v for k, v in full.items() if k != "mixed_model"
    }


def test_a_large_design_is_not_left_at_a_zero_pair_variance():
    """2,100 pair-ratings (over crossed.SMALL_DATA): L-BFGS-B alone stops at theta = 0, a
    stationary point of the criterion, with pair variance 0; fit_reml restarts there and the
    mixed model finds the optimum, about 0.2 (checked against lmerTest in test_crossed)."""
    coded = encode_ratings(simulate_ratings(700, 3, {}, seed=1, n_annotators=120))
    d, _, pair, annotator = rating_level(coded, 0)
    fit = fit_crossed(d, np.ones((len(d), 1)), pair, annotator)
    assert fit.s2_pair > 0.1


def test_superiority_is_read_against_the_smallest_effect_not_0():
    """Issue 33.6: rubric alignment 0.35 points better with a smallest effect of interest of
    0.5. The primary cannot say chosen exceeds rejected by more than 0.5; the mixed model read
    superiority as "lower end above 0", so it said "diverges" and listed a disagreement that was
    only its different null. Now both test against the smallest effect (fails on the old code:
    the mixed verdict was diverges with lower end 0.111 < 0.5)."""
    ratings = simulate_ratings(80, 3, {"rubric_alignment": 0.35}, seed=0, n_annotators=9)
    report = build_report(ratings, n_boot=0, domains=False)
    primary = report["dimensions"]["rubric_alignment"]
    mixed = report["mixed_model"]["dimensions"]["rubric_alignment"]
    assert primary["sesoi"] == 0.5
    assert 0 < mixed["ci_tost"][0] < 0.5  # above 0, not above the smallest effect
    assert mixed["verdict"] != "diverges"
    assert "rubric_alignment" not in report["mixed_model"]["disagreements"]
    strict = build_report(ratings, n_boot=0, domains=False, smallest_effect=0.05)
    assert strict["mixed_model"]["dimensions"]["rubric_alignment"]["verdict"] == "diverges"
