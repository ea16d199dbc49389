"""Sizing the main study from a pilot: pairs, annotators per pair and the annotator pool.

The primary analysis (:mod:`analysis.inference.primary`) fits, per dimension, the crossed model
of one annotator's chosen - rejected difference on one pair,

    d_pa = mu + v_p + u_a + e_pa,  v_p ~ N(0, s2_pair), u_a ~ N(0, s2_annotator),
    e_pa ~ N(0, s2_residual),

and tests mu by its REML estimate with Satterthwaite's df
(:func:`analysis.inference.crossed.crossed_mean`). This module plans that analysis:
the pilot's components come from :mod:`analysis.inference.sizing_pilot`, each design's
variance, df and power from :mod:`analysis.inference.sizing_design`; the planner's answer
is put in words by :mod:`analysis.inference.sizing_text`. Here: the search.

The designs: n pairs, k annotators per pair (2 or more by default: the main study then
measures agreement) from a pool of m. The plan takes each design's Var(mu_hat) = w's2 at
its upper confidence limit w's2 + z sqrt(w' C w), z = Phi^-1(confidence) (0.7 by default):
one limit for the combination the design needs (:func:`planning_variances`); planning with
an upper limit of the pilot's variance rather than the estimate keeps the planned power
with about that probability (Browne, 1995). ``benchmarks/bench_sizing.py`` checks the
result against a known population. For each k and pool the fewest pairs reaching the
target power are found (:func:`analysis.inference.sizing_design.smallest_design`); the
recommendation is the design with the fewest ratings.

*Statistics in Medicine*, 14(17), 1933-1940.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np
from scipy import stats

from analysis.inference.paired import MIN_PAIRS
from analysis.inference.sizing_design import (
    ALPHA_PRECISION,
    MAX_PAIRS,
    VARIANCE_FORMULA,
    Design,
    Planned,
    Targets,
    pairs_for_alpha,
    smallest_design,
)
from analysis.inference.sizing_pilot import (
    Pilot,
)
from analysis.schema.questions import target_key
from analysis.schema.sizing_types import (
    DesignPower,
    SizingComponents,
    SizingResult,
)
from annotate.questionnaire import DEFAULT_QUESTIONNAIRE, Questionnaire, QuestionRole

DEFAULT_PER_PAIR = (2, 3, 5)
"""k >= 2: the main study then measures agreement, and the reliability caveat can fire."""
DEFAULT_POOLS = (6, 12, 24, 48)
DEFAULT_DIFFERENCE = (
    "with no difference given, the planner plans for the pilot's estimate of the rubric "
    "difference at its 80% lower confidence limit (one-sided, t on the pilot's Satterthwaite "
    "df); for the pilot's estimate itself when no design on the grid can show that limit; and "
    "for twice the smallest effect of interest when the limit is not above it or neither can "
    "be shown; the output says which"
)
WIDER_POOLS = (
    "when no design on the grid reaches the target power, the planner tries pools of two, four, "
    "... up to 16 times the grid's largest (each annotator then rates fewer pairs, so the "
    "annotator variance, which a pilot of few annotators estimates worst, weighs less), and the "
    "output says so"
)
CHECKED_PILOT = (40, 8)
"""The smallest pilot (pairs, annotators) for which benchmarks/bench_sizing.py shows the
planner's targets met; a smaller pilot gets :data:`SMALL_PILOT`."""
SMALL_PILOT = (
    "a pilot of fewer than 40 pairs or 8 annotators is said to size the study imprecisely: "
    "from 16 pairs and 4 annotators, no plan scaled from the pilot's estimates both reaches "
    "the power the study needs in 90% of pilots and asks for at most 1.25 times its pairs at "
    "the median; such a pilot is also given an internal pilot, a first stage after which the "
    "size is re-estimated from the pilot and the study's own first ratings"
)
EFFECT_CONFIDENCE = 0.8
"""One-sided confidence of the pilot's lower limit of the rubric difference planned for by
default: above the variances' (0.7), because sizes go as 1 / (difference - smallest
effect)^2, twice as steeply in a relative error of that excess as in one of the variance."""
PILOT_LIMIT = "pilot lower limit"
PILOT_ESTIMATE = "pilot estimate"
"""Where the planned rubric difference came from when the pilot's lower limit is used."""
MAX_POOL_FACTOR = 16
"""When no design on the grid reaches the target, pools up to this many times the grid's
largest are tried (:func:`_wider_pools`)."""
LIMITS_METHOD = (
    "each design's Var(mu_hat) at its upper confidence limit: w's2 + z sqrt(w' C w), z = "
    "Phi^-1(confidence), w = (1/n, 1/m, 1/(n k)), s2 the pilot's REML components and C "
    "their covariance (the inverse expected REML information of the pilot's design); the df "
    "at the estimates. The components' own upper limits shown in brackets (REML profile "
    "likelihood: the SD where the criterion, minimised over the other two, exceeds its "
    "minimum by z^2, z = Phi^-1(confidence)) are for reading only"
)


