"""An internal pilot: the main study's size re-estimated once, from its own first stage.

A small pilot (fewer than :data:`analysis.inference.sizing.CHECKED_PILOT` pairs or annotators)
estimates the variance components too loosely for a fixed size that is both safe and tight
(``benchmarks/bench_sizing.py``: from 16 pairs x 2 of 4 annotators, any plan scaled from the
pilot's estimates needs a median of at least 1.37 times the pairs the study needs to reach that
need in 90% of pilots). The remedy is the internal pilot with sample-size re-estimation
(Wittes & Brittain, 1990; Birkett & Day, 1994; Kieser & Friede, 2003):

1. **First stage.** N1 pairs at the planner's k and pool: :data:`FIRST_STAGE_FRACTION`
   (0.7) of the fewest for which the pilot's *point estimates* of the components give the
   target power (:func:`first_stage_pairs`), at least MIN_PAIRS. Not the whole of it: the
   size at the estimates is already 1.18 times the need at the median from a small pilot
   (sizes go as 1 / variance, convex in the estimate), and the final size is never below
   the first stage, so a full first stage leaves the look no room to come down
   (``benchmarks/bench_sizing.py --reestimate``, two sets of 40 small pilots, look at 80%:
   1.38 and 1.33 times the need at the median with the whole (40 and 38 of 40 reaching the
   power), 1.27 and 1.20 with 0.7 (38 and 36 of 40)).
2. **One re-estimation look** once those N1 pairs are rated: the components are re-fitted on
   the pilot and the first stage together (each annotator and pair its own level), and the
   final size N is :data:`SIZE_FACTOR` (1.15) times the fewest pairs reaching the target at
   their point estimates, rounded up; never below N1, never above the cap ``CAP_FACTOR`` x N1
   (:func:`reestimated_pairs`). A fixed factor, not the planner's upper confidence limit: the
   limit's width w'Cw is estimated from the same data, and mostly from the annotator variance
   (each of the first stage's annotators rates two or three pairs), so it is widest where
   that variance is overestimated and the size already too large. On 320 small pilots
   (``benchmarks/bench_sizing.py --reestimate --product-rule``) the factor gives a median
   1.222 times the pairs the true components need with power >= 0.80 in 92.2% of pilots,
   where the upper limit at 80% gave 1.305 and 95.9%, and no confidence of it met both
   targets (1.25 times, 90%). Only variances are re-estimated: the difference planned for
   stays the one fixed before the study (re-estimating the effect would turn the look into an
   unplanned interim analysis of it).
3. **The test at the end**: the crossed analysis of all N pairs of the main study (first
   stage included, the pilot not); the superiority test at the planned alpha, each tie
   question's TOST at :data:`TIE_ALPHA` (0.04), pre-registered with the first stage in the
   study's plan (``internal_pilot``) and read so by the report. The look reads no mean
   difference (REML variance estimates depend on the data only through contrasts free of
   the mean), so it spends no alpha on the superiority test; an equivalence test is not so
   lucky: re-estimating the size from the variance can raise a TOST's level above nominal
   (Friede & Kieser, 2003, for the blinded two-group case; Glimm et al., 2019: larger in
   equivalence than in superiority testing, and non-negligible for small samples), because
   the final SE then depends on the variance the test divides by. Measured here
   (``benchmarks/bench_sizing.py --null``, :func:`analysis.inference.null_check.null_run`,
   small pilot): at alpha 0.05 the TOST's type-I error was 6.11% (MC SE 0.49%, 2,390 runs),
   above 0.05 + 2 MC SE; read and sized at 0.04, 4.86% (MC SE 0.44%, 2,220 runs, the
   superiority test 5.36%, MC SE 0.48%): both within 0.05 + 2 MC SE (the bench's docstring);
   with the look at the estimates times SIZE_FACTOR, 4.45% and 5.06% (MC SE 0.38% and 0.41%,
   2,945 runs).
   The planner therefore sizes the tie questions at TIE_ALPHA too (:func:`tie_targets`), so
   the stricter level costs pairs, not power. The remedy is the two-stage bioequivalence
   one (Potvin et al., 2008: a TOST level below 0.05 chosen by simulation to hold 5%).

This is a separate device from the group-sequential plan
(:mod:`analysis.inference.sequential`): that one reads the test at interim looks and spends
alpha to stop early; this one reads only the variances once to set the size. The two are not
combined here.

References: Wittes, J. & Brittain, E. (1990). The role of internal pilot studies in increasing
the efficiency of clinical trials. *Statistics in Medicine*, 9, 65-72. Birkett, M. A. & Day,
S. J. (1994). Internal pilot studies for estimating sample size. *Statistics in Medicine*, 13,
2455-2463. Kieser, M. & Friede, T. (2003). Simple procedures for blinded sample size
adjustment that do not affect the type I error rate. *Statistics in Medicine*, 22, 3571-3581.
Friede, T. & Kieser, M. (2003). Blinded sample size reassessment in non-inferiority and
equivalence trials. *Statistics in Medicine*, 22, 995-1007. Glimm, E., Yau, L., Stuerzlinger,
H. & Pang, X. (2019). Blinded sample size re-estimation in equivalence testing.
arXiv:1908.04695. Potvin, D. et al. (2008). Sequential design
approaches for bioequivalence studies with crossover designs. *Pharmaceutical Statistics*, 7,
245-262.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from analysis.core.coded import FloatArray, IntArray
from analysis.inference.paired import MIN_PAIRS
from analysis.inference.sizing import (
    CHECKED_PILOT,
    planned_rubric_difference,
    planning_variances,
)
from analysis.inference.sizing_design import (
    Design,
    Planned,
    Targets,
    smallest_design,
)
from analysis.inference.sizing_pilot import (
    DEFAULT_CONFIDENCE,
    Pilot,
    pilot_from_differences,
    rating_differences,
)
from analysis.schema.sizing_types import InternalPilotPlan, LookResult, SizingResult
from annotate.vocabulary import (
    DEFAULT_TIE_ALPHA,
    DIMENSIONS,
    GENERAL_DIMENSIONS,
    PERSONAL_DIMENSION,
)

Differences = Mapping[str, tuple[FloatArray, IntArray, IntArray]]

REESTIMATE_CONFIDENCE = 0.5
"""One-sided confidence of the upper limit of Var(mu_hat) the look sizes at: 0.5, the re-fitted
components' point estimates (the margin of safety is :data:`SIZE_FACTOR` instead)."""
SIZE_FACTOR = 1.15
"""The final size is this many times the size at the look's point estimates (rounded up). A
fixed factor rather than an upper limit: the limit's width is itself estimated, from the same
annotator variance whose overestimate it should correct, so it widens most where the estimate
is already too high (``benchmarks/bench_sizing.py --reestimate``, 320 small pilots: 1.222 times
the need at the median, power >= 0.80 in 92.2%, against 1.305 and 95.9% at the 80% limit and
1.241 and 90.3% at the 72.5% limit; MC SEs about 0.015 and 1.5%)."""
FIRST_STAGE_FRACTION = 0.7
"""The first stage as a fraction of the size the pilot's point estimates give."""
CAP_FACTOR = 2.5
"""The final size is at most this many times the first stage."""
GROWTH = 1.4
"""The median final size / first stage in ``benchmarks/bench_sizing.py --reestimate
--product-rule --tie-alpha 0.04`` (the small pilot, the tie questions sized at TIE_ALPHA):
1.42 over 8 seeds of 40 pilots (1.56 on seeds 1 and 2); the planner's "expect about"
figure."""
TIE_ALPHA = DEFAULT_TIE_ALPHA
"""The level of each tie question's TOST after an internal pilot's look (the superiority
test keeps the plan's alpha): at 0.05 the look raised the TOST's type-I error to 6.11% in
``benchmarks/bench_sizing.py --null``; read and sized at 0.04, 4.86% (MC SE 0.44%, 2,220 runs;
module docstring, point 3)."""
TIE_ALPHA_WHY = (
    "re-estimating the size from the first stage's variance can raise an equivalence test's "
    "level above nominal (Friede & Kieser, 2003; Glimm et al., 2019); in this planner's "
    "simulation (benchmarks/bench_sizing.py --null) the TOSTs read at 0.05 after the look "
    "rejected falsely 6.1% of the time, read and sized at 0.04 4.9% (MC SE 0.4%)"
)
RULE = (
    f"an internal pilot: a first stage of N1 pairs, {FIRST_STAGE_FRACTION:g} of the size the "
    "pilot's point estimates give; once it is rated, the variance components re-fitted on "
    f"the pilot and the first stage together and the final size {SIZE_FACTOR:g} times the size "
    "their point estimates give (rounded up), never below N1 and at most "
    f"{CAP_FACTOR:g} N1; the difference planned for unchanged; the test at the end run on all "
    "the main study's pairs, superiority at the plan's alpha and each tie question's TOST at "
    "the pre-registered tie alpha, the tie questions sized at that level (Wittes & Brittain, "
    "1990; Kieser & Friede, 2003; Friede & Kieser, 2003)"
)


