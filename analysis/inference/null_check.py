"""The type-I error of the tests at the end of a study sized with the internal pilot's look:
studies drawn at the margin (the null) from the population of
:mod:`analysis.inference.sizing_check`, with and without the look (``benchmarks/bench_sizing.py
--null``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from analysis.core.coded import FloatArray
from analysis.inference.sizing_check import (
    DIMENSIONS,
    GENERAL_DIMENSIONS,
    PERSONAL_DIMENSION,
    SCENARIOS,
    Differences,
    Scenario,
    Truth,
    run,
    targets_at_truth,
    truth,
)
from analysis.inference.sizing_pilot import (
    Components,
    pilot_from_differences,
)


def gaussian_draw(
    components: Mapping[str, Components],
    means: Mapping[str, float],
    n_pairs: int,
    per_pair: int,
    annotator_effects: Mapping[str, FloatArray],
    rng: np.random.Generator,
) -> Differences:
    """Each dimension's d = mu + v_p + u_a + e of ``n_pairs`` new pairs, each rated by
    ``per_pair`` annotators of the pool drawn at random, the pool's effects given (they
    persist from one stage to the next)."""
    pool = len(next(iter(annotator_effects.values())))
    picks = [rng.choice(pool, per_pair, replace=False) for _ in range(n_pairs)]
    annotator = np.concatenate(picks) if picks else np.zeros(0, dtype=np.int64)
    pair = np.repeat(np.arange(n_pairs), per_pair)
    out: Differences = {}
    for dim in DIMENSIONS:
        c = components[dim]
        v = rng.normal(0.0, np.sqrt(c.pair), n_pairs)[pair]
        e = rng.normal(0.0, np.sqrt(c.residual), len(pair))
        out[dim] = (means[dim] + v + annotator_effects[dim][annotator] + e, pair, annotator)
    return out


@dataclass(frozen=True)
class NullOutcome:
    """One run under the null: the first stage, the final size, and whether the test at the
    end rejected (rubric superiority at the smallest effect; factuality's TOST at +margin);
    the TOST's p-value, to read the same runs at other levels."""

    first_stage: int
    final: int
    superiority: bool
    tost: bool
    tost_p: float | None = None


NULL_DIMENSION = "factuality"
"""The general dimension whose mean sits on the TOST margin in :func:`null_once`."""


NullPilot = tuple[Differences, int]
"""A null run's pilot and the first stage it gives."""


def null_pilot(
    scenario: Scenario,
    t: Truth,
    seed: int,
    index: int,
    per_pair: int = 2,
    pool: int = 48,
    margin: float = 0.5,
    tie_alpha: float | None = None,
) -> NullPilot | None:
    """Pilot ``index`` of :func:`null_run`: normal data of the scenario's true components and
    size (:func:`null_means`), and the first stage its point estimates give (planned for the
    true rubric difference, the tie questions at ``tie_alpha`` when given); None when they
    reach no size."""
    from analysis.inference.reestimate import first_stage_pairs

    rng = np.random.default_rng([seed, index, 7])
    data = gaussian_draw(
        t.components,
        null_means(margin),
        scenario.pilot_pairs,
        scenario.pilot_per_pair,
        _pool_effects(t, scenario.pilot_pool, rng),
        rng,
    )
    pilot = pilot_from_differences(data, profile=False)
    targets = targets_at_truth(t, margin, margin, tie_alpha)
    first = first_stage_pairs(pilot, per_pair, pool, targets)
    return None if first is None else (data, first)


def null_means(margin: float) -> dict[str, float]:
    """The means under the null: rubric at the smallest effect (``margin``),
    :data:`NULL_DIMENSION` at +margin, the others 0."""
    return dict.fromkeys(DIMENSIONS, 0.0) | {PERSONAL_DIMENSION: margin, NULL_DIMENSION: margin}


def _pool_effects(t: Truth, size: int, rng: np.random.Generator) -> dict[str, FloatArray]:
    sd = {dim: float(np.sqrt(t.components[dim].annotator)) for dim in DIMENSIONS}
    return {dim: rng.normal(0.0, sd[dim], size) for dim in DIMENSIONS}


def null_study(
    t: Truth,
    pilot: NullPilot,
    seed: int,
    index: tuple[int, int],
    per_pair: int = 2,
    pool: int = 48,
    margin: float = 0.5,
    tie_alpha: float | None = None,
) -> NullOutcome:
    """One main study after a null pilot: the first stage from a pool of its own; the look
    (:func:`analysis.inference.reestimate.reestimated_pairs` at its defaults, the tie
    questions sized at ``tie_alpha`` when given); the second stage from the same pool; the
    tests at the end on the main study's pairs, superiority at alpha 0.05 and the TOST at
    ``tie_alpha`` (0.05 when None)."""
    from analysis.inference.crossed import (
        crossed_mean,
    )
    from analysis.inference.reestimate import combined_pilot, reestimated_pairs

    planned = targets_at_truth(t, margin, margin, tie_alpha)
    means = null_means(margin)
    rng = np.random.default_rng([seed, *index, 8])
    pilot_data, first = pilot
    pool_effects = _pool_effects(t, pool, rng)
    stage = gaussian_draw(t.components, means, first, per_pair, pool_effects, rng)
    look = reestimated_pairs(combined_pilot(pilot_data, stage), per_pair, pool, planned, first)
    rest = gaussian_draw(t.components, means, look.final - first, per_pair, pool_effects, rng)
    tests = {}
    for dim in (PERSONAL_DIMENSION, NULL_DIMENSION):
        d = np.concatenate([stage[dim][0], rest[dim][0]])
        pair = np.concatenate([stage[dim][1], rest[dim][1] + first])
        annotator = np.concatenate([stage[dim][2], rest[dim][2]])
        tests[dim] = crossed_mean(d, pair, annotator)
    sup = tests[PERSONAL_DIMENSION].p_greater(margin)
    tost = tests[NULL_DIMENSION].tost_p(margin)
    level = planned.tost_alpha
    return NullOutcome(
        first, look.final, sup is not None and sup < 0.05, tost is not None and tost < level, tost
    )


def fixed_null(
    scenario: Scenario,
    runs: int,
    seed: int,
    n_pairs: int,
    per_pair: int = 2,
    pool: int = 48,
    margin: float = 0.5,
) -> list[tuple[bool, bool]]:
    """The same tests under the same null at a fixed size (no pilot, no look): whether the
    rubric superiority test and :data:`NULL_DIMENSION`'s TOST reject, per run; the baseline
    the internal pilot's type-I error is read against."""
    from analysis.inference.crossed import (
        crossed_mean,
    )

    t = truth(scenario, seed)
    out = []
    for i in range(runs):
        rng = np.random.default_rng([seed, i, 9])
        data = gaussian_draw(
            t.components, null_means(margin), n_pairs, per_pair, _pool_effects(t, pool, rng), rng
        )
        sup = crossed_mean(*data[PERSONAL_DIMENSION]).p_greater(margin)
        tost = crossed_mean(*data[NULL_DIMENSION]).tost_p(margin)
        out.append((sup is not None and sup < 0.05, tost is not None and tost < 0.05))
    return out


def null_run(
    scenario: Scenario,
    pilots: int,
    per_pilot: int,
    seed: int,
    start: int = 0,
    tie_alpha: float | None = None,
) -> list[list[NullOutcome]]:
    """The internal pilot under the null: for pilots ``start`` .. ``start + pilots - 1``
    (:func:`null_pilot`), ``per_pilot`` main studies each (:func:`null_study`); the pilot
    only sets the first stage and joins the look's fit, so its fits are shared by the
    studies after it (the MC SE then counts pilots as clusters); ``tie_alpha``: the tie
    questions sized and tested at that level (the product's internal pilot)."""
    t = truth(scenario, seed)
    out = []
    for j in range(start, start + pilots):
        pilot = null_pilot(scenario, t, seed, j, tie_alpha=tie_alpha)
        if pilot is not None:
            out.append(
                [null_study(t, pilot, seed, (j, r), tie_alpha=tie_alpha) for r in range(per_pilot)]
            )
    return out


def clustered_share(hits: list[list[bool]]) -> tuple[float, float]:
    """The share of hits over clustered runs and its MC SE (between-cluster variance of the
    cluster totals, ratio estimator)."""
    totals = np.array([sum(c) for c in hits], dtype=np.float64)
    sizes = np.array([len(c) for c in hits], dtype=np.float64)
    share = float(totals.sum() / sizes.sum())
    g = len(hits)
    resid = totals - share * sizes
    se = float(np.sqrt(g / (g - 1) * np.sum(resid**2)) / sizes.sum()) if g > 1 else float("nan")
    return share, se


__all__ = ["GENERAL_DIMENSIONS", "SCENARIOS", "Scenario", "run", "truth"]
