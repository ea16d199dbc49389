"""`analysis.inference.crossed.crossed_mean` against GNU R's lme4 + lmerTest, run live.

Expected values come from `Rscript` (Debian's r-cran-lmertest, which `scripts/setup.sh test`
installs; skipped where it is missing): for each design,
`summary(lmerTest::lmer(y ~ 1 + (1 | pair) + (1 | annotator), REML = TRUE))` gives the
intercept's estimate, SE and Satterthwaite df; `confint(contest(..., joint = FALSE, confint =
TRUE))` the 95% interval; `VarCorr` the variances. The fallbacks with one factor use
`(1 | pair)` or `(1 | annotator)` alone. The data are seeded here and written to a CSV R reads.
Checks without R: closed forms of the fallbacks (a balanced one-factor design gives the t
interval of the group means) and the degenerate cases.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from analysis.core.coded import encode_ratings
from analysis.inference.crossed import (
    ANNOTATOR_ONLY,
    CROSSED,
    DEGENERATE,
    ONE_SAMPLE_T,
    PAIR_MEANS_T,
    PAIR_ONLY,
    crossed_mean,
)
from analysis.inference.mixed import rating_level
from analysis.simulate import simulate_ratings
from tests.helpers.r_helpers import needs_lmertest


def _design(name: str, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rounded chosen - rejected differences with pair and annotator effects, per design."""
    rng = np.random.default_rng(seed)
    if name == "panel":  # 6 annotators rate all 60 pairs, 10% of the ratings missing
        pair, annotator = np.repeat(np.arange(60), 6), np.tile(np.arange(6), 60)
        keep = rng.random(len(pair)) > 0.1
        pair, annotator = pair[keep], annotator[keep]
    elif name.startswith("pool"):  # each pair rated by k = 3 of a pool
        pool = int(name[4:])
        pair = np.repeat(np.arange(80), 3)
        annotator = np.concatenate([rng.choice(pool, 3, replace=False) for _ in range(80)])
    elif name == "one_annotator":
        pair, annotator = np.arange(40), np.zeros(40, dtype=int)
        pair = np.concatenate([pair, pair[:25]])
        annotator = np.zeros(len(pair), dtype=int)
    elif name == "k1":  # every pair rated once, by a pool of 8
        pair, annotator = np.arange(50), rng.integers(0, 8, 50)
    else:
        raise ValueError(name)
    n_p, n_a = pair.max() + 1, annotator.max() + 1
    y = 0.4 + rng.normal(0, 0.6, n_p)[pair] + rng.normal(0, 0.4, n_a)[annotator]
    y = np.round(y + rng.normal(0, 0.9, len(pair)))
    return y, pair, annotator


DESIGNS = {
    "panel": ("y ~ 1 + (1 | pair) + (1 | annotator)", CROSSED),
    "pool12": ("y ~ 1 + (1 | pair) + (1 | annotator)", CROSSED),
    "pool40": ("y ~ 1 + (1 | pair) + (1 | annotator)", CROSSED),
    "one_annotator": ("y ~ 1 + (1 | pair)", PAIR_ONLY),
    "k1": ("y ~ 1 + (1 | annotator)", ANNOTATOR_ONLY),
}


def _lmer(name: str, formula: str, tmp_path: Path) -> dict[str, list[float]]:
    return _lmer_on(*_design(name, seed=sum(map(ord, name))), formula, tmp_path / name)


def _lmer_on(
    y: np.ndarray, pair: np.ndarray, annotator: np.ndarray, formula: str, stem: Path
) -> dict[str, list[float]]:
    """R's lmer + lmerTest on the values: estimate, se, df, ci, vars (pair, annotator, e)."""
    csv = stem.with_suffix(".csv")
    lines = ["y,pair,annotator"] + [
        f"{v},p{p},a{a}" for v, p, a in zip(y, pair, annotator, strict=True)
    ]
    csv.write_text("\n".join(lines) + "\n", encoding="utf-8")
    script = stem.with_suffix(".R")
    script.write_text(
        f"""suppressMessages(library(lmerTest))
d <- read.csv("{csv}")
m <- lmer({formula}, data = d, REML = TRUE)
co <- summary(m)$coefficients
say <- function(n, v) cat(n, format(v, digits = 15), "\\n")
say("estimate", co[1, "Estimate"]); say("se", co[1, "Std. Error"]); say("df", co[1, "df"])
ct <- contest(m, matrix(1, 1, 1), joint = FALSE, confint = TRUE, level = 0.95)
say("ci", c(ct$lower, ct$upper))
vc <- as.data.frame(VarCorr(m))
say("vars", setNames(vc$vcov, vc$grp)[c("pair", "annotator", "Residual")])
""",
        encoding="utf-8",
    )
    done = subprocess.run(
        ["Rscript", str(script)], capture_output=True, text=True, check=True, timeout=120
    )
    out = {}
    for line in done.stdout.splitlines():
        key, *values = line.split()
        out[key] = [float("nan") if v == "NA" else float(v) for v in values]
    return out


