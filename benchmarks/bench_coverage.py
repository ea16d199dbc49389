"""Coverage and type-I error of the primary inference (pairs AND annotators random), by seeded
simulation of four designs, beside the per-pair-mean t-test it replaced (sensitivity).

Model (one dimension, one pair p, annotator a, response r in {chosen, rejected}):

    score = round(3 + m_p + (+-)(delta + e_p) / 2 + l_a + w_ar + noise), clipped to 1..5

with the pair's level m_p ~ N(0, 0.7), the pair's own difference e_p ~ N(0, 0.6), the
annotator's leniency l_a ~ N(0, 0.4) (both responses), the annotator x response effect
w_ar ~ N(0, 0.3) (each annotator sees each response its own way, so its difference is shifted
by w_ac - w_ar, SD 0.42) and noise ~ N(0, 0.7) per score. Annotators are drawn afresh each run,
so both pairs and annotators are samples. The estimand is E[chosen - rejected] for a random
annotator on a random pair after rounding and clipping; the truth comes from a Monte Carlo of
the same model with 4 million (pair, annotator) draws (MC SE printed). ``delta`` is set so that
the rubric's true difference is about 0.9 and, for type-I, so that the general dimension's true
difference is exactly at the margin (0.5; root found on common random numbers).

Designs (100 pairs unless stated): pool 12, k = 3 (each pair rated by 3 of 12); 6 annotators on
all 100 pairs (crossed panel); pool 40, k = 3; 300 pairs, pool 8, k = 3; and the small-panel
designs of the singular-fit study below (pilot, hetero, dominant).

Per design it prints, each with its Monte Carlo SE:

* coverage of the 95% interval of the rubric difference (``crossed_mean``; per-pair t beside);
* type-I: the share of runs in which a general dimension truly AT the margin reads "tie"
  (TOST p < 0.05; crossed and per-pair t), target <= 6% (nominal 5%);
* power: a general dimension truly at 0 reads "tie", and the rubric reads "diverges" beyond
  the smallest effect of interest (0.5, its lower 90% limit above 0.5... i.e. p < 0.05);
* coverage of the human-accuracy interval (23.4): P(single annotator puts chosen above
  rejected, ties as half), crossed_mean on the per-rating credit 1 / 0.5 / 0.

Targets: coverage >= 93% and type-I <= 6% in every design. Runs in ``--workers`` processes
(default 2; nice it, the machine is shared).

Measured at full size (1,000 coverage runs and 4,000 type-I runs per design, 2 workers,
2026-12-05; crossed_mean before and after its restart fix give the same figures here, as
every design has at most 900 values), in the order pool 12 / panel 6 / pool 40 / 300 pairs
pool 8, MC SE 0.3-0.8 points:

* coverage of the crossed interval 94.9 / 93.3 / 93.9 / 93.4% (per-pair t 77.7 / 55.4 / 88.5
  / 48.9%);
* type-I at the margin 4.4 / 5.3 / 5.4 / 5.3% (per-pair t 15.4 / 25.4 / 9.2 / 29.0%);
* human-accuracy coverage 94.3 / 93.0 / 94.3 / 93.0%;
* power: general at 0 ties 91.5 / 64.9 / 99.9 / 84.5%; rubric beyond the SESOI 86.9 / 67.2 /
  98.7 / 79.4%.

It took 6,316 s while four engineers' tests shared the 2 cores (load 5.7-7.6); one fit takes
0.095-0.107 s on the quiet machine (load 0.9), so the 28,000 fits take about 25 minutes on 2
quiet cores.

**Singular fits** (``--singular``, ``--runs`` studies per design, rubric interval only): the
share of fits whose annotator variance REML puts at 0, and the coverage of the 95% interval
conditional on such a fit, the product's (Kenward-Roger SE and df) beside Satterthwaite's
interval on the same fit (what the product gave before). Three small-panel designs, their
annotator x response SD 0.15 (annotator variance about 3% of the difference's): ``pilot``
(3 annotators on all 30 pairs), ``hetero`` (pool 6, k 3, 60 pairs, each annotator's noise SD
x 0.5 / 1 / 1.5) and ``dominant`` (one of 6 annotators on all 60 pairs, 2 of the other 5 on
each). Truth per design from 4e6 draws of its own model. Targets: >= 90% conditional on a
singular fit with >= 300 singular fits per design, >= 93% overall in the pilot.

Measured 2026-12-05, ``nice -n 10 ... --singular --runs 1500 --designs pilot,hetero,dominant
--workers 2``, 1,846 s while other engineers' tests shared the 2 cores (load 9.9 before,
12.8-19.8 during):

* pilot: 592 singular fits of 1,500 (39.5%); conditional coverage Kenward-Roger 96.3% (MC SE
  0.8), Satterthwaite 88.0% (1.3); median df 5.1 against 29.0; all fits 97.8% (0.4) against
  94.5% (0.6);
* heteroscedastic: 343 singular of 1,500 (22.9%); 93.6% (1.3) against 88.9% (1.7); median df
  10.9 against 59.0; all fits 96.9% (0.4) against 95.8% (0.5);
* dominant annotator: 382 singular of 1,500 (25.5%); 94.2% (1.2) against 89.3% (1.6); median
  df 9.0 against 59.0; all fits 96.3% (0.5) against 95.1% (0.6).

The four larger designs (6-40 annotators, interaction SD 0.3) are rarely singular: ``--singular
--runs 300 --designs pool12,panel6,pool40,pairs300pool8`` (346 s, load 14.9-16.4) gave 3 / 1 /
2 / 0 singular fits of 300 each (too few for a conditional figure: 6 in all, 4 covered by both
intervals; Kenward-Roger's df 19.7-52.3 where Satterthwaite's were 99); all fits 95.3 / 94.7 /
95.3 / 92.3% (MC SE 1.2-1.5), the same for both as nearly no fit is singular.

Run: ``nice python benchmarks/bench_coverage.py [--coverage-runs 1000] [--type1-runs 4000]
[--workers 2] [--designs pool12,panel6,pool40,pairs300pool8]``; the singular-fit study:
``nice -n 10 python benchmarks/bench_coverage.py --singular [--runs 1500]
[--designs pilot,hetero,dominant]``.

Skip designs (issue 33.2; :class:`SkipDesign`), pool 12, k = 3, 100 pairs, every skipped slot
refilled by another annotator of the pool (never one who had the pair) until the pair has k
ratings or the pool is used up, rubric truly at the smallest effect of interest (0.5) and at
about 0.9:

* ``closecalls``: annotators skip close calls: an attempt is skipped with probability 0.8 when
  the annotator's noise-free view of the pair's difference is within 0.4 of a tie, plus 0.3
  when the difference they would give (before rounding) is within 0.75, plus 0.03, times the
  annotator's own propensity U(0.5, 1.5) (at most 1): about 42% of attempts are skipped;
* ``skiprandom``: annotators skip at random, 0.3 times their own propensity U(0.5, 1.5).

Per design it prints how often the skip test (:func:`analysis.inference.missing.skip_test`)
flags it (``--test-runs``, no model fit), and with model fits (``--runs``): the crossed fit's
false superiority at the SESOI on the ratings given, qualified by the sensitivity analysis
(skipped ratings as ties must diverge too) and qualified only where the skip test flags; the
crossed interval's coverage and bias at the SESOI; power of the three at about 0.9.

Measured 2026-12-05 (2 workers, nice 10, shared machine): closecalls 4,000 runs with model
fits (801 s, load 4), skiprandom 4,000 (944 s, load 4-6), 4,000 skip-test runs per design, in
the order closecalls / skiprandom:

* ratings skipped 41.6 / 29.9%;
* the skip test flags 86.3% (MC SE 0.5) / 4.7% (0.3): targets >= 80% and <= 6% met;
* false superiority at the SESOI, crossed fit on the ratings given 11.4% (0.5) / 4.4% (0.3);
  qualified by skips as ties 1.7% (0.2) / 0.1% (0.1); qualified only where the skip test flags
  2.3% (0.2) / 4.2% (0.3): target <= 6% met both ways;
* crossed 95% interval at the SESOI covers 93.2% (0.4) / 95.5% (0.3), bias +0.070 (0.002) /
  +0.002 (0.002);
* power at a rubric difference of 0.9: crossed 93.7% (0.4) / 86.7% (0.5); qualified by skips as
  ties 78.3% (0.7) / 40.2% (0.8); qualified where the test flags 79.2% (0.6) / 84.7% (0.6).

So skips as ties is a bound, not a decision rule: it removes the close calls' false
superiority, and costs half the power when skips are at random; read where the skip test
flags, it keeps both. The issue's 19.0% (bias +0.091) came from another generator without the
pool's refill; with the refill each pair keeps k ratings, so the crossed fit's false
superiority here is 11.4%, not 19%.

Run: ``nice python benchmarks/bench_coverage.py [--coverage-runs 1000] [--type1-runs 4000]
[--runs 4000] [--test-runs 4000] [--workers 2]
[--designs pool12,panel6,pool40,pairs300pool8,closecalls,skiprandom]``.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing import Pool
from pathlib import Path

import numpy as np
from scipy import optimize, stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from analysis.inference.crossed import (
    crossed_mean,
)
from analysis.inference.missing import skip_test, skips_as_ties
from analysis.inference.reml import (
    fit_reml,
)
from analysis.inference.reml_df import (
    satterthwaite_df,
)

PAIR_SD, PAIR_DIFF_SD, LENIENCY_SD, INTERACTION_SD, NOISE_SD = 0.7, 0.6, 0.4, 0.3, 0.7
MARGIN = 0.5
SESOI = 0.5
ALPHA = 0.05
RUBRIC_TRUTH_TARGET = 0.9
TRUTH_DRAWS = 4_000_000


@dataclass(frozen=True)
class Design:
    name: str
    n_pairs: int
    pool: int
    k: int  # annotators per pair; k == pool: every annotator rates every pair
    hetero: bool = False  # annotator a's noise SD is NOISE_SD x HETERO_SCALES[a % 3]
    dominant: bool = False  # annotator 0 rates every pair, k - 1 of the others each
    interaction_sd: float = INTERACTION_SD  # SD of each annotator x response effect


HETERO_SCALES = (0.5, 1.0, 1.5)
SMALL_INTERACTION_SD = 0.15
"""The small-panel designs' annotator x response SD: an annotator variance of about 3% of
the difference's, where fits put it at 0 often."""

