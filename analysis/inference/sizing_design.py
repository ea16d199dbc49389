"""A design's variance, degrees of freedom and power at given variance components (for
:mod:`analysis.inference.sizing`).

1. **The design.** n pairs, k annotators per pair from a pool of m; every annotator rates
   r = n k / m pairs. For such an
   equal-replication design 1 is an eigenvector of V = s2_e I + s2_p Z_p Z_p' + s2_a Z_a Z_a'
   (V 1 = (s2_e + k s2_p + r s2_a) 1), so the GLS estimate of mu is the plain mean of the n k
   values (Zyskind's condition) and, exactly,

       Var(mu_hat) = s2_pair / n + s2_annotator / m + s2_residual / (n k) = w's2.

   When m does not divide n k, annotators rate floor(r) or ceil(r) pairs and the plain mean's
   variance (an upper bound on the GLS one) is used.
2. **Degrees of freedom.** Satterthwaite's, as lmerTest computes them but at the pilot's
   estimates (an unequal design: those of the equal design just below): df = 2 Var^2 /
   (g' I^-1 g), g the gradient of Var(mu_hat) in (s2_e, s2_p, s2_a),
   I = 1/2 tr(P V_i P V_j) the REML (expected) information, computed for a cyclic design
   (r passes over the pool, each shifted by one, cut into pairs of k) from the singular values
   of its pair x annotator incidence: the spaces of the pair and annotator indicators split
   R^{nk} into 2-dimensional pieces per principal angle, each contributing a 2 x 2 term. For a
   balanced fully crossed panel this is the classical df of (MS_p + MS_a - MS_e) / (n m).
   Designs the analysis fits with one factor use its df: k = 1 (pair and residual confounded)
   "annotator only", df m - 1; r = 1 "pair only", df n - 1; both, the one-sample t, df nk - 1.
3. **Power.** With se = sqrt(Var) and the estimated variance taken as se^2 chi2_df / df: the
   rubric's superiority test of mu > smallest effect of interest from the noncentral t
   (:func:`analysis.inference.power.superiority_power_se`), each general dimension's TOST at
   +-margin by integration (:func:`analysis.inference.power.tost_power_se`), at the
   targets' ``tie_alpha`` when one is set (an internal pilot). The study is
   validated when the four tests hold; its power is at least 1 - sum(1 - power_i) whatever the
   tests' correlation (Bonferroni), and a design reaches the target when that bound does.

Reference: Browne, R. H. (1995). On the use of a pilot sample for sample size determination.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import sparse, stats

from analysis.core.coded import IntArray
from analysis.inference.crossed import (
    ANNOTATOR_ONLY,
    CROSSED,
    ONE_SAMPLE_T,
    PAIR_ONLY,
)
from analysis.inference.paired import MIN_PAIRS
from analysis.inference.power import superiority_power_se, tost_power_se
from analysis.inference.sizing_pilot import (
    Components,
)
from analysis.schema.sizing_types import (
    DesignPower,
    TestAtDesign,
)
from annotate.questionnaire import DEFAULT_QUESTIONNAIRE

MAX_PAIRS = 20_000
CROSSED_MODEL, PAIR_MODEL, ANNOTATOR_MODEL, T_MODEL = (
    CROSSED,
    PAIR_ONLY,
    ANNOTATOR_ONLY,
    ONE_SAMPLE_T,
)
"""The model the primary analysis fits to a design: crossed_mean's method names."""
VARIANCE_FORMULA = "Var = s2_pair / n + s2_annotator / m + s2_residual / (n k)"


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
    true differences planned for; ``tie_alpha``, when given, the level the tie questions'
    TOSTs are read at instead of alpha (after an internal pilot's look,
    :data:`analysis.inference.reestimate.TIE_ALPHA`)."""

    margin: float
    smallest_effect: float
    alpha: float
    target: float
    true_diff: Mapping[str, float]  # each tested question's, in the questionnaire's order
    diverge: frozenset[str] = frozenset(DEFAULT_QUESTIONNAIRE.diverge_keys)  # superiority
    tie_alpha: float | None = None

    @property
    def tost_alpha(self) -> float:
        """The level of the tie questions' TOSTs."""
        return self.alpha if self.tie_alpha is None else self.tie_alpha


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
            power = tost_power_se(delta, se, df, targets.margin, targets.tost_alpha)
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