def planning_variances(pilot: Pilot, design: Design) -> Planned:
    """The pilot's components (for the df) and each dimension's Var(mu_hat) at the design at
    its upper confidence limit, one-sided at ``pilot.confidence``: Var is the linear
    combination w's2, w = (1/n, 1/m, 1/(n k)), of the components; its REML estimate has
    variance w' C w (C the pilot's :func:`component_covariance`), and the limit is
    w's2 + z sqrt(w' C w), z = Phi^-1(confidence). One limit for the combination the design
    needs, not one per component: a component the design averages over (the annotators, with a
    large pool) adds its uncertainty only in proportion."""
    z = float(stats.norm.ppf(pilot.confidence))
    variances = {}
    for dim in pilot.estimate:
        estimate, spread = _design_estimate(pilot, dim, design)
        variances[dim] = estimate + z * math.sqrt(spread)
    return pilot.estimate, variances


def _design_estimate(pilot: Pilot, dim: str, design: Design) -> tuple[float, float]:
    """The pilot's estimate of the design's Var(mu_hat), w's2, and its variance w' C w."""
    w = np.array([1 / design.n_pairs, 1 / design.pool, 1 / design.ratings])
    c = pilot.estimate[dim]
    estimate = float(w @ [c.pair, c.annotator, c.residual])
    return estimate, max(float(w @ pilot.covariance[dim] @ w), 0.0)


def size_study(
    pilot: Pilot,
    *,
    margin: float,
    smallest_effect: float | None = None,
    alpha: float = 0.05,
    target: float = 0.8,
    general_diff: float = 0.0,
    rubric_diff: float | None = None,
    per_pair: Sequence[int] = DEFAULT_PER_PAIR,
    pools: Sequence[int] = DEFAULT_POOLS,
    alpha_halfwidth: float | None = None,
) -> SizingResult:
    """For each k and pool, the fewest pairs whose validation power (Bonferroni bound) reaches
    ``target`` when each dimension's Var(mu_hat) at that design is its upper confidence limit
    (:func:`planning_components`); the recommendation is the design with the fewest ratings
    (then the smaller pool). ``rubric_diff`` None plans for the pilot's estimate of the rubric
    difference (:func:`planned_rubric_difference`). ``alpha_halfwidth``: also at least the pairs
    for which the 95% interval of Krippendorff's alpha on the rubric difference is that narrow
    (:func:`pairs_for_alpha`)."""
    if not margin > 0 or not 0 < alpha < 0.5 or not 0 < target < 1:
        raise ValueError("need margin > 0, 0 < alpha < 0.5, 0 < target < 1")
    sesoi = margin if smallest_effect is None else float(smallest_effect)
    if not sesoi > 0:
        raise ValueError(f"the smallest effect of interest must be above 0, got {sesoi:g}")
    if alpha_halfwidth is not None and not 0 < alpha_halfwidth < 1:
        raise ValueError("the alpha half-width must be between 0 and 1")
    notes: list[str] = []
    if rubric_diff is None:
        rubric, source, said = planned_rubric_difference(pilot, sesoi)
        notes.append(said)
    else:
        rubric, source = float(rubric_diff), "given"
        notes.append(f"The true rubric difference planned for ({rubric:+.3f}) was given.")
    grid = [(k, m) for k in sorted(set(per_pair)) for m in sorted(set(pools)) if 1 <= k <= m >= 2]
    search = _GridSearch(pilot, grid, alpha_halfwidth)
    plan = partial(_targets, margin, sesoi, alpha, target, general_diff, pilot.questionnaire)
    targets = plan(rubric)
    never = _never_reached(targets, pilot.questionnaire)
    designs, unreachable = ([], []) if never else search.run(targets)
    estimate = pilot.mean[pilot.target]
    if not designs and source == PILOT_LIMIT and not never and estimate > sesoi:
        rubric, source = estimate, PILOT_ESTIMATE
        notes.append(
            f"No design on the grid shows a difference that close to the smallest effect: "
            f"planned instead for the pilot's estimate ({rubric:+.3f})."
        )
        targets = plan(rubric)
        designs, unreachable = search.run(targets)
    if not designs and source in (PILOT_LIMIT, PILOT_ESTIMATE) and not never:
        rubric, source = 2 * sesoi, "twice the smallest effect"
        notes.append(
            f"No design on the grid shows a difference that close to the smallest effect: "
            f"planned instead for twice the smallest effect ({rubric:+.3f})."
        )
        targets = plan(rubric)
        designs, unreachable = search.run(targets)
    if not designs and not never:
        designs = _wider_pools(pilot, grid, alpha_halfwidth, targets, notes)
    notes += never
    true_diff = dict(targets.true_diff)
    designs.sort(key=lambda d: (d["ratings"], d["pool"], d["per_pair"]))
    if unreachable:
        notes.append(
            "Not reachable within "
            f"{MAX_PAIRS} pairs: "
            + ", ".join(f"k = {u['per_pair']} from a pool of {u['pool']}" for u in unreachable)
            + " (k = 1 cannot, and the annotator variance over the pool alone may leave too "
            "little power)."
        )
    if 1 in per_pair:
        notes.append(
            "k = 1 was allowed: such a study measures no agreement between annotators, so "
            "the reliability caveat cannot be assessed."
        )
    if pilot.n_pairs < CHECKED_PILOT[0] or pilot.n_annotators < CHECKED_PILOT[1]:
        notes.append(small_pilot_note(pilot))
    if alpha_halfwidth is not None:
        notes.append(
            f"Each design also has the pairs for a 95% interval of ±{alpha_halfwidth:g} on "
            "Krippendorff's alpha of the rubric difference (" + ALPHA_PRECISION + ")."
        )
    components: dict[str, SizingComponents] = {
        dim: {
            "estimate": pilot.estimate[dim].as_dict(),
            "upper": pilot.upper[dim].as_dict(),
            "pilot_mean": pilot.mean[dim],
        }
        for dim in pilot.estimate
    }
    return {
        "pilot": {
            "n_pairs": pilot.n_pairs,
            "n_annotators": pilot.n_annotators,
            "n_ratings": pilot.n_ratings,
        },
        "confidence": pilot.confidence,
        "limits_method": LIMITS_METHOD,
        "components": components,
        "margin": margin,
        "smallest_effect": sesoi,
        "alpha": alpha,
        "target": target,
        "true_diff": true_diff,
        "designs": designs,
        "recommended": designs[0] if designs else None,
        "unreachable": unreachable,
        "variance_formula": VARIANCE_FORMULA,
        "method": METHOD,
        "notes": notes,
        "rubric_diff_source": source,
        "alpha_halfwidth": alpha_halfwidth,
        "target_question": pilot.target,
    }


