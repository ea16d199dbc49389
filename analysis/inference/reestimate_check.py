"""The internal pilot checked against the truth (:mod:`analysis.inference.reestimate`): small
pilots of the population of :mod:`analysis.inference.sizing_check` sized by a first stage and a
re-estimate, the final sizes against what the truth needs (``benchmarks/bench_sizing.py
--reestimate``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from analysis.inference.sizing import (
    size_study,
)
from analysis.inference.sizing_check import (
    PERSONAL_DIMENSION,
    Scenario,
    Truth,
    draw,
    targets_at_truth,
    truth,
)
from analysis.inference.sizing_design import (
    Design,
    power_at,
    smallest_design,
)
from analysis.inference.sizing_pilot import (
    pilot_from_differences,
)

REESTIMATE_CONFIDENCES = (0.5, 0.6, 0.7, 0.75, 0.8)
"""The look's confidences simulated side by side (the product uses REESTIMATE_CONFIDENCE)."""

SIZE_FACTORS = (1.0, 1.1, 1.15, 1.2)
"""Factors on the look's size simulated side by side (the product uses SIZE_FACTOR at the
estimates; the former rule, the 80% upper limit, is factor 1)."""


FIRST_FRACTIONS = (0.7, 1.0)
"""First stages simulated side by side, as fractions of the size at the pilot's estimates."""


@dataclass(frozen=True)
class ReestimateOutcome:
    """One pilot sized by the internal pilot at the fixed plan's k and pool: the fixed plan's
    pairs, the pairs the true components need, and per first-stage fraction the first stage
    and, per look confidence, the size the re-fitted components ask for (None: none up to the
    maximum); ``need`` is at the levels the study is tested at (the tie questions at the
    run's tie alpha), ``need_alpha`` with every test at alpha."""

    per_pair: int
    pool: int
    fixed: int
    need: int
    first_stage: dict[float, int]
    asked: dict[float, dict[float, int | None]]
    need_alpha: int


def reestimate_pilot(
    scenario: Scenario,
    t: Truth,
    rng: np.random.Generator,
    margin: float = 0.5,
    tie_alpha: float | None = None,
    fractions: tuple[float, ...] = FIRST_FRACTIONS,
) -> ReestimateOutcome | None:
    """One pilot (the same draw as :func:`one_pilot`'s for the same generator), its fixed
    plan given the true rubric difference, first stages at fractions of the size at the
    pilot's point estimates, each drawn from the population, and the look's re-estimated
    sizes; ``tie_alpha``: the first stage and the look size the tie questions at that level
    (the fixed plan and the need stay at alpha)."""
    from analysis.inference.reestimate import combined_pilot, first_stage_pairs, reestimated_pairs

    sample = draw(scenario, scenario.pilot_pairs, scenario.pilot_per_pair, scenario.pilot_pool, rng)
    pilot = pilot_from_differences(sample, profile=False)
    targets = targets_at_truth(t, margin, margin, tie_alpha)
    best = size_study(pilot, margin=margin, rubric_diff=t.mean[PERSONAL_DIMENSION])["recommended"]
    if best is None:
        return None
    k, pool = best["per_pair"], best["pool"]
    at_truth = smallest_design(t.components, k, pool, targets)
    at_alpha = smallest_design(t.components, k, pool, targets_at_truth(t, margin, margin))
    if at_truth is None or at_alpha is None:
        return None
    firsts, asked = {}, {}
    for fraction in fractions:
        first = first_stage_pairs(pilot, k, pool, targets, fraction)
        if first is None:
            return None
        combined = combined_pilot(sample, draw(scenario, first, k, pool, rng))
        firsts[fraction] = first
        asked[fraction] = {
            c: reestimated_pairs(combined, k, pool, targets, first, c).needed
            for c in REESTIMATE_CONFIDENCES
        }
    return ReestimateOutcome(
        k, pool, best["n_pairs"], at_truth["n_pairs"], firsts, asked, at_alpha["n_pairs"]
    )


