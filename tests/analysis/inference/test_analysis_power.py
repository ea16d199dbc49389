"""The power planner against GNU R and against simulation (seeded)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from analysis.cli import app
from analysis.inference.paired import t_tests
from analysis.inference.power import (
    make_plan,
    pairs_needed,
    pilot_estimates,
    plan_power,
    power_table,
    simulate_joint_power,
    superiority_power,
    tost_power,
)
from analysis.report import build_report
from analysis.simulate import simulate_ratings
from annotate.vocabulary import DIMENSIONS


@pytest.mark.parametrize(
    ("n", "delta", "sd", "expected"),
    [
        # power.t.test(n=20, delta=0.3, sd=0.6, type="paired", alternative="one.sided")$power
        (20, 0.3, 0.6, 0.695149338244658),
        # power.t.test(n=30, delta=0.5, sd=0.6, type="paired", alternative="one.sided")$power
        (30, 0.5, 0.6, 0.997520763102268),
        # power.t.test(n=100, delta=0.1, sd=0.5, type="paired", alternative="one.sided")$power
        (100, 0.1, 0.5, 0.633617755352359),
    ],
)
def test_superiority_power_matches_r_power_t_test(n, delta, sd, expected):
    assert superiority_power(n, delta, sd) == pytest.approx(expected, rel=1e-9)


def test_pairs_needed_matches_r_power_t_test():
    # power.t.test(delta=0.3, sd=0.6, power=0.8, type="paired", alternative="one.sided")$n
    # -> 26.1375101070011, so 27 pairs
    assert pairs_needed(lambda n: superiority_power(n, 0.3, 0.6), 0.8) == 27


@pytest.mark.parametrize(
    ("n", "delta", "expected"),
    [
        # R, the same exact formula by quadrature (sd = 0.6, margin = 0.5, alpha = 0.05):
        # tost <- function(n, delta, sd, margin, alpha=0.05) { df <- n - 1;
        #   tc <- qt(1 - alpha, df); smax <- margin * sqrt(n) / tc
        #   f <- function(s) { h <- margin - tc * s / sqrt(n)
        #     (pnorm((h - delta) * sqrt(n) / sd) - pnorm((-h - delta) * sqrt(n) / sd)) *
        #       dchisq(df * s^2 / sd^2, df) * 2 * df * s / sd^2 }
        #   integrate(f, 0, smax, rel.tol=1e-12)$value }
        (30, 0.0, 0.995041526204454),
        (30, 0.2, 0.848251964378668),
        (30, 0.3, 0.554903799856642),
        (14, 0.0, 0.808101220336322),
        (13, 0.0, 0.763690795768590),
    ],
)
def test_tost_power_matches_r_quadrature(n, delta, expected):
    assert tost_power(n, delta, 0.6, 0.5) == pytest.approx(expected, rel=1e-7)


def test_tost_pairs_needed_for_80_percent_are_14_27_58():
    """The issue's figures (SD 0.6, margin 0.5) at true differences 0 / 0.2 / 0.3."""
    assert power_table(0.6, 0.5, [0.0, 0.2, 0.3]) == {0.0: 14, 0.2: 27, 0.3: 58}


@pytest.mark.parametrize("delta", [0.0, 0.2, 0.3])
def test_tost_power_agrees_with_simulation_of_the_report_test(delta):
    """Seeded: the share of simulated studies whose TOST (analysis.inference.paired.t_tests) holds
    is within 4 Monte Carlo SEs of the analytic power."""
    rng = np.random.default_rng(int(delta * 10))
    sims, n = 1500, 30
    held = sum(
        (t_tests(rng.normal(delta, 0.6, n), 0.5, 0.05).tost_p or 1) < 0.05 for _ in range(sims)
    )
    analytic = tost_power(n, delta, 0.6, 0.5)
    se = np.sqrt(analytic * (1 - analytic) / sims)
    assert abs(held / sims - analytic) < 4 * se + 1e-9


def test_joint_power_by_simulation_matches_the_product_for_independent_dimensions():
    """~0.61 at a general difference of 0.2 with 30 pairs (the issue's figure)."""
    plan = make_plan(30, 3, 0.5, sd=0.6, general_diff=0.2, rubric_diff=0.5, simulations=4000)
    power, se = simulate_joint_power(plan, 30)
    product = tost_power(30, 0.2, 0.6, 0.5) ** 3 * superiority_power(30, 0.5, 0.6)
    assert product == pytest.approx(0.608, abs=0.002)
    assert abs(power - product) < 4 * se


def test_plan_power_reports_each_test_and_the_joint_verdict():
    result = plan_power(make_plan(30, 3, 0.5, sd=0.6, general_diff=0.2, simulations=500))
    assert set(result["tests"]) == set(DIMENSIONS)
    assert result["tests"]["factuality"]["pairs_needed"] == 27
    assert result["tests"]["rubric_alignment"]["test"] == "superiority"
    assert result["joint_pairs_needed"] >= 27
    unreachable = plan_power(make_plan(30, 3, 0.5, sd=0.6, general_diff=0.6, simulations=50))
    assert unreachable["tests"]["factuality"]["pairs_needed"] is None
    assert unreachable["joint_pairs_needed"] is None
    json.dumps(result, allow_nan=False)


def test_pilot_estimates_predict_the_sd_at_another_number_of_annotators():
    pilot = simulate_ratings(300, 2, {}, seed=31, n_annotators=10)
    estimates = pilot_estimates(pilot)
    big = build_report(simulate_ratings(600, 4, {}, seed=32, n_annotators=10), n_boot=0)
    for dim in DIMENSIONS:
        assert estimates.sd_at(4)[dim] == pytest.approx(big["dimensions"][dim]["sd_diff"], rel=0.15)


def test_cli_power_json_and_errors(tmp_path):
    runner = CliRunner()
    args = ["power", "--pairs", "30", "--sd", "0.6", "--general-diff", "0.2"]
    result = runner.invoke(app, [*args, "--simulations", "200", "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["tests"]["factuality"]["power"] == pytest.approx(0.848251964378668, rel=1e-7)
    text = runner.invoke(app, [*args, "--simulations", "200"])
    assert "| factuality | tost | +0.20 | 0.600 | 0.848 | 27 |" in text.stdout
    pilot = tmp_path / "pilot.csv"
    simulate_ratings(40, 2, {}, seed=1, n_annotators=4).to_csv(pilot, index=False)
    from_pilot = runner.invoke(app, ["power", "--pilot", str(pilot), "--simulations", "50"])
    assert from_pilot.exit_code == 0
    assert "pilot (40 pairs), k = 3" in from_pilot.stdout
    assert "python -m analysis size PILOT" in " ".join(from_pilot.stdout.split())
    missing = runner.invoke(app, ["power", "--pairs", "30"])
    assert missing.exit_code == 1
    assert "--sd" in missing.output
