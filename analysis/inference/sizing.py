"""Sizing the main study from a pilot: pairs, annotators per pair and the annotator pool.

The primary analysis (:mod:`analysis.inference.primary`) fits, per dimension, the crossed model
of one annotator's chosen - rejected difference on one pair,

    d_pa = mu + v_p + u_a + e_pa,  v_p ~ N(0, s2_pair), u_a ~ N(0, s2_annotator),
    e_pa ~ N(0, s2_residual),

and tests mu by its REML estimate with Satterthwaite's df
(:func:`analysis.inference.crossed.crossed_mean`). This module plans that analysis:

1. **The pilot's components and their covariance.** Each dimension's pilot differences are
   fitted by :func:`analysis.inference.crossed.fit_reml`; the covariance C of the three
   variance estimates is the inverse expected REML information on the pilot's design
   (:func:`component_covariance`). Each SD's own upper profile-likelihood limit at one-sided
   ``confidence`` (the SD where the profiled REML criterion rises by z^2; for the residual SD,
   lme4's ``confint(fit, method = "profile", level = 2 * confidence - 1)`` upper end, checked
   live in ``tests/analysis/test_sizing.py``) is shown for reading only: taking every
   component at its own limit compounded and oversized the study 1.5-2x.
2. **The design.** n pairs, k annotators per pair (2 or more by default: the main study then
   measures agreement) from a pool of m; every annotator rates r = n k / m pairs. For such an
   equal-replication design 1 is an eigenvector of V = s2_e I + s2_p Z_p Z_p' + s2_a Z_a Z_a'
   (V 1 = (s2_e + k s2_p + r s2_a) 1), so the GLS estimate of mu is the plain mean of the n k
   values (Zyskind's condition) and, exactly,

       Var(mu_hat) = s2_pair / n + s2_annotator / m + s2_residual / (n k) = w's2.

   When m does not divide n k, annotators rate floor(r) or ceil(r) pairs and the plain mean's
   variance (an upper bound on the GLS one) is used. The plan takes each design's Var at its
   upper confidence limit w's2 + z sqrt(w' C w), z = Phi^-1(confidence) (0.7 by default):
   one limit for the combination the design needs (:func:`planning_variances`); planning with
   an upper limit of the pilot's variance rather than the estimate keeps the planned power
   with about that probability (Browne, 1995). ``benchmarks/bench_sizing.py`` checks the
   result against a known population.
3. **Degrees of freedom.** Satterthwaite's, as lmerTest computes them but at the pilot's
   estimates (an unequal design: those of the equal design just below): df = 2 Var^2 /
   (g' I^-1 g), g the gradient of Var(mu_hat) in (s2_e, s2_p, s2_a),
   I = 1/2 tr(P V_i P V_j) the REML (expected) information, computed for a cyclic design
   (r passes over the pool, each shifted by one, cut into pairs of k) from the singular values
   of its pair x annotator incidence: the spaces of the pair and annotator indicators split
   R^{nk} into 2-dimensional pieces per principal angle, each contributing a 2 x 2 term. For a
   balanced fully crossed panel this is the classical df of (MS_p + MS_a - MS_e) / (n m).
   Designs the analysis fits with one factor use its df: k = 1 (pair and residual confounded)
   "annotator only", df m - 1; r = 1 "pair only", df n - 1; both, the one-sample t, df nk - 1.
4. **Power.** With se = sqrt(Var) and the estimated variance taken as se^2 chi2_df / df: the
   rubric's superiority test of mu > smallest effect of interest from the noncentral t
   (:func:`analysis.inference.power.superiority_power_se`), each general dimension's TOST at
   +-margin by integration (:func:`analysis.inference.power.tost_power_se`). The study is
   validated when the four tests hold; its power is at least 1 - sum(1 - power_i) whatever the
   tests' correlation (Bonferroni), and a design reaches the target when that bound does.

Reference: Browne, R. H. (1995). On the use of a pilot sample for sample size determination.
*Statistics in Medicine*, 14(17), 1933-1940.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache, partial

import numpy as np
import pandas as pd
from scipy import linalg, optimize, sparse, stats
from threadpoolctl import threadpool_limits

from analysis.core.coded import FloatArray, IntArray, encode_ratings
from analysis.inference.crossed import (
    ANNOTATOR_ONLY,
    CROSSED,
    ONE_SAMPLE_T,
    PAIR_ONLY,
    RemlFit,
    fit_reml,
    satterthwaite_df,
)
from analysis.inference.mixed import rating_level
from analysis.inference.paired import MIN_PAIRS
from analysis.inference.power import superiority_power_se, tost_power_se
from analysis.schema.questions import target_key
from analysis.schema.sizing_types import (
    ComponentSet,
    DesignPower,
    InternalPilotPlan,
    SizingComponents,
    SizingResult,
    TestAtDesign,
)
from annotate.questionnaire import DEFAULT_QUESTIONNAIRE, Questionnaire, QuestionRole

DEFAULT_CONFIDENCE = 0.7
DEFAULT_PER_PAIR = (2, 3, 5)
"""k >= 2: the main study then measures agreement, and the reliability caveat can fire."""
DEFAULT_POOLS = (6, 12, 24, 48)
MAX_PAIRS = 20_000
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
CROSSED_MODEL, PAIR_MODEL, ANNOTATOR_MODEL, T_MODEL = (
    CROSSED,
    PAIR_ONLY,
    ANNOTATOR_ONLY,
    ONE_SAMPLE_T,
)
"""The model the primary analysis fits to a design: crossed_mean's method names."""
SHORT = {"factuality": "Fact.", "relevance": "Rel.", "helpfulness": "Help."}
"""Column heads of the designs table: the default questionnaire's abbreviated, the target
"Rubric", any other question by its key."""
VARIANCE_FORMULA = "Var = s2_pair / n + s2_annotator / m + s2_residual / (n k)"
LIMITS_METHOD = (
    "each design's Var(mu_hat) at its upper confidence limit: w's2 + z sqrt(w' C w), z = "
    "Phi^-1(confidence), w = (1/n, 1/m, 1/(n k)), s2 the pilot's REML components and C "
    "their covariance (the inverse expected REML information of the pilot's design); the df "
    "at the estimates. The components' own upper limits shown in brackets (REML profile "
    "likelihood: the SD where the criterion, minimised over the other two, exceeds its "
    "minimum by z^2, z = Phi^-1(confidence)) are for reading only"
)