DESIGNS = {
    "pool12": Design("pool 12, k 3, 100 pairs", 100, 12, 3),
    "panel6": Design("6 annotators on all 100 pairs", 100, 6, 6),
    "pool40": Design("pool 40, k 3, 100 pairs", 100, 40, 3),
    "pairs300pool8": Design("300 pairs, pool 8, k 3", 300, 8, 3),
    "pilot": Design(
        "pilot: 3 annotators on all 30 pairs", 30, 3, 3, interaction_sd=SMALL_INTERACTION_SD
    ),
    "hetero": Design(
        "heteroscedastic: pool 6, k 3, 60 pairs, noise SD x 0.5 / 1 / 1.5",
        60,
        6,
        3,
        hetero=True,
        interaction_sd=SMALL_INTERACTION_SD,
    ),
    "dominant": Design(
        "dominant annotator: one of 6 on all 60 pairs, 2 of the 5 others each",
        60,
        6,
        3,
        dominant=True,
        interaction_sd=SMALL_INTERACTION_SD,
    ),
}
COVERAGE_DESIGNS = ("pool12", "panel6", "pool40", "pairs300pool8")
"""The coverage and type-I study's designs (its scores use the common model)."""
SINGULAR_DESIGNS = ("pilot", "hetero", "dominant")
"""Small panels, where the annotator variance is often estimated at 0 (a singular fit)."""