def reestimate_run(
    scenario: Scenario,
    pilots: int,
    seed: int,
    tie_alpha: float | None = None,
    fractions: tuple[float, ...] = FIRST_FRACTIONS,
) -> tuple[Truth, list[ReestimateOutcome]]:
    """:func:`reestimate_pilot` over ``pilots`` seeded pilots (those of :func:`run`)."""
    t = truth(scenario, seed)
    outcomes = []
    for i in range(pilots):
        rng = np.random.default_rng([seed, i])
        found = reestimate_pilot(scenario, t, rng, tie_alpha=tie_alpha, fractions=fractions)
        if found is not None:
            outcomes.append(found)
    return t, outcomes


def final_pairs(
    outcome: ReestimateOutcome,
    fraction: float,
    confidence: float,
    cap_factor: float,
    factor: float = 1.0,
) -> int:
    """The final size of the rule: ``factor`` times asked, rounded up, kept within [first
    stage, cap] (as :func:`analysis.inference.reestimate.reestimated_pairs`)."""
    first = outcome.first_stage[fraction]
    cap = int(np.floor(cap_factor * first))
    asked = outcome.asked[fraction][confidence]
    wanted = cap if asked is None else int(np.ceil(factor * asked - 1e-9))
    return min(max(wanted, first), cap)


def true_power(
    t: Truth,
    outcome: ReestimateOutcome,
    n_pairs: int,
    margin: float = 0.5,
    tie_alpha: float | None = None,
) -> float:
    """The Bonferroni bound at the true components, the TOSTs at ``tie_alpha`` when given."""
    design = Design(n_pairs, outcome.per_pair, outcome.pool)
    targets = targets_at_truth(t, margin, margin, tie_alpha)
    return power_at(t.components, design, targets)["joint_power_bound"]


@dataclass(frozen=True)
class ReestimateSummary:
    """A rule (first-stage fraction, look confidence, cap) over the pilots: the median first
    stage / need and final / need, the pilots whose final size has true power >= 0.80, the
    pilots capped."""

    fraction: float
    confidence: float
    cap_factor: float
    factor: float
    pilots: int
    median_first: float
    median_ratio: float
    median_ratio_se: float  # its Monte Carlo SE: the bootstrap over the pilots
    q90_ratio: float
    powered: int
    capped: int
    growth: float  # median final / first stage


def median_se(values: list[float], resamples: int = 2000) -> float:
    """The Monte Carlo standard error of a median over pilots: the bootstrap's (seeded, so a
    benchmark's figures repeat)."""
    if len(values) < 2:
        return float("nan")
    result = stats.bootstrap(
        (np.asarray(values),),
        np.median,
        n_resamples=resamples,
        method="percentile",
        rng=np.random.default_rng(0),
    )
    return float(result.standard_error)


def summarise(
    t: Truth,
    outcomes: list[ReestimateOutcome],
    fraction: float,
    confidence: float,
    cap_factor: float,
    tie_alpha: float | None = None,
    factor: float = 1.0,
) -> ReestimateSummary:
    finals = [final_pairs(o, fraction, confidence, cap_factor, factor) for o in outcomes]
    ratios = [f / o.need for f, o in zip(finals, outcomes, strict=True)]
    capped = sum(
        final_pairs(o, fraction, confidence, 1e9, factor) > f
        for f, o in zip(finals, outcomes, strict=True)
    )
    return ReestimateSummary(
        fraction,
        confidence,
        cap_factor,
        factor,
        len(outcomes),
        float(np.median([o.first_stage[fraction] / o.need for o in outcomes])),
        float(np.median(ratios)),
        median_se(ratios),
        float(np.quantile(ratios, 0.9)),
        sum(
            true_power(t, o, f, tie_alpha=tie_alpha) >= 0.8
            for f, o in zip(finals, outcomes, strict=True)
        ),
        capped,
        float(
            np.median([f / o.first_stage[fraction] for f, o in zip(finals, outcomes, strict=True)])
        ),
    )