@dataclass(frozen=True)
class Components:
    """Variances (scale points squared) of the pair, annotator and residual parts of one
    annotator's chosen - rejected difference."""

    pair: float
    annotator: float
    residual: float

    def as_dict(self) -> ComponentSet:
        return {"pair": self.pair, "annotator": self.annotator, "residual": self.residual}


@dataclass(frozen=True)
class Pilot:
    """A pilot's components per dimension: REML estimates and upper confidence limits."""

    estimate: dict[str, Components]
    upper: dict[str, Components]
    mean: dict[str, float]  # the pilot's estimate of each mean difference
    confidence: float
    n_pairs: int
    n_annotators: int
    n_ratings: int
    covariance: dict[str, FloatArray] = field(default_factory=dict)
    """Per dimension, the covariance of the variance estimates (pair, annotator, residual):
    the inverse expected REML information at the estimates, on the pilot's own design."""
    mean_se: dict[str, float] = field(default_factory=dict)  # SE of each pilot mean
    mean_df: dict[str, float] = field(default_factory=dict)  # its Satterthwaite df
    questionnaire: Questionnaire = DEFAULT_QUESTIONNAIRE  # ties, diverges; its target

    @property
    def target(self) -> str:
        """The target question: the rubric difference planned for is its."""
        return target_key(self.questionnaire)


# --- the pilot ------------------------------------------------------------------------------


def pilot_components(
    ratings: pd.DataFrame,
    confidence: float = DEFAULT_CONFIDENCE,
    questionnaire: Questionnaire = DEFAULT_QUESTIONNAIRE,
) -> Pilot:
    """The crossed model's components of each tested question's differences (``tie`` and
    ``diverge``) in a validated ratings export, with their profile upper limits at one-sided
    ``confidence``. ValueError when the pilot cannot separate pairs, annotators and residual
    on some question."""
    if not 0.5 < confidence < 1:
        raise ValueError("need 0.5 < confidence < 1")
    differences, n_pairs, n_annotators = rating_differences(ratings, questionnaire)
    return pilot_from_differences(
        differences,
        confidence,
        n_pairs=n_pairs,
        n_annotators=n_annotators,
        questionnaire=questionnaire,
    )