def scores(
    rng: np.random.Generator,
    delta: float,
    pair: np.ndarray,
    annotator: np.ndarray,
    hetero: bool = False,
    interaction_sd: float = INTERACTION_SD,
) -> tuple[np.ndarray, np.ndarray]:
    """Chosen and rejected scores of each (pair, annotator) rating; ``hetero``: the noise SD
    depends on the annotator (NOISE_SD x HETERO_SCALES[a % 3])."""
    n_p, n_a, n = int(pair.max()) + 1, int(annotator.max()) + 1, len(pair)
    level = rng.normal(0, PAIR_SD, n_p)[pair]
    diff = (delta + rng.normal(0, PAIR_DIFF_SD, n_p)[pair]) / 2
    lenient = rng.normal(0, LENIENCY_SD, n_a)[annotator]
    w = rng.normal(0, interaction_sd, (n_a, 2))
    base = 3 + level + lenient
    noise = NOISE_SD * np.asarray(HETERO_SCALES)[annotator % 3] if hetero else NOISE_SD
    chosen = base + diff + w[annotator, 0] + rng.normal(0, 1, n) * noise
    rejected = base - diff + w[annotator, 1] + rng.normal(0, 1, n) * noise
    return _likert(chosen), _likert(rejected)


def _likert(x: np.ndarray) -> np.ndarray:
    return np.clip(np.round(x), 1, 5)