def _targets(
    margin: float,
    sesoi: float,
    alpha: float,
    target: float,
    general: float,
    questionnaire: Questionnaire,
    rubric: float,
) -> Targets:
    """The differences planned for: ``general`` on each ``tie`` question, ``rubric`` on each
    ``diverge`` question, in the questionnaire's order."""
    diverge = frozenset(questionnaire.diverge_keys)
    tested = [q.key for q in questionnaire.questions if q.role is not QuestionRole.DESCRIBE]
    planned = {key: rubric if key in diverge else float(general) for key in tested}
    return Targets(margin, sesoi, alpha, target, planned, diverge)


def small_pilot_note(pilot: Pilot) -> str:
    """What a pilot smaller than :data:`CHECKED_PILOT` can and cannot tell (measured by
    ``benchmarks/bench_sizing.py``, "small pilot")."""
    pairs, annotators = CHECKED_PILOT
    return (
        f"This pilot ({pilot.n_pairs} pairs, {pilot.n_annotators} annotators) is smaller than "
        f"{pairs} pairs and {annotators} annotators: "
        f"its annotator variance rests on {pilot.n_annotators - 1} df, and sizes planned from "
        "such a pilot vary widely. In simulation (benchmarks/bench_sizing.py), pilots of 16 "
        "pairs and 4 annotators reached the power the study needs in 38 of 40 cases but asked "
        "for a median 1.8 times the pairs it needs; no plan scaled from such a pilot's "
        "estimates does both within 1.25 times at the median and 90% of the time. A larger "
        "pilot, with more annotators first, sizes the study more precisely; or run the "
        "internal pilot below, which re-estimates the size from the study's first stage (in "
        "simulation: a median 1.20-1.27 times the pairs needed, reaching the power in 74 of "
        "80 such pilots)."
    )


def _wider_pools(
    pilot: Pilot,
    grid: Sequence[tuple[int, int]],
    alpha_halfwidth: float | None,
    targets: Targets,
    notes: list[str],
) -> list[DesignPower]:
    """When no design on the grid reaches the target, the same k from pools twice, four
    times, ... the largest (up to MAX_POOL_FACTOR times): annotators then rate fewer pairs,
    so the annotator variance, which a pilot of few annotators estimates worst, is averaged
    over more of them. The first such pool with a design is said in the notes."""
    largest = max(m for _, m in grid)
    per_pair = sorted({k for k, _ in grid})
    factor = 2
    while factor <= MAX_POOL_FACTOR:
        pool = largest * factor
        search = _GridSearch(pilot, [(k, pool) for k in per_pair], alpha_halfwidth)
        designs, _ = search.run(targets)
        if designs:
            notes.append(
                f"No design with a pool of at most {largest} reaches the target power (the "
                f"pilot's annotator variance, at its upper limit, leaves too little): widened "
                f"to a pool of {pool}, whose annotators each rate fewer pairs."
            )
            return designs
        factor *= 2
    return []