def rating_differences(
    ratings: pd.DataFrame, questionnaire: Questionnaire = DEFAULT_QUESTIONNAIRE
) -> tuple[dict[str, tuple[FloatArray, IntArray, IntArray]], int, int]:
    """Each tested question's (chosen - rejected, pair code, annotator code) in a validated
    ratings export, with its numbers of pairs and annotators."""
    coded = encode_ratings(ratings, questionnaire)
    tested = {*questionnaire.tie_keys, *questionnaire.diverge_keys}
    differences = {}
    for i, dim in enumerate(coded.keys):
        if dim not in tested:
            continue
        d, _, pair, annotator = rating_level(coded, i)
        differences[dim] = (d, pair, annotator)
    return differences, coded.n_pairs, coded.n_annotators


def pilot_from_differences(
    differences: Mapping[str, tuple[FloatArray, IntArray, IntArray]],
    confidence: float = DEFAULT_CONFIDENCE,
    *,
    n_pairs: int | None = None,
    n_annotators: int | None = None,
    profile: bool = True,
    questionnaire: Questionnaire = DEFAULT_QUESTIONNAIRE,
) -> Pilot:
    """:func:`pilot_components` from each dimension's (difference, pair, annotator) arrays.
    ``profile`` False skips the components' own profile limits (shown, not planned with:
    ``upper`` is then the estimate)."""
    if not 0.5 < confidence < 1:
        raise ValueError("need 0.5 < confidence < 1")
    z = float(stats.norm.ppf(confidence))
    estimate, upper, mean, covariance, mean_se, mean_df = {}, {}, {}, {}, {}, {}
    n_ratings, pairs, annotators = 0, 0, 0
    for dim, (d, pair_labels, annotator_labels) in differences.items():
        pair, annotator = _codes(pair_labels), _codes(annotator_labels)
        _check_pilot(dim, d, pair, annotator)
        with threadpool_limits(1, "blas"):
            fit = fit_reml(d, np.ones((len(d), 1)), pair, annotator)
            c = Components(fit.s2_pair, fit.s2_annotator, fit.s2_residual)
            limits = profile_upper_limits(fit, z) if profile else _sds(c)
            covariance[dim] = component_covariance(c, pair, annotator)
        estimate[dim] = c
        upper[dim] = Components(*(float(v) ** 2 for v in limits))
        mean[dim] = float(fit.beta[0])
        mean_se[dim] = float(np.sqrt(fit.cov[0, 0]))
        mean_df[dim] = satterthwaite_df(fit, 0) or float(len(np.unique(pair)) - 1)
        n_ratings = max(n_ratings, len(d))
        pairs = max(pairs, int(pair.max()) + 1)
        annotators = max(annotators, int(annotator.max()) + 1)
    return Pilot(
        estimate,
        upper,
        mean,
        confidence,
        pairs if n_pairs is None else n_pairs,
        annotators if n_annotators is None else n_annotators,
        n_ratings,
        covariance,
        mean_se,
        mean_df,
        questionnaire,
    )


def _sds(c: Components) -> tuple[float, float, float]:
    return (math.sqrt(c.pair), math.sqrt(c.annotator), math.sqrt(c.residual))