def truth(
    delta: float,
    seed: int = 12345,
    draws: int = TRUTH_DRAWS,
    hetero: bool = False,
    interaction_sd: float = INTERACTION_SD,
) -> tuple[float, float, float]:
    """E[d], its MC SE and E[credit] (chosen above: 1, tie: 0.5) for one random annotator on
    one random pair (each draw its own pair and annotator; ``hetero``: the annotators' noise
    scales in equal shares, as in a pool of 6)."""
    rng = np.random.default_rng(seed)
    idx = np.arange(draws)
    chosen, rejected = scores(rng, delta, idx, idx, hetero, interaction_sd)
    d = chosen - rejected
    credit = np.where(d > 0, 1.0, np.where(d == 0, 0.5, 0.0))
    return float(d.mean()), float(d.std() / math.sqrt(draws)), float(credit.mean())


def delta_for(target: float) -> float:
    """The latent delta whose true (rounded, clipped) difference is ``target`` (common
    random numbers: the same seed for every evaluation)."""
    return float(
        optimize.brentq(lambda x: truth(x, draws=1_000_000)[0] - target, 0.0, 2.0, xtol=1e-5)
    )


def panel(rng: np.random.Generator, design: Design) -> tuple[np.ndarray, np.ndarray]:
    if design.k == design.pool:
        return np.repeat(np.arange(design.n_pairs), design.k), np.tile(
            np.arange(design.pool), design.n_pairs
        )
    pair = np.repeat(np.arange(design.n_pairs), design.k)
    if design.dominant:
        others = np.argsort(rng.random((design.n_pairs, design.pool - 1)), axis=1)
        picks = np.column_stack(
            [np.zeros(design.n_pairs, dtype=int), 1 + others[:, : design.k - 1]]
        )
        return pair, np.unique(picks.ravel(), return_inverse=True)[1]
    picks = np.argsort(rng.random((design.n_pairs, design.pool)), axis=1)[:, : design.k]
    annotator = picks.ravel()
    used = np.unique(annotator, return_inverse=True)[1]
    return pair, used


def pair_t(d: np.ndarray, pair: np.ndarray) -> tuple[float, float, float]:
    """Mean, SE and df of the per-pair-mean t-test."""
    means = np.bincount(pair, weights=d) / np.bincount(pair)
    return float(means.mean()), float(stats.sem(means)), float(len(means) - 1)


def _tost(mean: float, se: float, df: float) -> float:
    return max(stats.t.sf((mean + MARGIN) / se, df), stats.t.cdf((mean - MARGIN) / se, df))