def default_tie_alpha(alpha: float) -> float:
    """TIE_ALPHA at alpha 0.05, the same fraction of another alpha (only 0.05 simulated)."""
    return TIE_ALPHA * alpha / 0.05


def tie_targets(targets: Targets, tie_alpha: float = TIE_ALPHA) -> Targets:
    """``targets`` with the tie questions' TOSTs at ``tie_alpha`` (an internal pilot's)."""
    if not 0 < tie_alpha <= targets.alpha:
        raise ValueError(f"tie alpha {tie_alpha:g}: need 0 < tie alpha <= alpha {targets.alpha:g}")
    return replace(targets, tie_alpha=tie_alpha)


def first_stage_pairs(
    pilot: Pilot,
    per_pair: int,
    pool: int,
    targets: Targets,
    fraction: float = FIRST_STAGE_FRACTION,
) -> int | None:
    """N1: ``fraction`` of the fewest pairs at which the pilot's point estimates reach the
    target with k annotators per pair from the pool, rounded up, at least MIN_PAIRS and
    enough for every annotator of the pool to rate one (None when no size up to MAX_PAIRS
    reaches the target)."""
    found = smallest_design(pilot.estimate, per_pair, pool, targets)
    if found is None:
        return None
    least = max(MIN_PAIRS, math.ceil(pool / per_pair))
    return max(math.ceil(fraction * found["n_pairs"] - 1e-9), least)