def component_covariance(c: Components, pair: IntArray, annotator: IntArray) -> FloatArray:
    """Covariance of the REML estimates of (s2_pair, s2_annotator, s2_residual): the inverse
    of the expected REML information I_ij = 1/2 tr(P V_i P V_j) at ``c`` on this design
    (formed densely: a pilot has at most a few thousand ratings)."""
    n = len(pair)
    z_pair = np.zeros((n, int(pair.max()) + 1))
    z_pair[np.arange(n), pair] = 1.0
    z_annotator = np.zeros((n, int(annotator.max()) + 1))
    z_annotator[np.arange(n), annotator] = 1.0
    v = (
        c.residual * np.eye(n)
        + c.pair * (z_pair @ z_pair.T)
        + c.annotator * (z_annotator @ z_annotator.T)
    )
    v_inv = np.linalg.inv(v)
    w = v_inv.sum(axis=1)
    p = v_inv - np.outer(w, w) / w.sum()
    factors = [p @ z_pair, p @ z_annotator, p]
    loads = [z_pair, z_annotator, np.eye(n)]
    info = np.zeros((3, 3))
    for i in range(3):
        for j in range(i, 3):
            block = loads[i].T @ factors[j]  # Z_i' P Z_j
            info[i, j] = info[j, i] = 0.5 * float(np.sum(block * block))
    return np.asarray(np.linalg.pinv(info), dtype=np.float64)


def _codes(labels: IntArray) -> IntArray:
    return np.asarray(np.unique(labels, return_inverse=True)[1], dtype=np.int64).ravel()


def _check_pilot(dim: str, d: FloatArray, pair: IntArray, annotator: IntArray) -> None:
    if len(d) < 3 or float(np.ptp(d)) == 0:
        raise ValueError(f"pilot: {dim} has fewer than 3 differences or no variance")
    if np.bincount(pair).max() < 2:
        raise ValueError(
            f"pilot: no pair of {dim} has two annotators, so pair and residual variance "
            "cannot be told apart (rate some pilot pairs by 2+ annotators)"
        )
    if len(np.unique(annotator)) < 2 or np.bincount(annotator).max() < 2:
        raise ValueError(
            f"pilot: {dim} needs 2+ annotators who each rate 2+ pairs to estimate the "
            "annotator variance"
        )


def profile_upper_limits(fit: RemlFit, z: float) -> tuple[float, float, float]:
    """Upper profile limits of the SDs (pair, annotator, residual): where the REML criterion,
    minimised over the other two SDs, exceeds its minimum by z^2."""
    if set(fit.factors) != {"pair", "annotator"}:
        raise ValueError("the profile needs a fit with both pair and annotator effects")
    position = {name: i for i, name in enumerate(fit.factors)}

    def deviance(sds: FloatArray) -> float:
        """The REML criterion at SDs (pair, annotator, residual)."""
        sigma = float(sds[2])
        theta = np.zeros(2)
        theta[position["pair"]] = abs(float(sds[0])) / sigma
        theta[position["annotator"]] = abs(float(sds[1])) / sigma
        try:
            return float(fit.deviance(np.concatenate([theta, [sigma]])))
        except (np.linalg.LinAlgError, linalg.LinAlgError, ValueError):
            return float("inf")

    best = np.array([fit.s2_pair, fit.s2_annotator, fit.s2_residual]) ** 0.5
    floor = deviance(best)
    return (
        _profile_limit(deviance, best, 0, floor, z),
        _profile_limit(deviance, best, 1, floor, z),
        _profile_limit(deviance, best, 2, floor, z),
    )


def _profile_limit(
    deviance: Callable[[FloatArray], float], best: FloatArray, which: int, floor: float, z: float
) -> float:
    """One SD's upper limit: brentq on the profiled criterion. Each inner minimum is over
    the other two *variances* (bounded below; in SDs, 0 is a stationary point that traps the
    search), from the last minimum and from a start away from 0; the lower wins."""
    others = [i for i in range(3) if i != which]
    bounds = [(0.0, None) if i < 2 else ((1e-3 * float(best[2])) ** 2, None) for i in others]
    away = np.maximum(best[others], 0.2 * float(np.max(best))) ** 2
    last = {"x": best[others] ** 2}

    def profiled(value: float) -> float:
        def inner(x: FloatArray) -> float:
            sds = np.empty(3)
            sds[which] = value
            sds[others] = np.sqrt(np.maximum(x, 0.0))
            return deviance(sds)

        found = [
            optimize.minimize(
                inner,
                x0,
                method="L-BFGS-B",
                bounds=bounds,
                options={"ftol": 1e-14, "gtol": 1e-10, "maxiter": 500},
            )
            for x0 in (last["x"], away)
        ]
        result = min(found, key=lambda r: float(r.fun))
        last["x"] = np.asarray(result.x, dtype=np.float64)
        return float(result.fun) - floor - z * z

    scale = max(float(best[which]), 0.05 * float(np.max(best)), 1e-3)
    low, high = float(best[which]), float(best[which]) + scale
    while profiled(high) < 0:
        low, high = high, high + 2 * (high - float(best[which]))
        if high > 1e3 * scale + 1e3:
            raise ValueError("the profile likelihood does not rise: no upper limit")
    last["x"] = best[others] ** 2
    return float(optimize.brentq(profiled, low, high, xtol=1e-8, rtol=1e-10))