def coverage_run(args: tuple[str, int, float, float, float, float]) -> tuple[int, ...]:
    """One study: rubric truth covered (crossed, per-pair t), general at 0 reads tie (crossed,
    t), rubric diverges beyond the SESOI (crossed), accuracy truth covered."""
    key, seed, d_rubric, t_rubric, t_accuracy, _ = args
    design = DESIGNS[key]
    rng = np.random.default_rng(seed)
    pair, annotator = panel(rng, design)
    c, r = scores(rng, d_rubric, pair, annotator)
    d = c - r
    fit = crossed_mean(d, pair, annotator)
    m, se, df = pair_t(d, pair)
    half = stats.t.ppf(0.975, df) * se
    c0, r0 = scores(rng, 0.0, pair, annotator)
    general = crossed_mean(c0 - r0, pair, annotator)
    gm, gse, gdf = pair_t(c0 - r0, pair)
    credit = np.where(d > 0, 1.0, np.where(d == 0, 0.5, 0.0))
    accuracy = crossed_mean(credit, pair, annotator)
    superior = fit.p_greater(SESOI)
    return (
        int(fit.ci is not None and fit.ci[0] <= t_rubric <= fit.ci[1]),
        int(m - half <= t_rubric <= m + half),
        int((general.tost_p(MARGIN) or 1.0) < ALPHA),
        int(_tost(gm, gse, gdf) < ALPHA),
        int(superior is not None and superior < ALPHA),
        int(accuracy.ci is not None and accuracy.ci[0] <= t_accuracy <= accuracy.ci[1]),
    )


def type1_run(args: tuple[str, int, float, float, float, float]) -> tuple[int, ...]:
    """One study with a general dimension truly at the margin: reads tie? (crossed, t)."""
    key, seed, _, _, _, d_margin = args
    design = DESIGNS[key]
    rng = np.random.default_rng(seed)
    pair, annotator = panel(rng, design)
    c, r = scores(rng, d_margin, pair, annotator)
    fit = crossed_mean(c - r, pair, annotator)
    m, se, df = pair_t(c - r, pair)
    return int((fit.tost_p(MARGIN) or 1.0) < ALPHA), int(_tost(m, se, df) < ALPHA)


def singular_run(args: tuple[str, int, float, float]) -> tuple[float, ...]:
    """One study's rubric interval: (singular fit?, crossed_mean covers, Satterthwaite's
    interval on the same fit covers, crossed_mean's df, Satterthwaite's df). Satterthwaite's
    interval is what crossed_mean gave before singular fits took Kenward-Roger's."""
    key, seed, delta, true_value = args
    design = DESIGNS[key]
    rng = np.random.default_rng(seed)
    pair, annotator = panel(rng, design)
    c, r = scores(rng, delta, pair, annotator, design.hetero, design.interaction_sd)
    d = c - r
    fit = crossed_mean(d, pair, annotator)
    old_ci, old_df = fit.ci, fit.df
    if fit.singular:
        reml = fit_reml(d, np.ones((len(d), 1)), pair, annotator)
        old_df = satterthwaite_df(reml, 0)
        half = float(stats.t.ppf(0.975, old_df)) * math.sqrt(reml.cov[0, 0]) if old_df else None
        old_ci = None if half is None else [fit.estimate - half, fit.estimate + half]
    return (
        float(bool(fit.singular)),
        float(_covers(fit.ci, true_value)),
        float(_covers(old_ci, true_value)),
        float(fit.df or math.nan),
        float(old_df or math.nan),
    )


def _covers(ci: list[float] | None, value: float) -> bool:
    return ci is not None and ci[0] <= value <= ci[1]


def singular_study(key: str, runs: int, delta: float, workers: int) -> list[tuple[float, ...]]:
    """:func:`singular_run` on ``runs`` seeded studies of a design (seeds 3,000,000 + i)."""
    design = DESIGNS[key]
    true_value = truth(delta, seed=7, hetero=design.hetero, interaction_sd=design.interaction_sd)[0]
    jobs = [(key, 3_000_000 + i, delta, true_value) for i in range(runs)]
    return _run(singular_run, jobs, workers)  # type: ignore[arg-type]