def cap_pairs(first_stage: int) -> int:
    return math.floor(CAP_FACTOR * first_stage)


@dataclass(frozen=True)
class Reestimate:
    """The look's answer: the size the re-fitted components ask for (None: none up to the
    maximum), that size times the factor (``wanted``), and the final size, ``wanted`` kept
    between the first stage and the cap."""

    needed: int | None
    wanted: int | None
    final: int
    capped: bool


def reestimated_pairs(
    combined: Pilot,
    per_pair: int,
    pool: int,
    targets: Targets,
    first_stage: int,
    confidence: float = REESTIMATE_CONFIDENCE,
    factor: float = SIZE_FACTOR,
) -> Reestimate:
    """The final size from the components re-fitted on the pilot and the first stage
    (``combined``, e.g. from :func:`combined_pilot`): ``factor`` times the fewest pairs
    reaching the target with each design's Var(mu_hat) at its upper limit at ``confidence``
    (0.5: the estimate), rounded up, kept within [first_stage, :func:`cap_pairs`]. The
    product's rule is the estimate times :data:`SIZE_FACTOR`; other confidences and factors
    are for the simulation's comparisons."""

    def planned(design: Design) -> Planned:
        if confidence == 0.5:
            return combined.estimate, None
        return planning_variances(_at_confidence(combined, confidence), design)

    found = smallest_design(planned, per_pair, pool, targets)
    needed = None if found is None else found["n_pairs"]
    cap = cap_pairs(first_stage)
    scaled = None if needed is None else math.ceil(factor * needed - 1e-9)
    wanted = cap + 1 if scaled is None else scaled
    return Reestimate(needed, scaled, min(max(wanted, first_stage), cap), wanted > cap)


