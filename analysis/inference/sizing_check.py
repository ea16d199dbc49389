"""The sizing planner checked against the truth: pilots drawn from a known population, each
sized by :func:`analysis.inference.sizing.size_study`, and the design it recommends compared
with what the population's true components need (``benchmarks/bench_sizing.py`` prints it; a
seeded reduced run is in ``tests/analysis/inference/test_sizing.py``). The internal pilot is checked
on the same population in :mod:`analysis.inference.reestimate_check`, the tests' type-I error with
its look in :mod:`analysis.inference.null_check`.

The population (per pair p, annotator a, dimension; scores on the 1-5 scale): a pair quality
q_p ~ N(3, 0.7) shared by both responses and all dimensions; per dimension the chosen and
rejected latent values q_p +- effect / 2, each plus a pair-level response deviation
N(0, response_sd) that every annotator sees; an annotator's leniency N(0, 0.3) on both
responses (it cancels in chosen - rejected) and an annotator x response tilt N(0, tilt_sd)
added half to chosen and half taken from rejected (the annotator variance of the difference);
noise N(0, noise_sd) on every score; scores rounded and clipped to 1-5. The "true" components
and means are those of a two-way ANOVA of a large fully crossed sample of the same population
(rounding and clipping make them differ from the latent values: a latent rubric effect of 1.0 is a
difference of about 0.94 points).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from analysis.core.coded import FloatArray, IntArray
from analysis.inference.sizing import (
    size_study,
)
from analysis.inference.sizing_design import (
    Design,
    Targets,
    power_at,
    smallest_design,
)
from analysis.inference.sizing_pilot import (
    DEFAULT_CONFIDENCE,
    Components,
    pilot_from_differences,
)
from analysis.schema.questions import target_key
from annotate.questionnaire import DEFAULT_QUESTIONNAIRE

DIMENSIONS = DEFAULT_QUESTIONNAIRE.keys
"""The questionnaire the check simulates: the benchmark's (three ties, the rubric diverges)."""
GENERAL_DIMENSIONS = DEFAULT_QUESTIONNAIRE.tie_keys
PERSONAL_DIMENSION = target_key(DEFAULT_QUESTIONNAIRE)

Differences = dict[str, tuple[FloatArray, IntArray, IntArray]]


@dataclass(frozen=True)
class Scenario:
    name: str
    rubric_effect: float = 1.0  # latent chosen - rejected of rubric alignment (general: 0)
    response_sd: float = 0.3
    tilt_sd: float = 0.25
    noise_sd: float = 0.8
    pilot_pairs: int = 40
    pilot_per_pair: int = 3
    pilot_pool: int = 8


SCENARIOS = (
    Scenario("typical"),
    Scenario("annotator-heavy", tilt_sd=0.5),
    Scenario("pair-heavy", response_sd=0.6),
    Scenario("noisy", noise_sd=1.1, rubric_effect=1.2),
    Scenario("small pilot", tilt_sd=0.5, pilot_pairs=16, pilot_per_pair=2, pilot_pool=4),
)
TRUTH_PAIRS, TRUTH_POOL = 2000, 200


def draw(
    scenario: Scenario, n_pairs: int, per_pair: int, pool: int, rng: np.random.Generator
) -> Differences:
    """Each dimension's (chosen - rejected, pair, annotator) of a sample of the population:
    every pair rated by ``per_pair`` different annotators of the pool, chosen at random."""
    annotator = np.concatenate([rng.choice(pool, per_pair, replace=False) for _ in range(n_pairs)])
    pair = np.repeat(np.arange(n_pairs), per_pair)
    quality = rng.normal(3.0, 0.7, n_pairs)[pair]
    leniency = rng.normal(0.0, 0.3, pool)[annotator]
    out: Differences = {}
    for dim in DIMENSIONS:
        effect = scenario.rubric_effect if dim == PERSONAL_DIMENSION else 0.0
        tilt = rng.normal(0.0, scenario.tilt_sd, pool)[annotator]
        scores = []
        for sign in (1.0, -1.0):
            deviation = rng.normal(0.0, scenario.response_sd, n_pairs)[pair]
            latent = quality + sign * (effect + tilt) / 2 + deviation + leniency
            noisy = latent + rng.normal(0.0, scenario.noise_sd, len(pair))
            scores.append(np.clip(np.rint(noisy), 1, 5))
        out[dim] = (scores[0] - scores[1], pair, annotator)
    return out