def _singular_report(key: str, rows: list[tuple[float, ...]], seconds: float) -> None:
    flags, new, old, df_new, df_old = (np.asarray(col) for col in zip(*rows, strict=True))
    on = flags == 1
    print(
        f"\n{DESIGNS[key].name}: {len(rows)} runs, {int(on.sum())} singular fits "
        f"({100 * on.mean():.1f}%), {seconds:.0f} s, load {os.getloadavg()[0]:.1f}"
    )
    if on.any():
        print(f"  coverage | singular  Kenward-Roger {_rate(list(new[on].astype(int)))}")
        print(f"  coverage | singular  Satterthwaite {_rate(list(old[on].astype(int)))}")
        print(
            f"  median df | singular  Kenward-Roger {np.nanmedian(df_new[on]):.1f}, "
            f"Satterthwaite {np.nanmedian(df_old[on]):.1f}"
        )
    print(f"  coverage, all fits     product       {_rate(list(new.astype(int)))}")
    print(f"  coverage, all fits     Satterthwaite {_rate(list(old.astype(int)))}")


@dataclass(frozen=True)
class SkipDesign:
    """Pool ``pool``, k = ``k``, ``n_pairs`` pairs; a skipped slot goes to another annotator
    of the pool (never one who had the pair) until the pair has k ratings or the pool is
    used up. An attempt is skipped with probability ``(pair_close if the annotator's
    noise-free view of the pair, |delta + e_p + w_ac - w_ar|, is below PAIR_CLOSE) +
    (rating_close if the difference it would give before rounding is below RATING_CLOSE) +
    base``, times the annotator's own propensity U(0.5, 1.5) (at most 1)."""

    name: str
    pair_close: float
    rating_close: float
    base: float
    n_pairs: int = 100
    pool: int = 12
    k: int = 3


PAIR_CLOSE, RATING_CLOSE = 0.4, 0.75
SKIP_DESIGNS = {
    "closecalls": SkipDesign("annotators skip close calls, pool 12, k 3, refilled", 0.8, 0.3, 0.03),
    "skiprandom": SkipDesign("annotators skip at random (30%), pool 12, k 3, refilled", 0, 0, 0.3),
}