def _at_confidence(pilot: Pilot, confidence: float) -> Pilot:
    if not 0.5 < confidence < 1:
        raise ValueError("need 0.5 <= confidence < 1")
    return Pilot(
        pilot.estimate,
        pilot.upper,
        pilot.mean,
        confidence,
        pilot.n_pairs,
        pilot.n_annotators,
        pilot.n_ratings,
        pilot.covariance,
        pilot.mean_se,
        pilot.mean_df,
    )


def combine(
    pilot: Differences, stage: Differences
) -> dict[str, tuple[FloatArray, IntArray, IntArray]]:
    """Each dimension's differences of the pilot and the first stage in one set: the stage's
    pair and annotator codes shifted past the pilot's (the pilot's annotators are others; a
    person in both may keep one label by giving the same code in both)."""
    out = {}
    for dim, (d, pair, annotator) in pilot.items():
        d2, pair2, annotator2 = stage[dim]
        out[dim] = (
            np.concatenate([d, d2]),
            np.concatenate([pair, pair2 + int(pair.max()) + 1]),
            np.concatenate([annotator, annotator2 + int(annotator.max()) + 1]),
        )
    return out


def combined_pilot(pilot: Differences, stage: Differences) -> Pilot:
    """The components re-fitted on the pilot and the first stage together (no profile)."""
    return pilot_from_differences(combine(pilot, stage), profile=False)


def is_small(pilot: Pilot) -> bool:
    pairs, annotators = CHECKED_PILOT
    return pilot.n_pairs < pairs or pilot.n_annotators < annotators


def internal_pilot_plan(
    pilot: Pilot, result: SizingResult, tie_alpha: float | None = None
) -> InternalPilotPlan | None:
    """The internal pilot at the planner's recommended k and pool, the tie questions sized at
    ``tie_alpha`` (default :func:`default_tie_alpha`; None without a recommendation or when
    the point estimates reach no size)."""
    best = result["recommended"]
    if best is None:
        return None
    if tie_alpha is None:
        tie_alpha = default_tie_alpha(result["alpha"])
    plain = Targets(
        result["margin"],
        result["smallest_effect"],
        result["alpha"],
        result["target"],
        result["true_diff"],
    )
    targets = tie_targets(plain, tie_alpha)
    k, pool = best["per_pair"], best["pool"]
    first = first_stage_pairs(pilot, k, pool, targets)
    if first is None:
        return None
    return {
        "first_stage": first,
        "fraction": FIRST_STAGE_FRACTION,
        "per_pair": k,
        "pool": pool,
        "cap": cap_pairs(first),
        "expected_final": min(math.ceil(GROWTH * first), cap_pairs(first)),
        "growth": GROWTH,
        "fixed": best["n_pairs"],
        "confidence": REESTIMATE_CONFIDENCE,
        "factor": SIZE_FACTOR,
        "alpha": result["alpha"],
        "tie_alpha": tie_alpha,
        "tie_alpha_why": TIE_ALPHA_WHY,
        "rule": RULE,
    }


def with_internal_pilot(
    pilot: Pilot, result: SizingResult, tie_alpha: float | None = None
) -> SizingResult:
    """The planner's answer with the internal pilot recommended when the pilot is small."""
    if not is_small(pilot):
        return result
    plan = internal_pilot_plan(pilot, result, tie_alpha)
    return result if plan is None else {**result, "internal_pilot": plan}