# --- a design's variance, df and power --------------------------------------------------------


@dataclass(frozen=True)
class Design:
    n_pairs: int
    per_pair: int
    pool: int

    @property
    def ratings(self) -> int:
        return self.n_pairs * self.per_pair

    @property
    def per_annotator(self) -> int:
        return self.ratings // self.pool


def check_design(design: Design, *, equal: bool = True) -> None:
    """A design the planner can compute; ``equal``: every annotator rates as many pairs."""
    n, k, m = design.n_pairs, design.per_pair, design.pool
    if n < 1 or k < 1 or m < 2 or k > m:
        raise ValueError("need pairs >= 1, 1 <= annotators per pair <= pool, pool >= 2")
    if equal and (n * k) % m:
        raise ValueError(f"the pool ({m}) must divide pairs x annotators per pair ({n * k})")
    if n * k < m:
        raise ValueError(f"{n * k} ratings leave some of the pool of {m} without a pair")


def equal_design_below(design: Design) -> Design:
    """The largest equal-replication design with at most ``design``'s pairs (the smallest
    one when none is that small): its df stands for an unequal design's (fewer pairs, fewer
    df: the conservative side)."""
    step = design.pool // math.gcd(design.pool, design.per_pair)
    below = max(design.n_pairs // step, 1) * step
    return Design(below, design.per_pair, design.pool)


def analysis_model(design: Design) -> str:
    """The model the primary analysis fits to such a design (crossed_mean's fallbacks)."""
    k, r = design.per_pair, design.per_annotator
    if k == 1 and r == 1:
        return T_MODEL
    if k == 1:
        return ANNOTATOR_MODEL
    if r == 1:
        return PAIR_MODEL
    return CROSSED_MODEL


def design_variance(c: Components, design: Design) -> float:
    """Var(mu_hat) of the design's mean: s2_p / n + s2_a / m + s2_e / (n k) when every
    annotator rates r = n k / m pairs; otherwise (r_a = floor or ceil of n k / m) the plain
    mean's s2_p / n + s2_a sum(r_a^2) / (n k)^2 + s2_e / (n k), an upper bound on the
    REML (GLS) estimate's variance."""
    check_design(design, equal=False)
    total, m = design.ratings, design.pool
    low, extra = divmod(total, m)
    squares = extra * (low + 1) ** 2 + (m - extra) * low**2
    return c.pair / design.n_pairs + c.annotator * squares / total**2 + c.residual / total


@lru_cache(maxsize=4096)
def design_df(c: Components, design: Design) -> float:
    """Satterthwaite's df of mu_hat at the planning values (module docstring, point 3); a
    design whose annotators rate unequal numbers of pairs takes the df of
    :func:`equal_design_below`."""
    check_design(design, equal=False)
    design = equal_design_below(design) if design.ratings % design.pool else design
    model = analysis_model(design)
    if model == T_MODEL:
        return float(design.ratings - 1)
    if model == ANNOTATOR_MODEL:
        return float(design.pool - 1)
    if model == PAIR_MODEL:
        return float(design.n_pairs - 1)
    return _crossed_df(c, design)


def cyclic_design(design: Design) -> tuple[IntArray, IntArray]:
    """(pair, annotator) codes of the cyclic design: r passes over the pool, pass t in the
    order t, t + 1, ... (mod m), cut into consecutive groups of k, one per pair. Every
    annotator rates r pairs, no annotator twice in a pair, and the design is connected. When
    m does not divide n k the last pass stops early: annotators rate floor or ceil of r."""
    check_design(design, equal=False)
    m, k = design.pool, design.per_pair
    passes = -(-design.ratings // m)
    sequence = (np.arange(m)[None, :] + np.arange(passes)[:, None]) % m
    annotator = sequence.ravel()[: design.ratings].astype(np.int64)
    pair = np.repeat(np.arange(design.n_pairs, dtype=np.int64), k)
    return pair, annotator


def _crossed_df(c: Components, design: Design) -> float:
    n, k, m, r = design.n_pairs, design.per_pair, design.pool, design.per_annotator
    total = design.ratings
    pair, annotator = cyclic_design(design)
    incidence = sparse.csr_matrix((np.ones(total), (pair, annotator)), shape=(n, m))
    gram = incidence.T @ incidence if m <= n else incidence @ incidence.T
    squared = np.linalg.eigvalsh(np.asarray(gram.toarray(), dtype=np.float64)) / (k * r)
    cos2 = np.clip(squared[squared > 1e-10], 0.0, 1.0)
    s2e, s2p, s2a = c.residual, c.pair, c.annotator
    info = np.zeros((3, 3))
    # 2-dimensional pieces: unit pair vector e1, annotator vector a = (cos, sin)
    cos, sin = np.sqrt(cos2), np.sqrt(1.0 - cos2)
    v_e = np.broadcast_to(np.eye(2), (len(cos), 2, 2))
    v_p = np.zeros((len(cos), 2, 2))
    v_p[:, 0, 0] = k
    a = np.stack([cos, sin], axis=1)
    v_a = r * a[:, :, None] * a[:, None, :]
    v_inv = np.linalg.inv(s2e * v_e + s2p * v_p + s2a * v_a)
    parts = [v_inv @ v for v in (v_e, v_p, v_a)]
    for i in range(3):
        for j in range(i, 3):
            info[i, j] = info[j, i] = float(np.einsum("sab,sba->", parts[i], parts[j]))
    # one-dimensional pieces: (count, variance, loadings (residual, pair, annotator))
    intercept = s2e + k * s2p + r * s2a
    singles = (
        (n - len(cos), s2e + k * s2p, (1.0, k, 0.0)),
        (m - len(cos), s2e + r * s2a, (1.0, 0.0, r)),
        (total - n - m, s2e, (1.0, 0.0, 0.0)),
        (-1, intercept, (1.0, k, r)),  # REML: the intercept's direction carries no information
    )
    for count, variance, loading in singles:
        vec = np.asarray(loading)
        info += count * np.outer(vec, vec) / variance**2
    gradient = np.array([1.0, k, r]) / total
    variance = intercept / total
    spread = float(gradient @ np.linalg.pinv(info) @ gradient)
    return float(variance**2 / spread) if spread > 0 else float(min(n, m) - 1)


@dataclass(frozen=True)
class Targets:
    """What the study tests: margin and smallest effect (points), alpha, target power, and the
    true differences planned for."""

    margin: float
    smallest_effect: float
    alpha: float
    target: float
    true_diff: Mapping[str, float]  # each tested question's, in the questionnaire's order
    diverge: frozenset[str] = frozenset(DEFAULT_QUESTIONNAIRE.diverge_keys)  # superiority


def power_at(
    components: Mapping[str, Components],
    design: Design,
    targets: Targets,
    variances: Mapping[str, float] | None = None,
) -> DesignPower:
    """Each test's power at the design and the Bonferroni bound on the study's; ``variances``
    (per dimension) replace the components' Var(mu_hat), the df staying the components'."""
    tests: dict[str, TestAtDesign] = {}
    for dim in targets.true_diff:
        c = components[dim]
        variance = design_variance(c, design) if variances is None else variances[dim]
        se = math.sqrt(variance)
        df = design_df(c, design)
        delta = float(targets.true_diff[dim])
        if dim in targets.diverge:
            power = superiority_power_se(delta, se, df, targets.smallest_effect, targets.alpha)
            test = "superiority"
        else:
            power = tost_power_se(delta, se, df, targets.margin, targets.alpha)
            test = "tost"
        tests[dim] = {"test": test, "se": se, "df": df, "power": power}
    if design.n_pairs < MIN_PAIRS:
        for t in tests.values():
            t["power"] = 0.0
    bound = max(0.0, 1.0 - sum(1.0 - t["power"] for t in tests.values()))
    return {
        "n_pairs": design.n_pairs,
        "per_pair": design.per_pair,
        "pool": design.pool,
        "per_annotator": design.per_annotator,
        "ratings": design.ratings,
        "model": analysis_model(equal_design_below(design)),
        "per_annotator_max": -(-design.ratings // design.pool),
        "tests": tests,
        "joint_power_bound": bound,
    }


Planned = tuple[Mapping[str, Components], Mapping[str, float] | None]
ComponentsFor = Mapping[str, Components] | Callable[[Design], Planned]
"""Each dimension's planning components: fixed, or per design the components (for the df)
and Var(mu_hat) (see :func:`power_at`)."""


def smallest_design(
    components: ComponentsFor,
    per_pair: int,
    pool: int,
    targets: Targets,
    min_pairs: int = MIN_PAIRS,
) -> DesignPower | None:
    """The fewest pairs (at least ``min_pairs`` and enough for every annotator of the pool
    to rate one) at which the Bonferroni bound reaches the target with k annotators per pair
    from the pool; None when MAX_PAIRS do not. Annotators rate n k / m pairs, rounded down
    or up when m does not divide n k."""
    first = max(MIN_PAIRS, min_pairs, math.ceil(pool / per_pair))
    last = MAX_PAIRS

    def at(j: int) -> DesignPower:
        design = Design(j, per_pair, pool)
        planned, variances = components(design) if callable(components) else (components, None)
        return power_at(planned, design, targets, variances)

    if first > last:
        return None
    low, high = first, first
    while at(high)["joint_power_bound"] < targets.target:
        if high >= last:
            return None
        low, high = high + 1, min(2 * high, last)
    while low < high:
        mid = (low + high) // 2
        if at(mid)["joint_power_bound"] >= targets.target:
            high = mid
        else:
            low = mid + 1
    return at(high)


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


ALPHA_PRECISION = (
    "the large-sample variance of a one-way intraclass correlation rho with k ratings per "
    "pair, 2 (1 - rho)^2 (1 + (k - 1) rho)^2 / (k (k - 1) (n - 1)) (Fisher, 1925; Bonett, "
    "2002), at rho = s2_pair / (s2_pair + s2_annotator + s2_residual), the pilot's estimate"
)


def pairs_for_alpha(c: Components, per_pair: int, halfwidth: float) -> int:
    """The fewest pairs for a 95% interval of half-width ``halfwidth`` on Krippendorff's alpha
    of the difference, read as the one-way intraclass correlation (:data:`ALPHA_PRECISION`);
    k = 1 measures no agreement: MAX_PAIRS + 1."""
    if per_pair < 2:
        return MAX_PAIRS + 1
    total = c.pair + c.annotator + c.residual
    rho = c.pair / total if total > 0 else 0.0
    k = per_pair
    variance_times_n = 2 * (1 - rho) ** 2 * (1 + (k - 1) * rho) ** 2 / (k * (k - 1))
    z = float(stats.norm.ppf(0.975))
    return math.ceil(variance_times_n * (z / halfwidth) ** 2) + 1


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


def sizing_text(result: SizingResult) -> str:
    """The planner's answer as Markdown: what it assumed, then the designs."""
    pilot = result["pilot"]
    conf = result["confidence"]
    tested = list(result["true_diff"])
    lines = [
        f"Sizing from a pilot of {pilot['n_pairs']} pairs, {pilot['n_annotators']} annotators, "
        f"{pilot['n_ratings']} ratings: margin ±{result['margin']:g}, smallest effect "
        f"{result['smallest_effect']:g}, alpha {result['alpha']:g}, target power "
        f"{result['target']:g}.",
        "",
        f"Variance components of one annotator's chosen - rejected (points²): REML estimate "
        f"and {conf:.0%} upper confidence limit (profile likelihood, for reading: the plan "
        f"takes each design's variance of the mean at its own {conf:.0%} upper limit).",
        "",
        "| Dimension | Pair | Annotator | Residual | Pilot mean | Planned true diff |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for dim, c in result["components"].items():
        low, high = c["estimate"], c["upper"]
        cells = [
            f"{low['pair']:.3f} ({high['pair']:.3f})",
            f"{low['annotator']:.3f} ({high['annotator']:.3f})",
            f"{low['residual']:.3f} ({high['residual']:.3f})",
        ]
        lines.append(
            f"| {dim} | {' | '.join(cells)} | {c['pilot_mean']:+.3f} | "
            f"{result['true_diff'][dim]:+.2f} |"
        )
    lines += [
        "",
        "Smallest design per k and pool (power of each test at the upper limits; the study's "
        "is at least the last column):",
        "",
        "| k | Pool | Pairs | Per annotator | Ratings | Model | "
        + " | ".join(_short(d, result) for d in tested)
        + " | Study ≥ |",
        "|---:|---:|---:|---:|---:|---|" + "---:|" * (len(tested) + 1),
    ]
    for d in result["designs"]:
        powers = " | ".join(f"{d['tests'][dim]['power']:.3f}" for dim in tested)
        lines.append(
            f"| {d['per_pair']} | {d['pool']} | {d['n_pairs']} | {_per_annotator(d)} | "
            f"{d['ratings']} | {d['model']} | {powers} | {d['joint_power_bound']:.3f} |"
        )
    best = result["recommended"]
    lines.append("")
    if best is None:
        lines.append("No design on this grid reaches the target power.")
    else:
        rubric = best["tests"][_target_of(result)]
        lines.append(
            f"Recommended: {best['n_pairs']} pairs x {best['per_pair']} annotators per pair "
            f"from a pool of {best['pool']} ({best['ratings']} ratings, "
            f"{_per_annotator(best)} pairs per annotator): the fewest ratings on this grid; "
            f"rubric SE {rubric['se']:.3f}, df {rubric['df']:.1f}."
        )
    internal = result.get("internal_pilot")
    if internal is not None:
        lines += ["", internal_pilot_text(internal)]
    lines += [
        "",
        *result["notes"],
        "",
        "Limits: " + result["limits_method"] + ".",
        result["method"],
    ]
    return "\n".join(lines) + "\n"


def _target_of(result: SizingResult) -> str:
    return result.get("target_question", target_key(DEFAULT_QUESTIONNAIRE))


def _short(key: str, result: SizingResult) -> str:
    """A question's column head in the designs table (see SHORT)."""
    return "Rubric" if key == _target_of(result) else SHORT.get(key, key)


def internal_pilot_text(plan: InternalPilotPlan) -> str:
    """The internal pilot's recommendation in words (:mod:`analysis.inference.reestimate`)."""
    k, pool = plan["per_pair"], plan["pool"]
    return (
        f"**Recommended for this small pilot: an internal pilot.** Rate a first stage of "
        f"{plan['first_stage']} pairs x {k} annotators per pair from a pool of {pool} "
        f"({plan['fraction']:g} of the size the pilot's point estimates give). Once it is "
        f"rated, re-estimate the variance "
        f"components from the pilot and the first stage together (`python -m analysis size "
        f"PILOT --first-stage FIRST_STAGE --per-pair {k} --pools {pool}`, with the same "
        f"difference, margin and alpha) and rate up to the final size it gives: never below "
        f"{plan['first_stage']}, at most {plan['cap']} pairs; expect about "
        f"{plan['expected_final']} (in simulation the final size was a median "
        f"{plan['growth']:.2f} times the first stage). The test at the end is run as planned, "
        f"on all the main study's pairs (the pilot's not included), at alpha unchanged: the "
        f"look reads only the variances (in simulation the superiority test kept its level, "
        f"5.0%, and the TOSTs rose to 6.1% from 4.5-4.9% at a fixed size: "
        f"benchmarks/bench_sizing.py). The fixed design above, from the pilot alone, asks "
        f"for {plan['fixed']} pairs. Rule: {plan['rule']}."
    )


def _per_annotator(design: DesignPower) -> str:
    """r, or "r-r+1" when the pool does not divide the ratings."""
    low, high = design["per_annotator"], design.get("per_annotator_max", design["per_annotator"])
    return str(low) if high == low else f"{low}-{high}"