def pool_with_skips(
    rng: np.random.Generator, delta: float, design: SkipDesign
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every attempt of the pool: (pair, annotator, skipped, d), d the rubric difference the
    annotator gave (meaningless where skipped)."""
    n_p, pool = design.n_pairs, design.pool
    pair = np.repeat(np.arange(n_p), pool)
    annotator = np.tile(np.arange(pool), n_p)
    n = len(pair)
    level = rng.normal(0, PAIR_SD, n_p)[pair]
    diff = (delta + rng.normal(0, PAIR_DIFF_SD, n_p)[pair]) / 2
    base = 3 + level + rng.normal(0, LENIENCY_SD, pool)[annotator]
    w = rng.normal(0, INTERACTION_SD, (pool, 2))
    view = 2 * diff + w[annotator, 0] - w[annotator, 1]
    chosen = base + diff + w[annotator, 0] + rng.normal(0, NOISE_SD, n)
    rejected = base - diff + w[annotator, 1] + rng.normal(0, NOISE_SD, n)
    p_skip = (
        design.pair_close * (np.abs(view) < PAIR_CLOSE)
        + design.rating_close * (np.abs(chosen - rejected) < RATING_CLOSE)
        + design.base
    ) * rng.uniform(0.5, 1.5, pool)[annotator]
    skipped = rng.random(n) < np.minimum(p_skip, 1.0)
    order = np.argsort(rng.random((n_p, pool)), axis=1)
    slot = np.arange(n_p)[:, None] * pool + order
    done = ~skipped[slot]
    attempted = (np.cumsum(done, axis=1) - done) < design.k
    take = slot[attempted]
    d = _likert(chosen) - _likert(rejected)
    return pair[take], annotator[take], skipped[take], d[take]


def skip_run(args: tuple[str, int, float, float, float, float]) -> tuple[float, ...]:
    """One pool study with skips, rubric truly at the SESOI and at about 0.9. At the SESOI:
    skip share, test flags (p < 0.05), false superiority (crossed; qualified by skips as ties;
    qualified only where the skip test flags), crossed interval covers the truth, its bias;
    at 0.9: power of the three."""
    key, seed, d_rubric, _, t_sesoi, d_sesoi = args
    design = SKIP_DESIGNS[key]
    rng = np.random.default_rng(seed)
    out: list[float] = []
    for delta in (d_sesoi, d_rubric):
        pair, annotator, skipped, d = pool_with_skips(rng, delta, design)
        kept = ~skipped
        given = (d[kept], pair[kept], annotator[kept])
        fit = crossed_mean(*given)  # the ratings given
        ties = skips_as_ties(*given, pair[skipped], annotator[skipped])
        flagged = (skip_test(pair, annotator, skipped, *given, seed=seed).p or 1.0) < ALPHA
        primary = (fit.p_greater(SESOI) or 1.0) < ALPHA
        qualified = primary and (ties.p_greater(SESOI) or 1.0) < ALPHA
        gated = qualified if flagged else primary
        if delta == d_sesoi:
            covered = fit.ci is not None and fit.ci[0] <= t_sesoi <= fit.ci[1]
            bias = float(fit.estimate or 0.0) - t_sesoi
            out += [float(skipped.mean()), float(flagged), float(primary), float(qualified)]
            out += [float(covered), bias, float(gated)]
        else:
            out += [float(primary), float(qualified), float(gated)]
    return tuple(out)


def skip_test_run(args: tuple[str, int, float]) -> tuple[int, ...]:
    """One pool study with skips (rubric truly at the SESOI): does the skip test flag it?
    (No model fit: cheap, so it runs many more times than :func:`skip_run`.)"""
    key, seed, delta = args
    pair, annotator, skipped, d = pool_with_skips(
        np.random.default_rng(seed), delta, SKIP_DESIGNS[key]
    )
    kept = ~skipped
    test = skip_test(pair, annotator, skipped, d[kept], pair[kept], annotator[kept], seed=seed)
    return (int((test.p or 1.0) < ALPHA),)


def _skip_design(key: str, runs: tuple[int, int], workers: int, deltas: tuple[float, ...]) -> None:
    d_rubric, t_sesoi, d_sesoi = deltas
    t0 = time.perf_counter()
    tests = _run(skip_test_run, [(key, 4_000_000 + i, d_sesoi) for i in range(runs[1])], workers)
    print(f"\n{SKIP_DESIGNS[key].name}")
    print(
        f"  skip test flags (p < 0.05)       {_rate([t[0] for t in tests])}  ({runs[1]} runs, "
        f"{time.perf_counter() - t0:.0f} s)"
    )
    runs_fit = runs[0]
    t0 = time.perf_counter()
    jobs = [(key, 3_000_000 + i, d_rubric, 0.0, t_sesoi, d_sesoi) for i in range(runs_fit)]
    cols = list(zip(*_run(skip_run, jobs, workers), strict=True))
    elapsed = time.perf_counter() - t0
    print(f"  with model fits: {runs_fit} runs, {elapsed:.0f} s, load {os.getloadavg()[0]:.1f}")
    bias = np.asarray(cols[5])
    print(f"  ratings skipped (mean share)     {100 * float(np.mean(cols[0])):5.1f}%")
    print(f"  skip test flags, these runs      {_rate([int(x) for x in cols[1]])}")
    print(
        f"  false superiority at the SESOI   crossed {_rate([int(x) for x in cols[2]])}   "
        f"qualified by skips as ties {_rate([int(x) for x in cols[3]])}   "
        f"qualified where the test flags {_rate([int(x) for x in cols[6]])}"
    )
    print(
        f"  coverage of the 95% CI at SESOI  crossed {_rate([int(x) for x in cols[4]])}; bias "
        f"{bias.mean():+.3f} (MC SE {bias.std(ddof=1) / math.sqrt(runs_fit):.3f})"
    )
    print(
        f"  power: rubric ~0.9 > SESOI       crossed {_rate([int(x) for x in cols[7]])}   "
        f"qualified {_rate([int(x) for x in cols[8]])}   "
        f"where flagged {_rate([int(x) for x in cols[9]])}"
    )
    sys.stdout.flush()


def _rate(hits: list[int]) -> str:
    n = len(hits)
    p = sum(hits) / n
    return f"{100 * p:5.1f}% (MC SE {100 * math.sqrt(p * (1 - p) / n):.1f})"


def _line(name: str, crossed: tuple[int, ...], per_pair: tuple[int, ...]) -> None:
    print(f"  {name:<32} crossed {_rate(list(crossed))}   per-pair t {_rate(list(per_pair))}")


def _run(fn: Callable[..., tuple[int, ...]], jobs: list, workers: int) -> list[tuple[int, ...]]:
    if workers <= 1:
        return [fn(j) for j in jobs]
    with Pool(workers) as pool:
        return pool.map(fn, jobs, chunksize=20)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--coverage-runs", type=int, default=1000)
    parser.add_argument("--type1-runs", type=int, default=4000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--designs",
        default=None,
        help=f"default: {','.join([*COVERAGE_DESIGNS, *SKIP_DESIGNS])}; "
        f"with --singular: {','.join(SINGULAR_DESIGNS)}",
    )
    parser.add_argument(
        "--singular", action="store_true", help="only the singular-fit study (--runs per design)"
    )
    parser.add_argument(
        "--runs",
        type=int,
        default=None,
        help="runs per skip design with model fits (default 4000); with --singular, studies "
        "per design (default 1500)",
    )
    parser.add_argument("--test-runs", type=int, default=4000, help="skip-test-only runs")
    args = parser.parse_args()
    start = time.perf_counter()
    print(f"load average before: {os.getloadavg()}", flush=True)
    d_rubric = delta_for(RUBRIC_TRUTH_TARGET)
    if args.designs is None:
        chosen = SINGULAR_DESIGNS if args.singular else [*COVERAGE_DESIGNS, *SKIP_DESIGNS]
        args.designs = ",".join(chosen)
    if args.runs is None:
        args.runs = 1500 if args.singular else 4000
    if args.singular:
        for key in args.designs.split(","):
            t0 = time.perf_counter()
            rows = singular_study(key, args.runs, d_rubric, args.workers)
            _singular_report(key, rows, time.perf_counter() - t0)
        print(f"\ntotal {time.perf_counter() - start:.0f} s; load average after: {os.getloadavg()}")
        return
    d_margin = delta_for(MARGIN)
    t_rubric, se_rubric, t_accuracy = truth(d_rubric, seed=7)
    t_margin, se_margin, _ = truth(d_margin, seed=8)
    print(
        f"truth (4e6 draws): rubric difference {t_rubric:.4f} (MC SE {se_rubric:.4f}) at latent "
        f"delta {d_rubric:.4f}; accuracy (ties half) {t_accuracy:.4f}; general at the margin "
        f"{t_margin:.4f} (MC SE {se_margin:.4f}) at latent delta {d_margin:.4f}",
        flush=True,
    )
    t_sesoi = t_margin  # SESOI = margin: the same latent delta
    for key in args.designs.split(","):
        if key in SKIP_DESIGNS:
            _skip_design(
                key, (args.runs, args.test_runs), args.workers, (d_rubric, t_sesoi, d_margin)
            )
            continue
        design = DESIGNS[key]
        t0 = time.perf_counter()
        base = (key, 0, d_rubric, t_rubric, t_accuracy, d_margin)
        cov = _run(
            coverage_run,
            [(key, 1_000_000 + i, *base[2:]) for i in range(args.coverage_runs)],
            args.workers,
        )
        typ = _run(
            type1_run,
            [(key, 2_000_000 + i, *base[2:]) for i in range(args.type1_runs)],
            args.workers,
        )
        cols = list(zip(*cov, strict=True))
        t1 = list(zip(*typ, strict=True))
        print(f"\n{design.name}  ({time.perf_counter() - t0:.0f} s, load {os.getloadavg()[0]:.1f})")
        _line("coverage of the 95% CI, rubric", cols[0], cols[1])
        _line("type-I at the margin (tie)", t1[0], t1[1])
        _line("power: general at 0 reads tie", cols[2], cols[3])
        print(f"  power: rubric > SESOI {SESOI}      crossed {_rate(list(cols[4]))}")
        print(f"  coverage, human accuracy CI      crossed {_rate(list(cols[5]))}")
        sys.stdout.flush()
    print(f"\ntotal {time.perf_counter() - start:.0f} s; load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