def look(
    pilot_ratings: pd.DataFrame,
    stage_ratings: pd.DataFrame,
    *,
    per_pair: int,
    pool: int,
    margin: float,
    smallest_effect: float | None = None,
    alpha: float = 0.05,
    target: float = 0.8,
    general_diff: float = 0.0,
    rubric_diff: float | None = None,
    tie_alpha: float | None = None,
) -> LookResult:
    """The re-estimation look from the pilot's and the first stage's ratings exports: the
    components re-fitted on both (:func:`combined_pilot`), the final size at the first
    stage's k and pool (:func:`reestimated_pairs`). The difference planned for is the one
    given or, as when the study was planned, the one the pilot alone gives
    (:func:`analysis.inference.sizing.planned_rubric_difference`); the tie questions sized at
    ``tie_alpha``, as the first stage was."""
    sesoi = margin if smallest_effect is None else float(smallest_effect)
    if not margin > 0 or not sesoi > 0:
        raise ValueError("need margin > 0 and a smallest effect of interest above 0")
    pilot_d, pilot_pairs, pilot_annotators = rating_differences(pilot_ratings)
    stage_d, first, _ = rating_differences(stage_ratings)
    if first < MIN_PAIRS:
        raise ValueError(f"first stage: {first} pairs, fewer than {MIN_PAIRS}")
    if rubric_diff is None:
        alone = pilot_from_differences(pilot_d, DEFAULT_CONFIDENCE, profile=False)
        rubric, source, _ = planned_rubric_difference(alone, sesoi)
    else:
        rubric, source = float(rubric_diff), "given"
    true_diff = dict.fromkeys(GENERAL_DIMENSIONS, float(general_diff))
    true_diff[PERSONAL_DIMENSION] = rubric
    tie = default_tie_alpha(alpha) if tie_alpha is None else tie_alpha
    targets = tie_targets(Targets(margin, sesoi, alpha, target, true_diff), tie)
    combined = combined_pilot(pilot_d, stage_d)
    answer = reestimated_pairs(combined, per_pair, pool, targets, first)
    return {
        "first_stage": first,
        "per_pair": per_pair,
        "pool": pool,
        "cap": cap_pairs(first),
        "pilot": {
            "n_pairs": pilot_pairs,
            "n_annotators": pilot_annotators,
            "n_ratings": len(pilot_d[PERSONAL_DIMENSION][0]),
        },
        "components": {dim: combined.estimate[dim].as_dict() for dim in DIMENSIONS},
        "true_diff": true_diff,
        "rubric_diff_source": source,
        "confidence": REESTIMATE_CONFIDENCE,
        "factor": SIZE_FACTOR,
        "alpha": alpha,
        "tie_alpha": tie,
        "asked": answer.needed,
        "wanted": answer.wanted,
        "final": answer.final,
        "capped": answer.capped,
        "rule": RULE,
    }


def look_text(result: LookResult) -> str:
    """The look's answer as Markdown."""
    pilot = result["pilot"]
    lines = [
        f"Re-estimation look of an internal pilot: the pilot ({pilot['n_pairs']} pairs, "
        f"{pilot['n_annotators']} annotators) and a first stage of {result['first_stage']} "
        f"pairs x {result['per_pair']} annotators per pair from a pool of {result['pool']}.",
        "",
        "Variance components re-fitted on both (REML, points²):",
        "",
        "| Dimension | Pair | Annotator | Residual | Planned true diff |",
        "|---|---:|---:|---:|---:|",
    ]
    for dim, c in result["components"].items():
        lines.append(
            f"| {dim} | {c['pair']:.3f} | {c['annotator']:.3f} | {c['residual']:.3f} | "
            f"{result['true_diff'][dim]:+.2f} |"
        )
    asked, scaled = result["asked"], result["wanted"]
    wanted = (
        "no size up to the maximum reaches the target"
        if asked is None or scaled is None
        else f"{asked} pairs at their point estimates, {result['factor']:g} times that {scaled}"
    )
    kept = (
        " (at the cap)"
        if result["capped"]
        else " (the first stage: never fewer)"
        if scaled is not None and scaled < result["first_stage"]
        else ""
    )
    lines += [
        "",
        f"The re-fitted components ask for {wanted}. **Final size: {result['final']} pairs"
        f"{kept}**, {result['final'] - result['first_stage']} more after the first stage, "
        f"from the same pool; the test at the end is run as planned on all "
        f"{result['final']} pairs, superiority at alpha {result['alpha']:g} and each tie "
        f"question's TOST at {result['tie_alpha']:g} (the pre-registered tie alpha; the tie "
        f"questions sized at it). Difference planned for: {result['rubric_diff_source']}.",
        "",
        f"Rule: {result['rule']}.",
    ]
    return "\n".join(lines) + "\n"
