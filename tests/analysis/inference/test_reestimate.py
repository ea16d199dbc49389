"""The internal pilot (`analysis.inference.reestimate`): the first stage, the re-estimation
look's rule and its wiring into the planner's answer and the command line.

Where each expected value comes from:

* the fewest pairs at given components (k = 2 from a pool of 12; rubric components pair 0.3,
  annotator 0.1, residual 0.8; the general dimensions' so small their TOSTs have power 1):
  26, confirmed by GNU R, which gives the rubric test's power at 25 and 26 pairs from the
  design's SE and df (df 13.0224352657025 both: 50 and 52 ratings over 12 annotators take the
  df of the equal design of 24 pairs; SE 0.190787840283389 and 0.188029331716620):
  ``power.t.test(n = df + 1, delta = 0.5, sd = se * sqrt(df + 1), sig.level = 0.05,
  type = "one.sample", alternative = "one.sided")$power`` = 0.798443017076792 at 25 and
  0.808494537415348 at 26 (a one-sample t with that df and SE; run live below when Rscript
  is installed);
* the first stage, the factor, the floor and the cap, by hand: ceil(0.7 x 26) = 19;
  ceil(1.15 x 26) = ceil(29.9) = 30; never below the first stage; floor(2.5 x 10) = 25;
* the upper limit the former rule (and the simulation's comparisons) plans with, by hand:
  Var = w's2 + z sqrt(w'Cw) with a diagonal C, z = Phi^-1(0.8), and the noncentral t computed
  here with scipy.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from analysis.inference.null_check import (
    null_pilot,
    null_study,
)
from analysis.inference.reestimate import (
    CAP_FACTOR,
    FIRST_STAGE_FRACTION,
    REESTIMATE_CONFIDENCE,
    RULE,
    SIZE_FACTOR,
    combine,
    first_stage_pairs,
    internal_pilot_plan,
    reestimated_pairs,
    with_internal_pilot,
)
from analysis.inference.reestimate_check import (
    reestimate_pilot,
)
from analysis.inference.sizing import (
    size_study,
)
from analysis.inference.sizing_check import (
    SCENARIOS,
    draw,
    truth,
)
from analysis.inference.sizing_design import (
    Design,
    Targets,
    design_df,
    power_at,
)
from analysis.inference.sizing_pilot import (
    Components,
    Pilot,
    pilot_from_differences,
)
from analysis.inference.sizing_text import (
    sizing_text,
)
from analysis.methods import PLANNER_STATEMENTS
from analysis.simulate import simulate_ratings
from annotate.vocabulary import DIMENSIONS, GENERAL_DIMENSIONS, PERSONAL_DIMENSION

RUBRIC = Components(pair=0.3, annotator=0.1, residual=0.8)
TINY = Components(pair=1e-4, annotator=1e-5, residual=1e-4)
TARGETS = Targets(
    margin=0.5,
    smallest_effect=0.5,
    alpha=0.05,
    target=0.8,
    true_diff=dict.fromkeys(GENERAL_DIMENSIONS, 0.0) | {PERSONAL_DIMENSION: 1.0},
)
R_POWER = {25: 0.798443017076792, 26: 0.808494537415348}


def _pilot(covariance: np.ndarray | None = None, confidence: float = 0.7) -> Pilot:
    estimate = {d: (RUBRIC if d == PERSONAL_DIMENSION else TINY) for d in DIMENSIONS}
    zero = np.zeros((3, 3))
    cov = {
        d: (covariance if d == PERSONAL_DIMENSION and covariance is not None else zero)
        for d in DIMENSIONS
    }
    return Pilot(estimate, estimate, dict.fromkeys(DIMENSIONS, 0.0), confidence, 16, 4, 32, cov)


def test_the_fewest_pairs_at_given_components_match_r_power_t_test():
    pilot = _pilot()
    for n, expected in R_POWER.items():
        rubric = power_at(pilot.estimate, Design(n, 2, 12), TARGETS)["tests"][PERSONAL_DIMENSION]
        assert rubric["power"] == pytest.approx(expected, rel=1e-9)
    assert first_stage_pairs(pilot, 2, 12, TARGETS, fraction=1.0) == 26
    assert first_stage_pairs(pilot, 2, 12, TARGETS) == math.ceil(FIRST_STAGE_FRACTION * 26)
    assert FIRST_STAGE_FRACTION == 0.7
    assert first_stage_pairs(pilot, 2, 12, TARGETS, fraction=0.7) == 19
    # never below MIN_PAIRS (10) nor fewer than the pool needs for one pair each (48 / 2)
    assert first_stage_pairs(pilot, 2, 12, TARGETS, fraction=0.2) == 10
    assert first_stage_pairs(pilot, 2, 48, TARGETS, fraction=0.2) == 24


@pytest.mark.skipif(shutil.which("Rscript") is None, reason="needs GNU R (Rscript)")
def test_the_recorded_r_powers_are_rs():
    pilot = _pilot()
    for n, expected in R_POWER.items():
        rubric = power_at(pilot.estimate, Design(n, 2, 12), TARGETS)["tests"][PERSONAL_DIMENSION]
        code = (
            f"df <- {rubric['df']!r}; cat(sprintf('%.15g', power.t.test(n = df + 1, "
            f"delta = 0.5, sd = {rubric['se']!r} * sqrt(df + 1), sig.level = 0.05, "
            "type = 'one.sample', alternative = 'one.sided')$power))"
        )
        done = subprocess.run(
            ["Rscript", "-e", code], capture_output=True, text=True, check=True, timeout=60
        )
        assert float(done.stdout) == pytest.approx(expected, rel=1e-12)


def test_the_look_keeps_the_size_between_the_first_stage_and_the_cap():
    """At the estimates the components ask for the 26 pairs above, and the look for
    ceil(1.15 x 26) = 30: a first stage of 19 rises to 30, one of 31 stays 31, one of 10 stops
    at floor(2.5 x 10) = 25."""
    pilot = _pilot()
    assert (CAP_FACTOR, SIZE_FACTOR, REESTIMATE_CONFIDENCE) == (2.5, 1.15, 0.5)
    up = reestimated_pairs(pilot, 2, 12, TARGETS, first_stage=19)
    assert (up.needed, up.wanted, up.final, up.capped) == (26, 30, 30, False)
    kept = reestimated_pairs(pilot, 2, 12, TARGETS, first_stage=31)
    assert (kept.needed, kept.wanted, kept.final, kept.capped) == (26, 30, 31, False)
    capped = reestimated_pairs(pilot, 2, 12, TARGETS, first_stage=10)
    assert (capped.needed, capped.final, capped.capped) == (26, 25, True)
    plain = reestimated_pairs(pilot, 2, 12, TARGETS, first_stage=19, factor=1.0)
    assert (plain.needed, plain.final) == (26, 26)


def test_the_looks_margin_is_the_factor_not_the_estimated_width():
    """The product's look sizes at the point estimates times 1.15 whatever the estimated
    covariance of the components: a wide C (the annotator variance poorly estimated) leaves
    its size at ceil(1.15 x 26) = 30, where an upper limit would widen with C."""
    wide = _pilot(np.diag([0.2, 0.04, 0.3]))
    look = reestimated_pairs(wide, 2, 12, TARGETS, first_stage=19)
    assert (look.needed, look.wanted, look.final) == (26, 30, 30)
    limit = reestimated_pairs(wide, 2, 12, TARGETS, first_stage=19, confidence=0.8, factor=1.0)
    assert limit.needed is not None
    assert limit.needed > 30


def _hand_power(n: int, covariance: np.ndarray) -> float:
    """The rubric test's power at n pairs (k 2, pool 12) with Var at its 80% upper limit,
    w's2 + z sqrt(w'Cw), by the noncentral t."""
    w = np.array([1 / n, 1 / 12, 1 / (2 * n)])
    s2 = np.array([RUBRIC.pair, RUBRIC.annotator, RUBRIC.residual])
    z = stats.norm.ppf(0.8)
    se = math.sqrt(w @ s2 + z * math.sqrt(w @ covariance @ w))
    df = design_df(RUBRIC, Design(n, 2, 12))
    critical = stats.t.ppf(0.95, df)
    return float(stats.nct.sf(critical, df, 0.5 / se))


def test_the_former_rule_plans_with_the_upper_limit_of_each_designs_variance():
    """The simulation's comparison rule (the product's before the factor): the 80% limit."""
    covariance = np.diag([0.02, 0.004, 0.03])
    pilot = _pilot(covariance)
    look = reestimated_pairs(pilot, 2, 12, TARGETS, first_stage=19, confidence=0.8, factor=1.0)
    assert look.needed is not None
    by_hand = next(n for n in range(10, 500) if _hand_power(n, covariance) >= 0.8)
    assert look.needed == by_hand
    assert look.needed > 26  # the limit asks for more than the estimates
    assert look.final == min(max(by_hand, 19), 47)


def test_combine_keeps_the_pilots_and_the_stages_levels_apart():
    d = np.array([1.0, 2.0, 3.0, 4.0])
    pilot = {dim: (d, np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1])) for dim in DIMENSIONS}
    stage = {dim: (d + 1, np.array([0, 0, 1, 1]), np.array([1, 2, 2, 0])) for dim in DIMENSIONS}
    values, pair, annotator = combine(pilot, stage)[PERSONAL_DIMENSION]
    assert values.tolist() == [1, 2, 3, 4, 2, 3, 4, 5]
    assert pair.tolist() == [0, 0, 1, 1, 2, 2, 3, 3]
    assert annotator.tolist() == [0, 1, 0, 1, 3, 4, 4, 2]


def _small_pilot() -> Pilot:
    scenario = next(s for s in SCENARIOS if s.name == "small pilot")
    sample = draw(scenario, 16, 2, 4, np.random.default_rng([1, 0]))
    return pilot_from_differences(sample, profile=False)


def test_a_small_pilot_is_recommended_an_internal_pilot_and_told_the_rule():
    pilot = _small_pilot()
    result = size_study(pilot, margin=0.5, rubric_diff=0.93, per_pair=(2,), pools=(48,))
    answer = with_internal_pilot(pilot, result)
    plan = answer.get("internal_pilot")
    assert plan is not None
    assert plan == internal_pilot_plan(pilot, result)
    best = result["recommended"]
    assert best is not None
    assert (plan["per_pair"], plan["pool"]) == (best["per_pair"], best["pool"])
    assert plan["first_stage"] < plan["fixed"] == best["n_pairs"]
    assert plan["cap"] == math.floor(CAP_FACTOR * plan["first_stage"])
    assert plan["first_stage"] <= plan["expected_final"] <= plan["cap"]
    text = sizing_text(answer)
    assert f"Rate a first stage of {plan['first_stage']} pairs x 2 annotators" in text
    assert f"at most {plan['cap']} pairs" in text
    assert "--first-stage" in text
    for statement in PLANNER_STATEMENTS.values():
        assert statement in text
    assert RULE in text
    assert PLANNER_STATEMENTS["internal pilot"] == RULE


def test_a_pilot_of_checked_size_gets_no_internal_pilot():
    pilot = pilot_from_differences(
        draw(SCENARIOS[0], 40, 3, 8, np.random.default_rng([1, 0])), profile=False
    )
    result = size_study(pilot, margin=0.5, rubric_diff=0.93, per_pair=(2,), pools=(48,))
    assert "internal_pilot" not in with_internal_pilot(pilot, result)


def test_cli_plans_the_internal_pilot_and_runs_the_look(tmp_path: Path):
    from typer.testing import CliRunner

    from analysis.cli import app

    pilot, stage = tmp_path / "pilot.csv", tmp_path / "stage.csv"
    effects = {"rubric_alignment": 1.0}
    simulate_ratings(16, 2, effects, seed=4, n_annotators=4).to_csv(pilot, index=False)
    simulate_ratings(30, 2, effects, seed=5, n_annotators=12).to_csv(stage, index=False)
    runner = CliRunner()
    grid = ["--per-pair", "2", "--pools", "12", "--rubric-diff", "1.0"]
    planned = runner.invoke(app, ["size", str(pilot), *grid])
    assert planned.exit_code == 0, planned.output
    assert "an internal pilot" in planned.stdout
    done = runner.invoke(
        app, ["size", str(pilot), "--first-stage", str(stage), *grid, "--format", "json"]
    )
    assert done.exit_code == 0, done.output
    look = json.loads(done.stdout)
    assert look["first_stage"] == 30
    assert look["cap"] == 75
    assert 30 <= look["final"] <= 75
    assert look["pilot"]["n_pairs"] == 16
    assert look["factor"] == 1.15
    assert look["asked"] is not None
    assert look["wanted"] == math.ceil(1.15 * look["asked"] - 1e-9)
    assert look["final"] == min(max(look["wanted"], 30), 75)
    text = runner.invoke(app, ["size", str(pilot), "--first-stage", str(stage), *grid])
    assert f"Final size: {look['final']} pairs" in text.stdout
    assert f"{look['asked']} pairs at their point estimates, 1.15 times that" in text.stdout
    wide = runner.invoke(
        app, ["size", str(pilot), "--first-stage", str(stage), "--per-pair", "2,3"]
    )
    assert wide.exit_code == 1
    assert "give the one k (--per-pair) and pool (--pools)" in wide.output


def test_reduced_simulation_of_the_internal_pilot():
    """benchmarks/bench_sizing.py --reestimate and --null reduced: two small pilots, their
    first stages at 0.7 of the size at the estimates, below the fixed plan; the look's size
    within [first stage, cap]; one run under the null ends within the cap."""
    scenario = next(s for s in SCENARIOS if s.name == "small pilot")
    t = truth(scenario, 1)
    for i in range(2):
        outcome = reestimate_pilot(scenario, t, np.random.default_rng([1, i]))
        assert outcome is not None
        first = outcome.first_stage[0.7]
        assert first < outcome.fixed
        assert first == pytest.approx(0.7 * outcome.first_stage[1.0], abs=1)
    found = null_pilot(scenario, t, 1, 0)
    assert found is not None
    run = null_study(t, found, 1, (0, 0))
    assert run.first_stage <= run.final <= math.floor(CAP_FACTOR * run.first_stage)


def test_the_median_ratios_mc_se_is_the_bootstrap_of_the_median():
    """The MC SE printed beside a median over pilots (benchmarks/bench_sizing.py): 0 for equal
    values, and for 400 standard normal draws near the median's asymptotic SE, sqrt(pi / 2) /
    sqrt(400) = 0.0627 (the normal median's large-sample variance, pi sigma^2 / 2n)."""
    from analysis.inference.reestimate_check import median_se

    assert median_se([1.25] * 40) == 0.0
    draws = np.random.default_rng(3).standard_normal(400).tolist()
    assert median_se(draws) == pytest.approx(math.sqrt(math.pi / 2) / 20, rel=0.2)
    assert math.isnan(median_se([1.0]))


def test_the_simulations_final_size_is_the_looks():
    """benchmarks/bench_sizing.py applies the rule to the sizes asked (final_pairs): the same
    final size as the product's look on the same components (30, 31 and 25 above)."""
    from analysis.inference.reestimate_check import ReestimateOutcome, final_pairs

    pilot = _pilot()
    for first in (19, 31, 10):
        outcome = ReestimateOutcome(2, 12, 26, 26, {0.7: first}, {0.7: {0.5: 26}}, 26)
        look = reestimated_pairs(pilot, 2, 12, TARGETS, first_stage=first)
        assert final_pairs(outcome, 0.7, 0.5, CAP_FACTOR, SIZE_FACTOR) == look.final
