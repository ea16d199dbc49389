"""The study-sizing planner (`analysis.inference.sizing`): the design's variance and df against
a dense REML computation and GNU R, the power against R's power.t.test and against a seeded
simulation of the analysis itself, the pilot's profile limits.

R (run live where lmerTest is installed, as in test_crossed.py; the recorded values were
obtained with R 4.x):

* the df of a balanced fully crossed design equals lmerTest's Satterthwaite df on data whose
  REML estimates are the planning values (for balanced data the observed and expected REML
  information agree at an interior optimum);
* the residual SD's profile limit equals the upper end of lme4's
  ``confint(fit, method = "profile", level = 0.6)`` (one-sided 80%). lme4's profile of a REML fit
  centres the random-effect SDs away from the REML estimate (on this data its zeta is 0 at
  sd_pair 0.3406 while VarCorr gives 0.3572), so those two limits are checked by their
  definition instead: the profiled criterion is z^2 above its minimum there, and no point of a
  grid over the other two SDs is lower.
"""

from __future__ import annotations

import functools
import json
import subprocess
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from analysis.inference.crossed import (
    crossed_mean,
)
from analysis.inference.reestimate import with_internal_pilot
from analysis.inference.reml import (
    fit_reml,
)
from analysis.inference.sizing import (
    planning_variances,
    size_study,
)
from analysis.inference.sizing_check import (
    SCENARIOS,
    draw,
    run,
)
from analysis.inference.sizing_design import (
    ANNOTATOR_MODEL,
    CROSSED_MODEL,
    PAIR_MODEL,
    T_MODEL,
    Design,
    Targets,
    analysis_model,
    cyclic_design,
    design_df,
    design_variance,
    pairs_for_alpha,
    power_at,
)
from analysis.inference.sizing_pilot import (
    Components,
    Pilot,
    component_covariance,
    pilot_components,
    pilot_from_differences,
    profile_upper_limits,
)
from analysis.inference.sizing_text import (
    sizing_text,
)
from analysis.methods import PLANNER_STATEMENTS
from analysis.simulate import simulate_ratings
from annotate.vocabulary import DIMENSIONS, GENERAL_DIMENSIONS, PERSONAL_DIMENSION
from tests.helpers.r_helpers import needs_lmertest


def _dense_satterthwaite(c: Components, design: Design) -> tuple[float, float]:
    """Var(mu_hat) = 1 / 1'V^-1 1 and Satterthwaite's df 2 Var^2 / (g' I^-1 g) with the
    REML information I_ij = 1/2 tr(P V_i P V_j), all formed as N x N matrices."""
    pair, annotator = cyclic_design(design)
    n = len(pair)
    z_p = np.zeros((n, design.n_pairs))
    z_p[np.arange(n), pair] = 1
    z_a = np.zeros((n, design.pool))
    z_a[np.arange(n), annotator] = 1
    parts = [np.eye(n), z_p @ z_p.T, z_a @ z_a.T]
    v = c.residual * parts[0] + c.pair * parts[1] + c.annotator * parts[2]
    v_inv = np.linalg.inv(v)
    one = np.ones(n)
    w = v_inv @ one
    p = v_inv - np.outer(w, w) / (one @ w)
    info = np.array([[0.5 * np.trace(p @ a @ p @ b) for b in parts] for a in parts])
    variance = 1 / (one @ w)
    gradient = np.array([w @ part @ w for part in parts]) * variance**2
    return float(variance), float(2 * variance**2 / (gradient @ np.linalg.inv(info) @ gradient))