@dataclass(frozen=True)
class _GridSearch:
    """The smallest design per (k, pool) of the grid, each design's variance at its upper
    limit (:func:`planning_variances`)."""

    pilot: Pilot
    grid: list[tuple[int, int]]
    alpha_halfwidth: float | None

    def run(self, targets: Targets) -> tuple[list[DesignPower], list[dict[str, int]]]:
        designs: list[DesignPower] = []
        unreachable: list[dict[str, int]] = []

        def planned(design: Design) -> Planned:
            return planning_variances(self.pilot, design)

        for k, m in self.grid:
            floor = MIN_PAIRS
            if self.alpha_halfwidth is not None:
                rubric = self.pilot.estimate[self.pilot.target]
                floor = max(floor, pairs_for_alpha(rubric, k, self.alpha_halfwidth))
            found = smallest_design(planned, k, m, targets, floor)
            if found is None:
                unreachable.append({"per_pair": k, "pool": m})
            else:
                designs.append(found)
        return designs, unreachable


def planned_rubric_difference(pilot: Pilot, sesoi: float) -> tuple[float, str, str]:
    """The rubric difference to plan for when none is given, where it comes from, and the
    sentence that says so: the pilot's estimate at its lower confidence limit (one-sided at
    EFFECT_CONFIDENCE, t on the pilot's Satterthwaite df) when that exceeds the smallest
    effect of interest, so that the effect is taken on the cautious side as the variances
    are (sizes go as 1 / (difference - smallest effect)^2: planning for the estimate itself
    leaves the study short whenever the pilot overestimates); otherwise twice the smallest
    effect (a pilot that cannot place the difference above the smallest effect would plan
    for a difference the study could hardly show, or none at all)."""
    estimate = pilot.mean[pilot.target]
    se = pilot.mean_se.get(pilot.target, 0.0)
    df = pilot.mean_df.get(pilot.target, 1.0)
    lower = estimate - float(stats.t.ppf(EFFECT_CONFIDENCE, df)) * se
    limit = f"{EFFECT_CONFIDENCE:.0%} lower confidence limit"
    if lower > sesoi:
        return (
            lower,
            PILOT_LIMIT,
            f"The true rubric difference planned for ({lower:+.3f}) is the {limit} of the "
            f"pilot's estimate ({estimate:+.3f}); give one to plan for another.",
        )
    return (
        2 * sesoi,
        "twice the smallest effect",
        f"The pilot's estimate of the rubric difference ({estimate:+.3f}; {limit} "
        f"{lower:+.3f}) is not clearly above the smallest effect of interest ({sesoi:g}): "
        f"planned instead for twice the smallest effect ({2 * sesoi:+.3f}); give a "
        "difference to plan for another.",
    )


def _never_reached(
    targets: Targets, questionnaire: Questionnaire = DEFAULT_QUESTIONNAIRE
) -> list[str]:
    """Why no design can reach the target (the planned differences are outside what the tests
    can show), in words; empty when some design can."""
    reasons = []
    rubric = targets.true_diff[target_key(questionnaire)]
    if rubric <= targets.smallest_effect:
        reasons.append(
            f"Unreachable: rubric alignment must exceed the smallest effect of interest "
            f"({targets.smallest_effect:g}) and the planned true difference is {rubric:+.3f}."
        )
    for dim in questionnaire.tie_keys:
        if abs(targets.true_diff[dim]) >= targets.margin:
            reasons.append(
                f"Unreachable: {dim}'s planned difference {targets.true_diff[dim]:+g} is not "
                f"inside ±{targets.margin:g}."
            )
    return reasons


METHOD = (
    "Design: n pairs, k annotators per pair from a pool of m, each annotator rating n k / m "
    "pairs (n rounded up so that m divides n k); " + VARIANCE_FORMULA + " (exact for such "
    "an equal-replication design), df by Satterthwaite at the planning values (REML expected "
    "information of a cyclic design; one-factor designs: the df of the model the analysis "
    "fits). Power: rubric alignment's one-sided test of d > smallest effect by the noncentral "
    "t, each general dimension's TOST at ±margin by integration over the estimated SE; the "
    "study's power is at least 1 - sum(1 - power) (Bonferroni, any correlation between "
    "dimensions), and the design reaches the target when that bound does. Where the pilot "
    "says little: " + DEFAULT_DIFFERENCE + "; " + WIDER_POOLS + "; " + SMALL_PILOT + "."
)