@needs_lmertest
def test_a_large_design_is_not_left_at_a_zero_pair_variance(tmp_path):
    """2,100 values (over SMALL_DATA, where the quasi-Newton search alone is trusted): it once
    stopped at pair variance 0, a stationary point, giving se 0.0265 and df 2099 where lmerTest
    gives about 0.030 and 168; the Nelder-Mead restarts find lmerTest's optimum."""
    coded = encode_ratings(simulate_ratings(700, 3, {}, seed=1, n_annotators=120))
    y, _, pair, annotator = rating_level(coded, 0)
    expected = _lmer_on(y, pair, annotator, DESIGNS["panel"][0], tmp_path / "large")
    got = crossed_mean(y, pair, annotator)
    assert got.method == CROSSED
    assert got.var_pair == pytest.approx(expected["vars"][0], rel=1e-3)
    assert got.se == pytest.approx(expected["se"][0], rel=1e-4)
    assert got.df == pytest.approx(expected["df"][0], rel=2e-3)


@needs_lmertest
@pytest.mark.parametrize("name", sorted(DESIGNS))
def test_crossed_mean_matches_lmertest(name, tmp_path):
    formula, method = DESIGNS[name]
    expected = _lmer(name, formula, tmp_path)
    y, pair, annotator = _design(name, seed=sum(map(ord, name)))
    got = crossed_mean(y, pair, annotator)
    assert got.method == method
    assert got.estimate == pytest.approx(expected["estimate"][0], abs=1e-6)
    assert got.se == pytest.approx(expected["se"][0], rel=1e-4)
    assert got.df == pytest.approx(expected["df"][0], rel=2e-3)
    assert got.ci == pytest.approx(expected["ci"], abs=1e-4)
    pair_var, annotator_var, residual = expected["vars"]
    assert got.var_residual == pytest.approx(residual, rel=1e-4, abs=1e-6)
    if method in (CROSSED, PAIR_ONLY):
        assert got.var_pair == pytest.approx(pair_var, rel=1e-3, abs=1e-6)
    if method in (CROSSED, ANNOTATOR_ONLY):
        assert got.var_annotator == pytest.approx(annotator_var, rel=1e-3, abs=1e-6)


def test_balanced_pair_only_is_the_t_interval_of_pair_means():
    """One annotator rating each of 30 pairs twice: (1 | pair) on a balanced design with a
    positive pair variance is the t interval of the pair means (closed form)."""
    rng = np.random.default_rng(5)
    pair = np.repeat(np.arange(30), 2)
    y = rng.normal(0, 1, 30)[pair] + rng.normal(0, 0.5, 60) + 0.2
    got = crossed_mean(y, pair, np.zeros(60, dtype=int))
    means = y.reshape(30, 2).mean(axis=1)
    ci = stats.t.interval(0.95, 29, loc=means.mean(), scale=stats.sem(means))
    assert got.method == PAIR_ONLY
    assert got.df == pytest.approx(29, rel=1e-3)
    assert got.ci == pytest.approx(list(ci), abs=1e-5)