@dataclass(frozen=True)
class Truth:
    components: dict[str, Components]
    mean: dict[str, float]


def truth(scenario: Scenario, seed: int = 0) -> Truth:
    """The population's components and means, by the two-way ANOVA of a fully crossed panel
    of TRUTH_PAIRS pairs x TRUTH_POOL annotators (expected mean squares: s2_e = MS_e,
    s2_p = (MS_p - MS_e) / m, s2_a = (MS_a - MS_e) / n; unbiased, and fast where a REML fit
    of that size is not)."""
    n, m = TRUTH_PAIRS, TRUTH_POOL
    sample = draw(scenario, n, m, m, np.random.default_rng([seed, 99]))
    components, mean = {}, {}
    for dim, (d, pair, annotator) in sample.items():
        table = np.zeros((n, m))
        table[pair, annotator] = d
        grand = float(table.mean())
        rows, cols = table.mean(axis=1), table.mean(axis=0)
        ms_p = m * float(np.sum((rows - grand) ** 2)) / (n - 1)
        ms_a = n * float(np.sum((cols - grand) ** 2)) / (m - 1)
        residual = table - rows[:, None] - cols[None, :] + grand
        ms_e = float(np.sum(residual**2)) / ((n - 1) * (m - 1))
        components[dim] = Components(max((ms_p - ms_e) / m, 0.0), max((ms_a - ms_e) / n, 0.0), ms_e)
        mean[dim] = grand
    return Truth(components, mean)


@dataclass(frozen=True)
class PilotOutcome:
    """One pilot: the recommendation when the true rubric difference is given (``given_*``),
    the pairs the true components need for the same k and pool, the true power (Bonferroni
    bound) of the recommendation, and the same for the default (no difference given)."""

    given_design: tuple[int, int, int] | None  # (pairs, k, pool)
    needed_pairs: int | None
    given_power: float | None
    default_design: tuple[int, int, int] | None
    default_source: str
    default_diff: float
    default_power: float | None


def targets_at_truth(
    t: Truth, margin: float, sesoi: float, tie_alpha: float | None = None
) -> Targets:
    true_diff = {d: (t.mean[d] if d == PERSONAL_DIMENSION else 0.0) for d in DIMENSIONS}
    return Targets(margin, sesoi, 0.05, 0.8, true_diff, tie_alpha=tie_alpha)


def one_pilot(
    scenario: Scenario,
    t: Truth,
    rng: np.random.Generator,
    margin: float = 0.5,
    confidence: float = DEFAULT_CONFIDENCE,
) -> PilotOutcome:
    sample = draw(scenario, scenario.pilot_pairs, scenario.pilot_per_pair, scenario.pilot_pool, rng)
    pilot = pilot_from_differences(sample, confidence, profile=False)
    targets = targets_at_truth(t, margin, margin)
    rubric = t.mean[PERSONAL_DIMENSION]
    given = size_study(pilot, margin=margin, rubric_diff=rubric)["recommended"]
    default = size_study(pilot, margin=margin)
    best = default["recommended"]
    needed = None
    if given is not None:
        at_truth = smallest_design(t.components, given["per_pair"], given["pool"], targets)
        needed = None if at_truth is None else at_truth["n_pairs"]
    return PilotOutcome(
        _triple(given),
        needed,
        _true_power(t.components, given, targets),
        _triple(best),
        default.get("rubric_diff_source", ""),
        default["true_diff"][PERSONAL_DIMENSION],
        _true_power(t.components, best, targets),
    )


def _triple(found: Mapping[str, object] | None) -> tuple[int, int, int] | None:
    if found is None:
        return None
    return (int(str(found["n_pairs"])), int(str(found["per_pair"])), int(str(found["pool"])))


