"""The study-sizing planner's answer (`analysis.inference.sizing.size_study`): JSON-ready."""

from __future__ import annotations

from typing import NotRequired, TypedDict


class ComponentSet(TypedDict):
    """Variances (points squared) of one annotator's chosen - rejected difference."""

    pair: float
    annotator: float
    residual: float


class SizingComponents(TypedDict):
    estimate: ComponentSet  # the pilot's REML estimates
    upper: ComponentSet  # their upper confidence limits: what the plan uses
    pilot_mean: float  # the pilot's estimate of the mean difference


class TestAtDesign(TypedDict):
    test: str  # "tost" or "superiority"
    se: float  # sqrt(Var(mu_hat)) at the upper limits
    df: float  # Satterthwaite's, at the upper limits
    power: float


class DesignPower(TypedDict):
    n_pairs: int
    per_pair: int  # annotators per pair, k
    pool: int  # annotators in the pool, m
    per_annotator: int  # pairs each annotator rates at least, floor(n k / m)
    per_annotator_max: NotRequired[int]  # ... and at most, ceil(n k / m)
    ratings: int  # n k
    model: str  # what the primary analysis fits to this design
    tests: dict[str, TestAtDesign]
    joint_power_bound: float  # 1 - sum(1 - power): the study's power is at least this


class PilotSize(TypedDict):
    n_pairs: int
    n_annotators: int
    n_ratings: int


class InternalPilotPlan(TypedDict):
    """An internal pilot (`analysis.inference.reestimate`): a first stage, one look that
    re-estimates the variance components, a final size between the first stage and the cap."""

    first_stage: int  # N1 pairs: a fraction of the size at the pilot's point estimates
    fraction: float  # that fraction
    per_pair: int
    pool: int
    cap: int  # the final size is at most this
    expected_final: int  # the first stage times the median growth measured in simulation
    growth: float  # that median final / first stage (benchmarks/bench_sizing.py)
    fixed: int  # the fixed plan's pairs (upper limits from the pilot alone), for comparison
    confidence: float  # one-sided, of the upper limit the look sizes at (0.5: the estimates)
    factor: float  # the final size is this times the size at that limit, rounded up
    alpha: float  # the superiority test's level (the plan's alpha)
    tie_alpha: float  # each tie question's TOST level after the look; the ties sized at it
    tie_alpha_why: str
    rule: str


class SizingResult(TypedDict):
    pilot: PilotSize
    confidence: float  # one-sided, of the upper limits
    limits_method: str
    components: dict[str, SizingComponents]
    margin: float
    smallest_effect: float
    alpha: float
    target: float
    true_diff: dict[str, float]
    designs: list[DesignPower]  # the smallest design per (k, pool) reaching the target
    recommended: DesignPower | None  # the fewest ratings
    unreachable: list[dict[str, int]]  # (k, pool) combinations that do not reach it
    variance_formula: str
    method: str
    notes: list[str]
    rubric_diff_source: NotRequired[str]  # given, pilot lower limit, pilot estimate,
    # twice the smallest effect
    alpha_halfwidth: NotRequired[float | None]  # the precision asked of alpha, if any
    target_question: NotRequired[str]  # the question whose difference `rubric_diff` plans
    internal_pilot: NotRequired[InternalPilotPlan]  # recommended when the pilot is small


class LookResult(TypedDict):
    """The internal pilot's re-estimation look (`analysis.inference.reestimate.look`)."""

    first_stage: int  # pairs rated in the first stage
    per_pair: int
    pool: int
    cap: int
    pilot: PilotSize
    components: dict[str, ComponentSet]  # re-fitted on the pilot and the first stage
    true_diff: dict[str, float]  # the differences planned for (fixed before the study)
    rubric_diff_source: str
    confidence: float  # of the upper limit the look sizes at (0.5: the point estimates)
    factor: float
    alpha: float  # the superiority test's level
    tie_alpha: float  # each tie question's TOST level; the ties sized at it
    asked: int | None  # the size the re-fitted components ask for (None: none up to the max)
    wanted: int | None  # asked times the factor, rounded up
    final: int  # wanted, kept between the first stage and the cap
    capped: bool
    rule: str