def test_fallbacks_and_degenerate_cases():
    # one value per pair and one annotator: an ordinary one-sample t interval
    y = np.array([1.0, 0.0, 2.0, 1.0, -1.0, 1.0])
    got = crossed_mean(y, np.arange(6), np.zeros(6, dtype=int))
    assert got.method == ONE_SAMPLE_T
    assert got.df == 5
    assert got.ci == pytest.approx(list(stats.t.interval(0.95, 5, y.mean(), stats.sem(y))))
    # no variation within any pair: the pair means' t interval
    pair = np.repeat(np.arange(5), 3)
    values = np.array([1.0, 0.0, 2.0, 1.0, 3.0])[pair]
    got = crossed_mean(values, pair, np.tile(np.arange(3), 5))
    assert got.method == PAIR_MEANS_T
    assert got.df == 4
    # all equal, or a single value: the mean and no interval
    for vals in ([1.0, 1.0, 1.0], [2.0]):
        got = crossed_mean(vals, list(range(len(vals))), [0] * len(vals))
        assert got.method == DEGENERATE
        assert got.ci is None
        assert got.p_greater() is None
        assert got.estimate == vals[0]
    # missing ratings (NaN) are dropped
    y, pair, annotator = _design("panel", 3)
    with_gap = np.concatenate([y, [np.nan, np.nan]])
    got = crossed_mean(
        with_gap, np.concatenate([pair, [0, 1]]), np.concatenate([annotator, [0, 0]])
    )
    assert got.n == len(y)
    assert got.estimate == pytest.approx(crossed_mean(y, pair, annotator).estimate)


def test_tost_and_one_sided_p_are_the_interval_read_two_ways():
    y, pair, annotator = _design("pool12", 9)
    got = crossed_mean(y, pair, annotator)
    ci90 = got.interval(0.90)
    assert ci90 is not None
    bound = max(abs(ci90[0]), abs(ci90[1]))
    assert got.tost_p(bound + 1e-6) < 0.05 < got.tost_p(bound - 1e-6)
    assert got.p_greater(ci90[0] - 1e-6) < 0.05 < got.p_greater(ci90[0] + 1e-6)


def test_annotators_constant_across_pairs_fall_back_to_the_annotator_means():
    """Each annotator gives the same difference to every pair (a straight-liner at 0, two at +2):
    no residual variance, so REML is on its boundary; the t interval of the annotator means is
    used (by hand: mean 4/3, se = sd(2, 2, 0) / sqrt(3) = 2/3, df 2)."""
    values = [2.0] * 9 + [2.0] * 9 + [0.0] * 9
    pairs = list(range(9)) * 3
    annotators = ["a0"] * 9 + ["a1"] * 9 + ["a2"] * 9
    found = crossed_mean(values, pairs, annotators)
    assert found.method == "annotator means t"
    assert found.estimate == pytest.approx(4 / 3)
    assert found.se == pytest.approx(2 / 3)
    assert found.df == 2


def test_scattered_products_equal_the_dense_ones_on_a_large_sparse_design():
    """fit_reml(..., scatter=True) (the mixed model's large designs): the same REML pieces as
    the dense product up to rounding, and the same fit to optimizer tolerance."""
    from analysis.inference.reml import (
        SCATTER_FROM,
        _Reml,
        fit_reml,
    )

    rng = np.random.default_rng(3)
    n, pool, k = 1000, 120, 3
    assert n * pool >= SCATTER_FROM
    pair = np.repeat(np.arange(n), k)
    annotator = np.concatenate([rng.choice(pool, k, replace=False) for _ in range(n)])
    y = rng.normal(0, 0.5, n)[pair] + rng.normal(0, 0.3, pool)[annotator]
    y = y + rng.normal(0, 0.9, len(pair))
    x = np.ones((len(y), 1))
    dense, scattered = _Reml(y, x, pair, annotator), _Reml(y, x, pair, annotator, True)
    assert dense.scatter is None
    assert scattered.scatter is not None
    for point in [(1.0, 0.3, 0.1), (0.8, 0.0, 0.5), (2.0, 1.5, 1e-4)]:
        (g1, l1), (g2, l2) = dense.gram(*point), scattered.gram(*point)
        np.testing.assert_allclose(g2, g1, rtol=1e-12, atol=1e-12)
        assert l2 == pytest.approx(l1, rel=1e-13)
    a, b = fit_reml(y, x, pair, annotator), fit_reml(y, x, pair, annotator, scatter=True)
    assert b.beta[0] == pytest.approx(a.beta[0], abs=1e-8)
    assert b.s2_annotator == pytest.approx(a.s2_annotator, rel=1e-5, abs=1e-9)