@pytest.mark.parametrize(
    "design",
    [Design(12, 3, 6), Design(20, 2, 8), Design(10, 4, 4), Design(24, 3, 12), Design(15, 5, 25)],
)
def test_variance_and_df_match_the_dense_reml_computation(design):
    c = Components(pair=0.3, annotator=0.1, residual=0.8)
    variance, df = _dense_satterthwaite(c, design)
    assert analysis_model(design) == CROSSED_MODEL
    assert design_variance(c, design) == pytest.approx(variance, rel=1e-12)
    assert design_variance(c, design) == pytest.approx(
        c.pair / design.n_pairs + c.annotator / design.pool + c.residual / design.ratings
    )
    assert design_df(c, design) == pytest.approx(df, rel=1e-9)


def test_cyclic_design_is_balanced_and_never_repeats_an_annotator_in_a_pair():
    for design in (Design(12, 3, 6), Design(8, 3, 4), Design(10, 4, 4), Design(14, 2, 4)):
        pair, annotator = cyclic_design(design)
        assert set(np.bincount(annotator)) == {design.per_annotator}
        cells = set(zip(pair.tolist(), annotator.tolist(), strict=True))
        assert len(cells) == design.ratings
    for design in (Design(31, 3, 12), Design(13, 5, 48), Design(11, 2, 6)):
        pair, annotator = cyclic_design(design)  # unequal: floor or ceil of n k / m each
        counts = np.bincount(annotator, minlength=design.pool)
        assert set(counts) <= {design.ratings // design.pool, -(-design.ratings // design.pool)}
        cells = set(zip(pair.tolist(), annotator.tolist(), strict=True))
        assert len(cells) == design.ratings


def test_fully_crossed_df_is_the_classical_satterthwaite_of_the_mean_squares():
    """m = k: Var = (MS_p + MS_a - MS_e) / (n m), df = (sum)^2 / (MS_p^2 / (n - 1) + MS_a^2 /
    (m - 1) + MS_e^2 / ((n - 1)(m - 1))) at the expected mean squares."""
    c, n, m = Components(0.3, 0.1, 0.8), 10, 4
    ms_p, ms_a, ms_e = c.residual + m * c.pair, c.residual + n * c.annotator, c.residual
    expected = (ms_p + ms_a - ms_e) ** 2 / (
        ms_p**2 / (n - 1) + ms_a**2 / (m - 1) + ms_e**2 / ((n - 1) * (m - 1))
    )
    assert design_df(c, Design(n, m, m)) == pytest.approx(expected, rel=1e-10)


def test_one_factor_designs_use_the_df_of_the_model_the_analysis_fits():
    c = Components(0.3, 0.2, 0.9)
    assert (analysis_model(Design(40, 1, 40)), design_df(c, Design(40, 1, 40))) == (T_MODEL, 39)
    assert (analysis_model(Design(40, 1, 8)), design_df(c, Design(40, 1, 8))) == (
        ANNOTATOR_MODEL,
        7,
    )
    assert (analysis_model(Design(30, 3, 90)), design_df(c, Design(30, 3, 90))) == (
        PAIR_MODEL,
        29,
    )
    # 31 x 3 = 93 ratings over 12 annotators (7 or 8 each): the df of 28 pairs, the largest
    # equal design below, and the plain mean's variance (an upper bound on the GLS one)
    assert design_df(c, Design(31, 3, 12)) == design_df(c, Design(28, 3, 12))
    squares = 9 * 8**2 + 3 * 7**2
    assert design_variance(c, Design(31, 3, 12)) == pytest.approx(
        c.pair / 31 + c.annotator * squares / 93**2 + c.residual / 93
    )
    with pytest.raises(ValueError, match="without a pair"):
        design_variance(c, Design(3, 2, 12))


def _targets(rubric: float, alpha: float = 0.05) -> Targets:
    true = dict.fromkeys(GENERAL_DIMENSIONS, 0.0) | {PERSONAL_DIMENSION: rubric}
    return Targets(margin=0.5, smallest_effect=0.5, alpha=alpha, target=0.8, true_diff=true)


def test_degenerate_designs_match_r_power_t_test():
    """One annotator per pair, each rating one pair (the analysis is a t-test on n values of
    variance s2_p + s2_a + s2_e), and k = 3 annotators each rating one pair (a one-way model:
    the t-test on pair means, SD^2 = s2_p + (s2_a + s2_e) / 3). R:
    power.t.test(n = 40, delta = 0.5, sd = sqrt(1.4), sig.level = 0.05, type = "one.sample",
      alternative = "one.sided")$power = 0.836686312500959
    power.t.test(n = 30, delta = 0.5, sd = sqrt(0.3 + 1.1 / 3), sig.level = 0.05,
      type = "one.sample", alternative = "one.sided")$power = 0.948391681321799
    power.t.test(n = 30, delta = 0.3, sd = sqrt(0.3 + 1.1 / 3), sig.level = 0.025,
      type = "paired", alternative = "one.sided")$power = 0.494289472275067
    (delta = planned rubric difference - smallest effect of interest)."""
    c = dict.fromkeys(DIMENSIONS, Components(pair=0.3, annotator=0.2, residual=0.9))
    one = power_at(c, Design(40, 1, 40), _targets(1.0))["tests"][PERSONAL_DIMENSION]
    assert one["power"] == pytest.approx(0.836686312500959, rel=1e-9)
    panel = power_at(c, Design(30, 3, 90), _targets(1.0))["tests"][PERSONAL_DIMENSION]
    assert panel["power"] == pytest.approx(0.948391681321799, rel=1e-9)
    strict = power_at(c, Design(30, 3, 90), _targets(0.8, alpha=0.025))
    assert strict["tests"][PERSONAL_DIMENSION]["power"] == pytest.approx(
        0.494289472275067, rel=1e-9
    )


def _balanced_data(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    n, m = 30, 4
    pair, annotator = np.repeat(np.arange(n), m), np.tile(np.arange(m), n)
    y = 0.6 + rng.normal(0, 0.5, n)[pair] + rng.normal(0, 0.4, m)[annotator]
    return y + rng.normal(0, 0.8, n * m), pair, annotator


@needs_lmertest
def test_fully_crossed_df_matches_lmertest(tmp_path: Path):
    """lmerTest's Satterthwaite df of the intercept on a balanced panel (30 pairs x 4
    annotators) = the planner's df at the REML estimates of that data."""
    y, pair, annotator = _balanced_data(4)
    fit = fit_reml(y, np.ones((len(y), 1)), pair, annotator)
    assert min(fit.s2_pair, fit.s2_annotator) > 0.01  # interior: the identity holds
    r_df = _lmer_figure(tmp_path, y, pair, annotator, "coef(summary(f))[1, 'df']")
    c = Components(fit.s2_pair, fit.s2_annotator, fit.s2_residual)
    assert design_df(c, Design(30, 4, 4)) == pytest.approx(r_df, rel=2e-4)


def _lmer_figure(
    folder: Path, y: np.ndarray, pair: np.ndarray, annotator: np.ndarray, figure: str
) -> float:
    """One figure of R's lmer(y ~ 1 + (1 | p) + (1 | a), REML) fit f on the data (R
    expression ``figure``), run live."""
    data = folder / "d.csv"
    np.savetxt(
        data, np.column_stack([y, pair, annotator]), delimiter=",", header="y,p,a", comments=""
    )
    script = (
        "suppressMessages(library(lmerTest)); d <- read.csv('" + str(data) + "');"
        "d$p <- factor(d$p); d$a <- factor(d$a);"
        "f <- lmer(y ~ 1 + (1 | p) + (1 | a), data = d, REML = TRUE);"
        f"cat(sprintf('%.12g', {figure}))"
    )
    done = subprocess.run(["Rscript", "-e", script], capture_output=True, text=True, check=True)
    return float(done.stdout)


def _profile_data() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """80 pairs x 3 of a pool of 8 (seeded; estimated annotator SD on the boundary, 0)."""
    rng = np.random.default_rng(11)
    pair = np.repeat(np.arange(40), 3)
    annotator = np.concatenate([rng.choice(8, 3, replace=False) for _ in range(40)])
    y = 0.4 + rng.normal(0, 0.6, 40)[pair] + rng.normal(0, 0.3, 8)[annotator]
    return np.round(y + rng.normal(0, 0.9, len(pair))), pair, annotator


def test_profile_limits_are_where_the_profiled_criterion_rises_by_z_squared():
    y, pair, annotator = _profile_data()
    fit = fit_reml(y, np.ones((len(y), 1)), pair, annotator)
    z = float(stats.norm.ppf(0.8))
    limits = profile_upper_limits(fit, z)
    best = np.sqrt([fit.s2_pair, fit.s2_annotator, fit.s2_residual])
    assert all(limit > b for limit, b in zip(limits, best, strict=True))
    position = {name: i for i, name in enumerate(fit.factors)}

    def deviance(sds: np.ndarray) -> float:
        theta = np.zeros(2)
        theta[position["pair"]] = sds[0] / sds[2]
        theta[position["annotator"]] = sds[1] / sds[2]
        return float(fit.deviance(np.concatenate([theta, [sds[2]]])))

    floor = deviance(best)
    grid = np.linspace(0.0, 1.6, 81)
    sigmas = np.linspace(0.6, 1.6, 101)
    for which, limit in enumerate(limits):
        axes = [grid, grid, sigmas]
        axes[which] = np.array([limit])
        lowest = min(deviance(np.array(p)) for p in np.stack(np.meshgrid(*axes), -1).reshape(-1, 3))
        assert lowest - floor >= z * z - 1e-6  # nothing on the grid below the profile
        assert lowest - floor == pytest.approx(z * z, abs=0.02)  # and the grid gets close


@needs_lmertest
def test_residual_profile_limit_matches_lme4(tmp_path: Path):
    y, pair, annotator = _profile_data()
    fit = fit_reml(y, np.ones((len(y), 1)), pair, annotator)
    limits = profile_upper_limits(fit, float(stats.norm.ppf(0.8)))
    ci = "suppressMessages(confint(f, level = 0.6, method = 'profile', oldNames = FALSE))"
    r_limit = _lmer_figure(tmp_path, y, pair, annotator, ci + "['sigma', 2]")
    assert limits[2] == pytest.approx(r_limit, rel=1e-4)


def _simulated_power(
    c: Components, design: Design, delta: float, test: str, runs: int, seed: int
) -> float:
    """Share of seeded studies of the stated model (normal pair, annotator and residual parts
    at ``c``) whose primary analysis (crossed_mean) passes ``test`` at alpha 0.05."""
    rng = np.random.default_rng(seed)
    pair, annotator = cyclic_design(design)
    passed = 0
    for _ in range(runs):
        annotators = rng.permutation(design.pool)[annotator]  # who is who: random
        y = (
            delta
            + rng.normal(0, np.sqrt(c.pair), design.n_pairs)[pair]
            + rng.normal(0, np.sqrt(c.annotator), design.pool)[annotators]
            + rng.normal(0, np.sqrt(c.residual), design.ratings)
        )
        fit = crossed_mean(y, pair, annotators)
        p = fit.p_greater(0.5) if test == "superiority" else fit.tost_p(0.5)
        passed += p is not None and p < 0.05
    return passed / runs


@pytest.mark.parametrize(
    ("design", "test", "delta"),
    [(Design(24, 3, 12), "superiority", 0.95), (Design(40, 2, 8), "tost", 0.1)],
)
def test_planned_power_matches_a_simulation_of_the_analysis(design, test, delta):
    """The planned power of one test at a crossed design (moderate, so the check has teeth)
    within 4 Monte Carlo SEs of the share of 200 seeded simulated studies whose crossed_mean
    passes it (seeded: superiority planned 0.801, simulated 0.805; TOST planned 0.674,
    simulated 0.620)."""
    c = Components(pair=0.25, annotator=0.08, residual=0.9)
    true = dict.fromkeys(GENERAL_DIMENSIONS, delta) | {PERSONAL_DIMENSION: delta}
    targets = Targets(0.5, 0.5, 0.05, 0.8, true)
    dim = PERSONAL_DIMENSION if test == "superiority" else GENERAL_DIMENSIONS[0]
    planned = power_at(dict.fromkeys(DIMENSIONS, c), design, targets)["tests"][dim]["power"]
    assert 0.4 < planned < 0.95
    runs = 200
    simulated = _simulated_power(c, design, delta, test, runs, seed=5)
    assert abs(simulated - planned) < 4 * np.sqrt(planned * (1 - planned) / runs)


@functools.cache
def _pilot() -> Pilot:
    """The pilot six tests size from: fitted once (~1 CPU s); frozen, and the tests only read
    it (`replace` makes their changed copies)."""
    return pilot_components(
        simulate_ratings(40, 3, {"rubric_alignment": 1.2}, seed=3, n_annotators=8)
    )


def test_recommended_design_validates_at_the_target_rate_in_simulation():
    """The recommendation (k = 3 from a pool of 12) for a pilot, then 100 seeded studies of
    the stated model at the pilot's estimates (the plan's variance is their upper limit, so
    above), analysed as the report does (crossed_mean per dimension, the four tests):
    validated at least as often as the target, within Monte Carlo error (the Bonferroni bound
    and the upper limit make it conservative)."""
    pilot = _pilot()
    result = size_study(pilot, margin=0.5, rubric_diff=1.2, per_pair=(3,), pools=(12,))
    best = result["recommended"]
    assert best is not None
    assert best["joint_power_bound"] >= 0.8
    design = Design(best["n_pairs"], best["per_pair"], best["pool"])
    runs, rng = 100, np.random.default_rng(9)
    pair, annotator = cyclic_design(design)
    validated = 0
    for _ in range(runs):
        ok = True
        for dim in DIMENSIONS:
            c = pilot.estimate[dim]
            y = (
                result["true_diff"][dim]
                + rng.normal(0, np.sqrt(c.pair), design.n_pairs)[pair]
                + rng.normal(0, np.sqrt(c.annotator), design.pool)[annotator]
                + rng.normal(0, np.sqrt(c.residual), design.ratings)
            )
            fit = crossed_mean(y, pair, annotator)
            p = fit.p_greater(0.5) if dim == PERSONAL_DIMENSION else fit.tost_p(0.5)
            ok = ok and p is not None and p < 0.05
            if not ok:
                break
        validated += ok
    assert validated / runs >= 0.8 - 3 * np.sqrt(0.8 * 0.2 / runs)


def test_size_study_says_what_it_assumed_and_what_cannot_be_reached():
    pilot = _pilot()
    result = size_study(pilot, margin=0.5, rubric_diff=1.2, per_pair=(2, 3), pools=(6, 12))
    json.dumps(result, allow_nan=False)
    assert result["confidence"] == 0.7
    for dim in DIMENSIONS:
        low, high = result["components"][dim]["estimate"], result["components"][dim]["upper"]
        assert high["pair"] > low["pair"]
        assert high["annotator"] > low["annotator"]
        assert high["residual"] > low["residual"]
    ratings = [d["ratings"] for d in result["designs"]]
    assert ratings == sorted(ratings)
    assert result["recommended"] == result["designs"][0]
    for d in result["designs"]:
        assert d["ratings"] >= d["pool"]
        assert d["joint_power_bound"] >= 0.8
    text = sizing_text(result)
    assert "70% upper confidence limit" in text
    assert "Var = s2_pair / n + s2_annotator / m + s2_residual / (n k)" in text
    assert "Recommended:" in text
    at_sesoi = size_study(pilot, margin=0.5, rubric_diff=0.5)
    assert at_sesoi["designs"] == []
    assert at_sesoi["recommended"] is None
    assert any("must exceed the smallest effect" in n for n in at_sesoi["notes"])
    default = size_study(pilot, margin=0.5, per_pair=(3,), pools=(12,))
    se, df = pilot.mean_se[PERSONAL_DIMENSION], pilot.mean_df[PERSONAL_DIMENSION]
    lower = pilot.mean[PERSONAL_DIMENSION] - stats.t.ppf(0.8, df) * se
    assert default["true_diff"][PERSONAL_DIMENSION] == pytest.approx(lower, rel=1e-12)
    assert lower < pilot.mean[PERSONAL_DIMENSION]
    assert default["rubric_diff_source"] == "pilot lower limit"
    assert any("80% lower confidence limit of the pilot's estimate" in n for n in default["notes"])


def test_a_pilot_that_cannot_separate_the_components_is_refused():
    with pytest.raises(ValueError, match="two annotators"):
        pilot_components(simulate_ratings(30, 1, {}, seed=1, n_annotators=6))


def test_cli_size_text_json_and_errors(tmp_path: Path):
    from typer.testing import CliRunner

    from analysis.cli import app

    pilot = tmp_path / "pilot.csv"
    simulate_ratings(40, 3, {"rubric_alignment": 1.2}, seed=3, n_annotators=8).to_csv(
        pilot, index=False
    )
    runner = CliRunner()
    args = ["size", str(pilot), "--rubric-diff", "1.2", "--per-pair", "3", "--pools", "12"]
    done = runner.invoke(app, [*args, "--format", "json"])
    assert done.exit_code == 0, done.output
    data = json.loads(done.stdout)
    assert data["recommended"]["per_pair"] == 3
    assert data["recommended"]["pool"] == 12
    assert data["confidence"] == 0.7
    text = runner.invoke(app, [*args, "--confidence", "0.9"])
    assert "90% upper confidence limit" in text.stdout
    assert "Recommended:" in text.stdout
    k1 = tmp_path / "k1.csv"
    simulate_ratings(30, 1, {}, seed=1, n_annotators=6).to_csv(k1, index=False)
    refused = runner.invoke(app, ["size", str(k1)])
    assert refused.exit_code == 1
    assert "two annotators" in refused.output
    assert runner.invoke(app, ["size", str(pilot), "--pools", "a"]).exit_code == 2


def test_the_planner_sizes_near_what_the_truth_needs_in_seeded_pilots():
    """Issue 33.4, the seeded reduced version of benchmarks/bench_sizing.py: 4 pilots (40
    pairs x 3 of 8) of a known population (analysis.inference.sizing_check, "typical"), each
    sized with the true rubric difference given. Every recommendation has k >= 2, the median
    of recommended pairs / pairs the true components need (same k and pool) is at most 1.25,
    and every recommendation has true power >= 0.80 (Bonferroni bound at the true
    components). The old planner (profile limits per component, k = 1 allowed, n a multiple
    of m / gcd(m, k)) recommended k = 1 for all 4 pilots, 144 pairs where its own search at
    the true components needs 96 (1.5x); this test failed on it."""
    summary, outcomes = run(SCENARIOS[0], 4, seed=1)
    assert summary.k1 == 0
    assert all(o.given_design is not None and o.given_design[1] >= 2 for o in outcomes)
    assert summary.median_ratio <= 1.25
    assert summary.powered == 4
    assert summary.default_found == 4


def _low_pilot() -> Pilot:
    """A pilot whose rubric estimate is not above the smallest effect (0.5) although the
    population's difference is about 0.93 (the "small pilot" scenario, 16 pairs x 2 of 4)."""
    scenario = next(s for s in SCENARIOS if s.name == "small pilot")
    for i in range(200):
        sample = draw(scenario, 16, 2, 4, np.random.default_rng([7, i]))
        pilot = pilot_from_differences(sample, profile=False)
        if pilot.mean[PERSONAL_DIMENSION] <= 0.5:
            return pilot
    raise AssertionError("no low pilot in 200 seeds")


def test_a_pilot_that_misses_the_effect_still_gets_a_design_and_says_what_it_assumed():
    """Issue 33.4: with no difference given, a pilot whose estimate is not above the smallest
    effect is planned at twice the smallest effect (said in the notes, the text and
    rubric_diff_source), not refused: the old planner found no design for such pilots."""
    pilot = _low_pilot()
    result = size_study(pilot, margin=0.5)
    assert result["recommended"] is not None
    assert result["recommended"]["per_pair"] >= 2
    assert result["rubric_diff_source"] == "twice the smallest effect"
    assert result["true_diff"][PERSONAL_DIMENSION] == 1.0
    assert pilot.mean[PERSONAL_DIMENSION] <= 0.5
    said = f"({pilot.mean[PERSONAL_DIMENSION]:+.3f};"
    assert any(said in n and "twice the smallest effect (+1.000)" in n for n in result["notes"])
    assert "twice the smallest effect (+1.000)" in sizing_text(result)
    given = size_study(pilot, margin=0.5, rubric_diff=1.0, per_pair=(2,), pools=(12,))
    assert given["rubric_diff_source"] == "given"
    # a lower limit just above the smallest effect that no design on the grid can show (the
    # annotator variance over a pool of 6 alone is too much): twice the smallest effect too
    base = _pilot()
    se, df = base.mean_se[PERSONAL_DIMENSION], base.mean_df[PERSONAL_DIMENSION]
    close = replace(base, mean=base.mean | {PERSONAL_DIMENSION: 0.505 + stats.t.ppf(0.8, df) * se})
    fallback = size_study(close, margin=0.5, per_pair=(2,), pools=(6,))
    assert fallback["recommended"] is not None
    assert fallback["rubric_diff_source"] == "twice the smallest effect"
    assert any("that close to the smallest effect" in n for n in fallback["notes"])


def test_k_is_two_or_more_by_default_and_one_only_when_asked():
    pilot = _pilot()
    result = size_study(pilot, margin=0.5, rubric_diff=1.2)
    assert {d["per_pair"] for d in result["designs"]} <= {2, 3, 5}
    assert result["recommended"] is not None
    assert result["recommended"]["per_pair"] >= 2
    asked = size_study(pilot, margin=0.5, rubric_diff=1.2, per_pair=(1, 2), pools=(12,))
    assert any("measures no agreement" in n for n in asked["notes"])
    with pytest.raises(ValueError, match="above 0"):
        size_study(pilot, margin=0.5, smallest_effect=0.0, rubric_diff=1.2)


def test_the_plan_uses_the_upper_limit_of_each_designs_variance():
    """planning_variances: Var(mu_hat) at its estimate plus z SE, the SE from the pilot's
    component covariance (checked here against its definition, the inverse of the expected
    REML information formed densely)."""
    pilot = _pilot()
    design = Design(60, 3, 12)
    components, variances = planning_variances(pilot, design)
    w = np.array([1 / 60, 1 / 12, 1 / 180])
    z = stats.norm.ppf(pilot.confidence)
    for dim in DIMENSIONS:
        c = pilot.estimate[dim]
        estimate = w @ [c.pair, c.annotator, c.residual]
        assert components[dim] == c
        assert variances[dim] == pytest.approx(
            estimate + z * np.sqrt(w @ pilot.covariance[dim] @ w), rel=1e-12
        )
        assert variances[dim] > design_variance(c, design)


def test_component_covariance_matches_the_dense_information():
    """The covariance of the REML variance estimates is the inverse of the expected
    information I_ij = 1/2 tr(P V_i P V_j), computed here with the N x N matrices."""
    rng = np.random.default_rng(2)
    pair = np.repeat(np.arange(12), 3)
    annotator = np.concatenate([rng.choice(5, 3, replace=False) for _ in range(12)])
    c = Components(0.3, 0.1, 0.8)
    n = len(pair)
    z_p = np.eye(12)[pair]
    z_a = np.eye(5)[annotator]
    parts = [z_p @ z_p.T, z_a @ z_a.T, np.eye(n)]
    v = 0.3 * parts[0] + 0.1 * parts[1] + 0.8 * parts[2]
    v_inv = np.linalg.inv(v)
    one = np.ones(n)
    p = v_inv - np.outer(v_inv @ one, one @ v_inv) / (one @ v_inv @ one)
    info = np.array([[0.5 * np.trace(p @ a @ p @ b) for b in parts] for a in parts])
    assert component_covariance(c, pair, annotator) == pytest.approx(np.linalg.inv(info))


def test_the_alpha_precision_option_raises_the_pairs():
    """pairs_for_alpha: n = 2 (1 - rho)^2 (1 + (k - 1) rho)^2 / (k (k - 1)) (z / h)^2 + 1,
    rounded up (the large-sample variance of a one-way ICC); e.g. rho = 0.5, k = 2,
    h = 0.1: 2 x 0.25 x 2.25 / 2 x 384.15 + 1 -> 218."""
    c = Components(pair=0.5, annotator=0.0, residual=0.5)
    assert pairs_for_alpha(c, 2, 0.1) == 218
    pilot = _pilot()
    loose = size_study(pilot, margin=0.5, rubric_diff=1.2, per_pair=(2,), pools=(12,))
    tight = size_study(
        pilot, margin=0.5, rubric_diff=1.2, per_pair=(2,), pools=(12,), alpha_halfwidth=0.05
    )
    floor = pairs_for_alpha(pilot.estimate[PERSONAL_DIMENSION], 2, 0.05)
    assert loose["recommended"] is not None
    assert tight["recommended"] is not None
    assert tight["recommended"]["n_pairs"] == max(floor, loose["recommended"]["n_pairs"])
    assert floor > loose["recommended"]["n_pairs"]
    assert tight["alpha_halfwidth"] == 0.05


def test_a_small_pilot_gets_a_design_every_time_and_is_told_it_is_small():
    """Issue 33.4, the small-pilot scenario of benchmarks/bench_sizing.py reduced: 8 seeded
    pilots of 16 pairs x 2 of 4 annotators. With the true rubric difference given and by
    default, every pilot gets a design (a pool widened beyond the grid where none on it
    reaches the target) with true power >= 0.80 (Bonferroni bound at the true components).
    On the previous planner pilot 7 got no design at all (its annotator variance, at the
    upper limit of 3 df, left too little power with a pool of 48): this test failed there."""
    scenario = next(s for s in SCENARIOS if s.name == "small pilot")
    summary, outcomes = run(scenario, 8, seed=1)
    assert all(o.given_design is not None for o in outcomes)
    assert summary.default_found == 8
    assert summary.powered == 8
    assert summary.default_powered >= 7
    widened = outcomes[7].given_design
    assert widened is not None
    assert widened[2] > 48
    sample = draw(scenario, 16, 2, 4, np.random.default_rng([1, 7]))
    pilot = pilot_from_differences(sample, profile=False)
    result = size_study(pilot, margin=0.5, rubric_diff=0.93, per_pair=(2,), pools=(48,))
    assert result["recommended"] is not None
    assert result["recommended"]["pool"] > 48
    assert any("widened to a pool of" in n for n in result["notes"])
    assert any("This pilot (16 pairs, 4 annotators) is smaller" in n for n in result["notes"])
    text = sizing_text(with_internal_pilot(pilot, result))
    for statement in PLANNER_STATEMENTS.values():
        assert statement in text