def _true_power(
    components: Mapping[str, Components], found: Mapping[str, object] | None, targets: Targets
) -> float | None:
    design = _triple(found)
    if design is None:
        return None
    return power_at(components, Design(*design), targets)["joint_power_bound"]


@dataclass(frozen=True)
class ScenarioSummary:
    name: str
    pilots: int
    true_rubric: float
    k1: int  # recommendations with one annotator per pair
    median_ratio: float  # recommended pairs / pairs the true components need (same k, pool)
    powered: int  # recommendations whose true power (bound) is at least 0.80
    default_found: int  # pilots for which the default (no difference given) finds a design
    default_sources: dict[str, int]
    default_powered: int
    median_pairs: float
    median_needed: float


def run(
    scenario: Scenario, pilots: int, seed: int, confidence: float = DEFAULT_CONFIDENCE
) -> tuple[ScenarioSummary, list[PilotOutcome]]:
    """``pilots`` seeded pilots of the scenario, each sized, against the truth."""
    t = truth(scenario, seed)
    outcomes = [
        one_pilot(scenario, t, np.random.default_rng([seed, i]), confidence=confidence)
        for i in range(pilots)
    ]
    ratios = [
        o.given_design[0] / o.needed_pairs
        for o in outcomes
        if o.given_design is not None and o.needed_pairs
    ]
    sources: dict[str, int] = {}
    for o in outcomes:
        sources[o.default_source] = sources.get(o.default_source, 0) + 1
    given = [o for o in outcomes if o.given_design is not None]
    summary = ScenarioSummary(
        scenario.name,
        pilots,
        t.mean[PERSONAL_DIMENSION],
        sum(o.given_design[1] == 1 for o in given if o.given_design is not None)
        + sum(o.default_design[1] == 1 for o in outcomes if o.default_design is not None),
        float(np.median(ratios)) if ratios else float("nan"),
        sum((o.given_power or 0.0) >= 0.8 for o in outcomes),
        sum(o.default_design is not None for o in outcomes),
        sources,
        sum((o.default_power or 0.0) >= 0.8 for o in outcomes),
        float(np.median([o.given_design[0] for o in given if o.given_design is not None]))
        if given
        else float("nan"),
        float(np.median([o.needed_pairs for o in outcomes if o.needed_pairs])),
    )
    return summary, outcomes


@dataclass(frozen=True)
class Frontier:
    """How tight any plan scaled from a pilot can be: n_hat the pairs planned at the pilot's
    estimates (no limit), need the pairs the true components need, both for k and pool. A
    rule n = c n_hat reaches the need in 90% of pilots only when c >= 1 / q10(n_hat / need),
    and its median ratio is then at least median(n_hat / need) / q10(n_hat / need)."""

    need: int
    q10: float
    median: float

    @property
    def best_median_ratio(self) -> float:
        return self.median / self.q10


def frontier(
    scenario: Scenario, pilots: int, seed: int, per_pair: int = 2, pool: int = 48
) -> Frontier:
    """:class:`Frontier` over ``pilots`` seeded pilots of the scenario (the same pilots as
    :func:`run`'s)."""
    t = truth(scenario, seed)
    targets = targets_at_truth(t, 0.5, 0.5)
    at_truth = smallest_design(t.components, per_pair, pool, targets)
    if at_truth is None:
        raise ValueError("the true components reach no design")
    ratios = []
    for i in range(pilots):
        rng = np.random.default_rng([seed, i])
        sample = draw(
            scenario, scenario.pilot_pairs, scenario.pilot_per_pair, scenario.pilot_pool, rng
        )
        pilot = pilot_from_differences(sample, profile=False)
        found = smallest_design(pilot.estimate, per_pair, pool, targets)
        ratios.append(np.inf if found is None else found["n_pairs"] / at_truth["n_pairs"])
    return Frontier(at_truth["n_pairs"], float(np.quantile(ratios, 0.1)), float(np.median(ratios)))
