"""A mean over pairs AND annotators: a crossed random-effects model with small-sample df.

Why 651 lines: not yet split (REML fit / Satterthwaite df / fallbacks), issue 35.4.

Each value is one annotator's figure on one pair (e.g. chosen - rejected). The model is

    y_pa = x_pa' beta + v_p + u_a + e_pa,   v_p ~ N(0, s2_pair), u_a ~ N(0, s2_annotator),
    e_pa ~ N(0, s2_residual),

so the estimate generalises to other pairs *and* other annotators drawn the same way (a small
panel's shared way of seeing the difference widens the interval instead of being averaged
away). It is R's ``lmer(y ~ 1 + (1 | pair) + (1 | annotator), REML = TRUE)`` with
``lmerTest``'s Satterthwaite degrees of freedom for the intercept:

    df = 2 Var(mu)^2 / (g' A g),  A = 2 H^-1,

with Var(mu) = [(X' V^-1 X)^-1]_00, g its gradient and H the Hessian of the REML deviance,
both with respect to lme4's parameters (relative SDs theta and the residual SD sigma), taken
numerically at the optimum as lmerTest does (pseudo-inverse over H's positive eigenvalues).

Fitted by REML written out here: the larger factor's part of the covariance is block-diagonal
with a closed-form inverse, the smaller factor enters by Woodbury in a form that stays finite
when its variance is 0, so an evaluation costs O(ratings + levels_small^3) and never forms an
n x n matrix.

Fallbacks, named in ``method`` (see :data:`METHODS`):

* ``crossed``: both effects estimable (some pair has 2+ values, some annotator has 2+ values
  and there are 2+ annotators);
* ``pair only``: one annotator, or every annotator gave a single value (the annotator effect is
  confounded with the residual): ``(1 | pair)``, Satterthwaite df (= pairs - 1 when balanced);
* ``annotator only``: every pair has one value (a crowd with k = 1): ``(1 | annotator)``;
* ``one-sample t``: neither is estimable; an ordinary t interval (df n - 1);
* ``pair means t``: the values do not vary within any pair (residual variance 0, so the model
  is on its boundary): the t interval of the pair means (df pairs - 1);
* ``annotator means t``: each annotator gives one value to every pair (the model is on its
  boundary, REML ill-conditioned): the t interval of the annotator means (df annotators - 1);
* ``degenerate``: fewer than 2 values or no variance at all: the mean, no interval.

Where Satterthwaite's df is undefined (the Hessian of the variance parameters has no positive
direction), df = the fewer levels of pairs or annotators - 1, named in ``df_method``.

**Singular fits.** When REML puts the pair or annotator variance at the boundary (relative SD
below :data:`SINGULAR_TOL`, lme4's ``isSingular``), Satterthwaite's df on lme4's parameters loses
that variance's uncertainty (the mean's variance has no slope in a relative SD at 0) and jumps
to about n - 1; the intervals then under-cover (88% in a 3-annotator pilot,
``benchmarks/bench_coverage.py --singular``). Such a fit is named in ``singular`` and its SE
and df are Kenward & Roger's (1997), as R's pbkrtest computes them (:func:`kenward_roger`: the
variances themselves as parameters, the one at 0 included, with the REML expected
information), which covers 95-96% there. Out of KR's reach (a sparse V^-1 above
:data:`KR_MAX_ENTRIES` entries) the df is Satterthwaite's, at most the zero-variance
factor's levels - 1 (``DF_FLOOR``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cache

import numpy as np
from scipy import linalg, optimize, sparse, stats
from threadpoolctl import ThreadpoolController

from analysis.core.coded import FloatArray, IntArray

CROSSED, PAIR_ONLY, ANNOTATOR_ONLY = "crossed", "pair only", "annotator only"
ONE_SAMPLE_T, PAIR_MEANS_T, DEGENERATE = "one-sample t", "pair means t", "degenerate"
ANNOTATOR_MEANS_T = "annotator means t"
METHODS = (
    CROSSED,
    PAIR_ONLY,
    ANNOTATOR_ONLY,
    ONE_SAMPLE_T,
    PAIR_MEANS_T,
    ANNOTATOR_MEANS_T,
    DEGENERATE,
)
DF_METHOD = "Satterthwaite"
DF_KENWARD_ROGER = "Kenward-Roger (singular fit)"
DF_FLOOR = "Satterthwaite, at most the zero-variance factor's levels - 1 (singular fit)"
DF_FALLBACK = "fewer levels of pairs or annotators - 1 (Satterthwaite undefined)"
STARTS = ((0.5, 0.5), (0.1, 0.1), (2.0, 0.3))
"""Starting relative SDs (pair, annotator); the best REML optimum wins."""
SMALL_DATA = 2_000
"""Up to this many values a few Nelder-Mead starts check the quasi-Newton optimum."""
TOLERANCE = 1e-9
DENSE_MAX = 4_000_000
"""Up to this many (big level, small level) cells their counts are held dense."""
SCATTER_FROM = 100_000
"""With ``fit_reml(..., scatter=True)``, from this many cells a sparse design (few small levels
per big level) forms Z_s' V_b^-1 Z_s by scattering each big level's products (O(sum k^2) per
evaluation, not O(cells x small)); equal to the dense product up to rounding, which moves an
optimum within the optimizer's tolerance, so crossed_mean keeps the dense product."""
SINGULAR_TOL = 1e-4
"""A relative SD (lme4's theta) below this is a variance at the boundary: a singular fit
(lme4's ``isSingular`` default tolerance)."""
KR_MAX_ENTRIES = 20_000_000
"""Kenward-Roger's sparse V^-1 holds at most this many entries (else Satterthwaite's df with
the floor of :data:`DF_SINGULAR_FLOOR`)."""
RESIDUAL_FLOOR = 1e-10
"""Below this share of the total variance the residual is taken as 0 (``pair means t``)."""


@dataclass(frozen=True)
class CrossedMean:
    """The mean with its standard error and df; ``ci`` at ``level``; variances None when the
    method fits no model. ``interval`` and the p-value helpers give other levels and tests."""

    estimate: float | None
    se: float | None
    df: float | None
    ci: list[float] | None
    level: float
    method: str
    n: int
    n_pairs: int
    n_annotators: int
    var_pair: float | None = None
    var_annotator: float | None = None
    var_residual: float | None = None
    df_method: str = DF_METHOD
    singular: tuple[str, ...] = ()
    """The factors whose variance the fit puts at 0 (a boundary, "singular" fit): then ``se``
    and ``df`` are Kenward-Roger's (``df_method``)."""

    def interval(self, level: float) -> list[float] | None:
        """The t interval estimate +- t_{df} se at ``level``; None without a finite se > 0."""
        if self.estimate is None or not self.se or self.df is None:
            return None
        half = float(stats.t.ppf(0.5 + level / 2, self.df)) * self.se
        return [self.estimate - half, self.estimate + half]

    def p_greater(self, null: float = 0.0) -> float | None:
        """One-sided p of H0: mean <= null (against mean > null)."""
        if self.estimate is None or not self.se or self.df is None:
            return None
        return float(stats.t.sf((self.estimate - null) / self.se, self.df))

    def p_less(self, null: float = 0.0) -> float | None:
        """One-sided p of H0: mean >= null (against mean < null)."""
        if self.estimate is None or not self.se or self.df is None:
            return None
        return float(stats.t.cdf((self.estimate - null) / self.se, self.df))

    def tost_p(self, margin: float) -> float | None:
        """Two one-sided tests at -margin and +margin: the larger p."""
        low, high = self.p_greater(-margin), self.p_less(margin)
        return None if low is None or high is None else max(low, high)


@cache
def _blas() -> ThreadpoolController:
    """The process's thread pools, found once (`threadpool_limits` looks through the loaded
    libraries on every call: 16 ms, a third of a small fit)."""
    return ThreadpoolController()


def crossed_mean(
    values: FloatArray | list[float],
    pairs: IntArray | list[object],
    annotators: IntArray | list[object],
    level: float = 0.95,
) -> CrossedMean:
    """The mean of ``values`` over pairs and annotators (any hashable labels), with the
    crossed model's Satterthwaite interval at ``level``, or the fallback named in the module
    docstring. NaN values are dropped (missing ratings)."""
    y = np.asarray(values, dtype=np.float64)
    keep = ~np.isnan(y)
    pair = _codes(np.asarray(pairs, dtype=object)[keep])
    annotator = _codes(np.asarray(annotators, dtype=object)[keep])
    y = y[keep]
    n, n_p, n_a = (
        len(y),
        int(pair.max()) + 1 if len(y) else 0,
        int(annotator.max()) + 1 if len(y) else 0,
    )
    counts = (n, n_p, n_a)
    if n < 2 or float(np.ptp(y)) == 0:
        mean = float(np.mean(y)) if n else None
        return CrossedMean(mean, 0.0 if n else None, None, None, level, DEGENERATE, *counts)
    pair_varies = np.bincount(pair).max() > 1
    annotator_varies = n_a > 1 and np.bincount(annotator).max() > 1
    if pair_varies and _within_ss(y, pair) <= RESIDUAL_FLOOR * float(np.var(y)) * n:
        return _t_mean(
            np.bincount(pair, weights=y) / np.bincount(pair), level, PAIR_MEANS_T, counts
        )
    if annotator_varies and _within_ss(y, annotator) <= RESIDUAL_FLOOR * float(np.var(y)) * n:
        means = np.bincount(annotator, weights=y) / np.bincount(annotator)
        return _t_mean(means, level, ANNOTATOR_MEANS_T, counts)
    if not pair_varies and not annotator_varies:
        return _t_mean(y, level, ONE_SAMPLE_T, counts)
    factors = {
        "pair": pair if pair_varies else None,
        "annotator": annotator if annotator_varies else None,
    }
    method = (
        CROSSED
        if pair_varies and annotator_varies
        else PAIR_ONLY
        if pair_varies
        else ANNOTATOR_ONLY
    )
    # small matrices: BLAS threads only contend (40x slower on a loaded 2-core machine)
    with _blas().limit(limits=1, user_api="blas"):
        fit = fit_reml(y, np.ones((n, 1)), factors["pair"], factors["annotator"])
        singular = singular_factors(fit)
        se, df, df_method = (
            _boundary_interval(fit, factors, singular) if singular else (None, None, "")
        )
        if df is None:
            df, df_method = satterthwaite_df(fit, 0), DF_METHOD
    if se is None:
        se = float(np.sqrt(fit.cov[0, 0]))
    if df is None:  # the variance parameters' Hessian has no positive direction
        df, df_method = float(max(min(n_p, n_a) - 1, 1)), DF_FALLBACK
    if singular and df_method == DF_METHOD:  # Kenward-Roger out of reach: floor the df
        levels = {"pair": n_p, "annotator": n_a}
        df, df_method = min(df, float(max(min(levels[f] for f in singular) - 1, 1))), DF_FLOOR
    result = CrossedMean(
        float(fit.beta[0]),
        se,
        df,
        None,
        level,
        method,
        *counts,
        var_pair=fit.s2_pair if pair_varies else None,
        var_annotator=fit.s2_annotator if annotator_varies else None,
        var_residual=fit.s2_residual,
        df_method=df_method,
        singular=singular,
    )
    return _with_ci(result)


def _boundary_interval(
    fit: RemlFit, factors: dict[str, IntArray | None], singular: tuple[str, ...]
) -> tuple[float | None, float | None, str]:
    """A singular fit's SE and df by Kenward-Roger (the variances at the boundary taken as 0);
    (None, None, "") where KR is out of reach (see :func:`kenward_roger`)."""
    fitted = [(name, codes) for name, codes in factors.items() if codes is not None]
    variances = {"pair": fit.s2_pair, "annotator": fit.s2_annotator}
    kr = kenward_roger(
        np.ones((len(fitted[0][1]), 1)),
        [codes for _, codes in fitted],
        [0.0 if name in singular else variances[name] for name, _ in fitted],
        fit.s2_residual,
        np.ones(1),
    )
    if kr is None:
        return None, None, ""
    return float(np.sqrt(kr[0])), kr[1], DF_KENWARD_ROGER


def _with_ci(result: CrossedMean) -> CrossedMean:
    return replace(result, ci=result.interval(result.level))


def _codes(labels: np.ndarray) -> IntArray:
    return np.asarray(np.unique(labels.astype(str), return_inverse=True)[1], dtype=np.int64).ravel()


def _within_ss(y: FloatArray, group: IntArray) -> float:
    means = np.bincount(group, weights=y) / np.bincount(group)
    return float(np.sum((y - means[group]) ** 2))


def _t_mean(
    values: FloatArray, level: float, method: str, counts: tuple[int, int, int]
) -> CrossedMean:
    m = len(values)
    mean = float(np.mean(values))
    sd = float(np.std(values, ddof=1)) if m > 1 else 0.0
    if m < 2 or sd == 0:
        return CrossedMean(mean, 0.0, None, None, level, DEGENERATE, *counts)
    return _with_ci(CrossedMean(mean, sd / np.sqrt(m), float(m - 1), None, level, method, *counts))


@dataclass(frozen=True)
class RemlFit:
    """A REML fit: fixed effects, their covariance, the variances and what Satterthwaite's
    df needs (the deviance and Var(beta) as functions of lme4's parameters)."""

    beta: FloatArray
    cov: FloatArray
    s2_residual: float
    s2_pair: float
    s2_annotator: float
    converged: bool
    varpar: FloatArray  # (theta of each estimated factor ..., sigma)
    deviance: Callable[[FloatArray], float]
    vcov: Callable[[FloatArray], FloatArray]
    factors: tuple[str, ...] = ()
    """The factors whose relative SDs lead ``varpar``, in its order ("pair", "annotator")."""


class _Reml:
    """REML pieces of y = X beta + Z_big b + Z_small s + e; "big" is the factor with more
    levels (closed-form block inverse), "small" enters by Woodbury and may be absent."""

    def __init__(
        self,
        y: FloatArray,
        x: FloatArray,
        big: IntArray,
        small: IntArray | None,
        scatter: bool = False,
    ):
        n = len(y)
        rows, ones = np.arange(n), np.ones(n)
        self.n, self.p = x.shape
        self.k = np.bincount(big).astype(np.float64)
        rhs = np.column_stack([x, y])
        self.rhs_gram = rhs.T @ rhs
        by_big = sparse.csr_matrix((ones, (big, rows)))
        self.big_sums = np.asarray(by_big @ rhs)
        self.small = small is not None
        if small is not None:
            by_small = sparse.csr_matrix((ones, (small, rows)))
            self.n_small = int(small.max()) + 1
            counts = sparse.csr_matrix(by_big @ by_small.T)  # big x small
            cells = counts.shape[0] * counts.shape[1]
            self.dense = cells <= DENSE_MAX
            self.counts = counts.toarray() if self.dense else counts
            per_big = np.diff(counts.indptr)
            self.scatter = (
                _products(counts)
                if scatter
                and cells >= SCATTER_FROM
                and 8 * int(np.sum(per_big**2)) < cells * self.n_small
                else None
            )
            self.small_sums = np.asarray(by_small @ rhs)
            self.n_per_small = np.bincount(small).astype(np.float64)

    def gram(self, s2e: float, s2b: float, s2s: float) -> tuple[FloatArray, float]:
        """[X y]' V^-1 [X y] and log|V|. V_b^-1 = (I - Z_b diag(c) Z_b') / s2e with
        c = s2b / (s2e + k s2b); V^-1 = V_b^-1 - s2s V_b^-1 Z_s (I + s2s M)^-1 Z_s' V_b^-1 with
        M = Z_s' V_b^-1 Z_s, finite at s2s = 0."""
        c = s2b / (s2e + self.k * s2b)
        gram = (self.rhs_gram - self.big_sums.T @ (c[:, None] * self.big_sums)) / s2e
        log_det = float(np.sum((self.k - 1) * np.log(s2e) + np.log(s2e + self.k * s2b)))
        if not self.small or s2s == 0:
            return gram, log_det
        b = (self.small_sums - self.counts.T @ (c[:, None] * self.big_sums)) / s2e
        if self.scatter is not None:
            big_level, cell, weight = self.scatter
            shared = np.bincount(
                cell, weights=c[big_level] * weight, minlength=self.n_small**2
            ).reshape(self.n_small, self.n_small)
        elif self.dense:
            shared = self.counts.T @ (c[:, None] * self.counts)
        else:
            shared = (self.counts.T @ (sparse.diags(c) @ self.counts)).toarray()
        m = (np.diag(self.n_per_small) - shared) / s2e
        inner = np.eye(self.n_small) + s2s * m
        chol = linalg.cholesky(inner, lower=True, check_finite=False)
        solved = linalg.cho_solve((chol, True), b, check_finite=False)
        gram = gram - s2s * (b.T @ solved)
        return gram, log_det + 2 * float(np.sum(np.log(np.diag(chol))))

    def deviance(self, s2e: float, s2b: float, s2s: float) -> float:
        """Minus twice the REML log-likelihood (lme4's REML criterion)."""
        gram, log_det = self.gram(s2e, s2b, s2s)
        p = self.p
        factor = linalg.cho_factor(gram[:p, :p], lower=True)
        xtvy = gram[:p, p]
        quad = float(gram[p, p] - xtvy @ linalg.cho_solve(factor, xtvy))
        log_xtvx = 2 * float(np.sum(np.log(np.diag(factor[0]))))
        return float((self.n - p) * np.log(2 * np.pi) + log_det + log_xtvx + quad)

    def profiled(self, ratios: FloatArray) -> float:
        """The REML criterion with s2e profiled out, at variance ratios (big, small) / s2e.
        (The optimiser's hot path: LAPACK's inputs are not checked for NaN, which would come
        out as a NaN `quad` or a failed factorisation, both read as infinity.)"""
        try:
            gram, log_det = self.gram(1.0, float(ratios[0]), float(ratios[1]))
            factor = linalg.cho_factor(gram[: self.p, : self.p], lower=True, check_finite=False)
        except (np.linalg.LinAlgError, linalg.LinAlgError, ValueError):
            return float("inf")
        p, dof = self.p, self.n - self.p
        xtvy = gram[:p, p]
        quad = float(gram[p, p] - xtvy @ linalg.cho_solve(factor, xtvy, check_finite=False))
        if not quad > 0:
            return float("inf")
        log_xtvx = 2 * float(np.sum(np.log(np.diag(factor[0]))))
        return float(dof * np.log(quad / dof) + log_det + log_xtvx + dof * (1 + np.log(2 * np.pi)))

    def vcov(self, s2e: float, s2b: float, s2s: float) -> FloatArray:
        gram, _ = self.gram(s2e, s2b, s2s)
        return np.asarray(linalg.inv(gram[: self.p, : self.p]), dtype=np.float64)


def _products(counts: sparse.csr_matrix) -> tuple[IntArray, IntArray, FloatArray]:
    """For every big level and every two of its nonzero small-level counts (e, f): the big
    level, the flat cell e * small + f and the product of the counts, so that
    sum_big c_big counts' counts = bincount(cell, c[big] * product)."""
    per_big = np.diff(counts.indptr)
    row_of = np.repeat(np.arange(len(per_big)), per_big)
    length = per_big[row_of]
    first = np.repeat(np.arange(len(row_of)), length)
    offset = np.arange(len(first)) - np.repeat(np.cumsum(length) - length, length)
    second = counts.indptr[row_of[first]] + offset
    n_small = counts.shape[1]
    cell = counts.indices[first].astype(np.int64) * n_small + counts.indices[second]
    return row_of[first], cell, counts.data[first] * counts.data[second]


def fit_reml(
    y: FloatArray,
    x: FloatArray,
    pair: IntArray | None,
    annotator: IntArray | None,
    *,
    scatter: bool = False,
) -> RemlFit:
    """REML fit with random effects for the factors given (codes 0..levels-1; None: absent).
    The relative SDs are optimised (Nelder-Mead from a few starts, then polished), s2e
    profiled out. ``scatter``: a large sparse design's products by scattering (see
    :data:`SCATTER_FROM`). Above SMALL_DATA values the quasi-Newton search alone is trusted
    unless it fails or stops with a relative SD at 0: that is a stationary point of the
    criterion in theta, where L-BFGS-B can stop far from the optimum (on 2,830 pairs x 3 it
    stopped at pair variance 0, 86 above the criterion at the optimum, 0.15), so the
    Nelder-Mead starts run then too."""
    factors = [f for f in (pair, annotator) if f is not None]
    swap = len(factors) == 2 and int(factors[1].max()) > int(factors[0].max())
    big, small = (
        (factors[1], factors[0])
        if swap
        else (factors[0], factors[1] if len(factors) == 2 else None)
    )
    model = _Reml(y, x, big, small, scatter)
    n_theta = len(factors)

    def criterion(theta: FloatArray) -> float:
        t = np.abs(theta)
        ratios = np.square(np.concatenate([t, np.zeros(2 - n_theta)]))
        return model.profiled(ratios)

    best = optimize.minimize(
        criterion,
        np.full(n_theta, 0.5),
        method="L-BFGS-B",
        bounds=[(0.0, None)] * n_theta,
        options={"ftol": 1e-13, "gtol": 1e-9, "maxiter": 200},
    )
    stuck = bool(np.any(best.x == 0))
    if not best.success or len(y) <= SMALL_DATA or stuck:  # guard against a local optimum
        for start in STARTS:
            result = optimize.minimize(
                criterion,
                np.asarray(start[:n_theta]),
                method="Nelder-Mead",
                options={"xatol": 1e-8, "fatol": 1e-12, "maxfev": 2000},
            )
            if result.fun < best.fun - 1e-9:
                best = result
    theta = np.abs(best.x)
    ratios = np.square(np.concatenate([theta, np.zeros(2 - n_theta)]))
    gram, _ = model.gram(1.0, float(ratios[0]), float(ratios[1]))
    p = x.shape[1]
    xtvx_inv = np.asarray(linalg.inv(gram[:p, :p]), dtype=np.float64)
    beta = np.asarray(xtvx_inv @ gram[:p, p], dtype=np.float64)
    s2e = float(gram[p, p] - beta @ gram[:p, p]) / (len(y) - p)
    s2_big, s2_small = float(ratios[0]) * s2e, float(ratios[1]) * s2e

    def variances(varpar: FloatArray) -> tuple[float, float, float]:
        sigma2 = float(varpar[-1]) ** 2
        th = np.concatenate([varpar[:-1], np.zeros(2 - n_theta)])
        return sigma2, float(th[0]) ** 2 * sigma2, float(th[1]) ** 2 * sigma2

    # lme4's theta follows the order (pair, annotator); ours is (big, small)
    s2_pair, s2_annotator = (s2_small, s2_big) if swap else (s2_big, s2_small)
    names: tuple[str, ...] = ("annotator", "pair") if swap else ("pair", "annotator")
    if pair is None:
        s2_pair, s2_annotator = 0.0, s2_big
        names = ("annotator",)
    elif annotator is None:
        s2_annotator = 0.0
        names = ("pair",)
    return RemlFit(
        beta=beta,
        cov=xtvx_inv * s2e,
        s2_residual=s2e,
        s2_pair=s2_pair,
        s2_annotator=s2_annotator,
        converged=bool(best.success),
        varpar=np.concatenate([theta, [np.sqrt(s2e)]]),
        deviance=lambda vp: model.deviance(*variances(vp)),
        vcov=lambda vp: model.vcov(*variances(vp)),
        factors=names,
    )


def satterthwaite_df(fit: RemlFit, index: int) -> float | None:
    """lmerTest's Satterthwaite df of the fixed effect ``index``; None when undefined."""
    return satterthwaite_dfs(fit, [index])[0]


def satterthwaite_dfs(fit: RemlFit, indices: Sequence[int]) -> list[float | None]:
    """:func:`satterthwaite_df` of several fixed effects, the Hessian and the covariance's
    gradient computed once for all."""
    x0 = fit.varpar
    try:
        with np.errstate(all="ignore"):
            hessian = _hessian(fit.deviance, x0)
            grads = _gradient(lambda vp: np.diag(fit.vcov(vp))[list(indices)], x0, len(indices))
    except (np.linalg.LinAlgError, linalg.LinAlgError, ValueError):
        return [None] * len(indices)
    if not np.all(np.isfinite(hessian)):
        return [None] * len(indices)
    values, vectors = np.linalg.eigh(hessian)
    positive = values > TOLERANCE * max(float(np.max(np.abs(values))), 1.0)
    if not positive.any():
        return [None] * len(indices)
    h_inv = (vectors[:, positive] / values[positive]) @ vectors[:, positive].T
    variances = np.diag(fit.vcov(x0))
    out: list[float | None] = []
    for i, index in enumerate(indices):
        grad = grads[:, i]
        denominator = float(grad @ (2 * h_inv) @ grad) if np.all(np.isfinite(grad)) else 0.0
        variance = float(variances[index])
        out.append(2 * variance**2 / denominator if denominator > 0 else None)
    return out


def _steps(x0: FloatArray) -> FloatArray:
    return np.asarray(1e-4 * np.maximum(np.abs(x0), 0.01), dtype=np.float64)


def _gradient(f: Callable[[FloatArray], FloatArray], x0: FloatArray, n_out: int) -> FloatArray:
    """Central differences with one Richardson step (error O(h^4)) of each of f's ``n_out``
    values: rows are the parameters."""
    h = _steps(x0)
    out = np.zeros((len(x0), n_out))
    for i in range(len(x0)):
        e = np.zeros(len(x0))
        e[i] = h[i]
        d1 = (f(x0 + e) - f(x0 - e)) / (2 * h[i])
        d2 = (f(x0 + 2 * e) - f(x0 - 2 * e)) / (4 * h[i])
        out[i] = (4 * d1 - d2) / 3
    return out


def _hessian(f: Callable[[FloatArray], float], x0: FloatArray) -> FloatArray:
    """Second differences with one Richardson step."""
    m = len(x0)
    h = _steps(x0)
    f0 = f(x0)

    def second(i: int, j: int, scale: float) -> float:
        ei, ej = np.zeros(m), np.zeros(m)
        ei[i], ej[j] = h[i] * scale, h[j] * scale
        if i == j:
            return float((f(x0 + ei) - 2 * f0 + f(x0 - ei)) / (ei[i] ** 2))
        cross = f(x0 + ei + ej) - f(x0 + ei - ej) - f(x0 - ei + ej) + f(x0 - ei - ej)
        return float(cross / (4 * ei[i] * ej[j]))

    out = np.zeros((m, m))
    for i in range(m):
        for j in range(i, m):
            out[i, j] = out[j, i] = (4 * second(i, j, 0.5) - second(i, j, 1.0)) / 3
    return out


def singular_factors(fit: RemlFit) -> tuple[str, ...]:
    """The factors whose variance the fit puts at the boundary: relative SD below
    :data:`SINGULAR_TOL` (lme4's ``isSingular`` rule), in the fit's order."""
    return tuple(
        name
        for name, theta in zip(fit.factors, fit.varpar[:-1], strict=True)
        if theta < SINGULAR_TOL
    )


def _indicator(codes: IntArray) -> sparse.csr_matrix:
    n = len(codes)
    return sparse.csr_matrix((np.ones(n), (np.arange(n), codes)))


def kenward_roger(
    x: FloatArray,
    factors: Sequence[IntArray],
    variances: Sequence[float],
    s2_residual: float,
    contrast: FloatArray,
) -> tuple[float, float] | None:
    """Kenward & Roger's (1997) adjusted variance of ``contrast' beta`` and its df, as R's
    pbkrtest (``vcovAdj`` and ``Lb_ddf``) computes them, for V = sum_i s2_i Z_i Z_i' + s2_e I
    with the variances (not relative SDs) as the covariance parameters, those at 0 included:
    so a factor whose variance is estimated at 0 still carries its sampling uncertainty (its
    expected information), where Satterthwaite's df on lme4's relative SDs drops it.

    At most one factor may have a variance > 0 (a singular fit of two factors, or a fit of
    one), so that V^-1 is block diagonal and sparse: None otherwise, or when the sparse V^-1
    would hold more than :data:`KR_MAX_ENTRIES` entries.

    With one contrast (q = 1) KR's F scaling is 1 and its df is 2 (L Phi L')^2 / (g' W g),
    g_i = L Phi P_i Phi L', W = 2 I_E^-1 (the REML expected information, pseudo-inverse when
    near singular, as pbkrtest); the variance is L Phi_A L', Phi_A = Phi + 2 Phi U Phi."""
    n = x.shape[0]
    mats = [_indicator(codes) for codes in factors] + [sparse.identity(n, format="csr")]
    blocks = [(z, s) for z, s in zip(mats, variances, strict=False) if s > 0]
    if len(blocks) > 1:
        return None
    vinv = sparse.identity(n, format="csr") / s2_residual
    for z, s2 in blocks:
        k = np.asarray(z.sum(axis=0)).ravel()
        if float(np.sum(k**2)) > KR_MAX_ENTRIES:
            return None
        c = s2 / (s2_residual + k * s2)
        vinv = (vinv - (z @ sparse.diags(c) @ z.T) / s2_residual).tocsr()
    vx = np.asarray(vinv @ x)
    phi = np.asarray(linalg.inv(x.T @ vx))
    outer = [np.asarray(z.T @ vx) for z in mats]  # Z_i' V^-1 X
    p_mats = [-(o.T @ o) for o in outer]
    m = len(mats)
    q_mats: dict[tuple[int, int], FloatArray] = {}
    ktrace = np.zeros((m, m))
    for i in range(m):
        for j in range(i, m):
            middle = sparse.csr_matrix(mats[i].T @ (vinv @ mats[j]))
            q_mats[i, j] = outer[i].T @ np.asarray(middle @ outer[j])
            q_mats[j, i] = q_mats[i, j].T
            ktrace[i, j] = ktrace[j, i] = float(middle.multiply(middle).sum())
    info = np.array(
        [
            [
                ktrace[i, j]
                - 2 * np.sum(phi * q_mats[i, j])
                + np.sum((phi @ p_mats[i]) * (p_mats[j] @ phi).T)
                for j in range(m)
            ]
            for i in range(m)
        ]
    )
    condition = float(np.min(np.abs(np.linalg.eigvalsh(info))))
    w = 2 * (np.linalg.inv(info) if condition > 1e-10 else np.linalg.pinv(info))
    u = sum(
        w[i, j] * (q_mats[i, j] - p_mats[i] @ phi @ p_mats[j]) for i in range(m) for j in range(m)
    )
    phi_adjusted = phi + 2 * phi @ u @ phi
    L = np.asarray(contrast, dtype=np.float64)
    var0 = float(L @ phi @ L)
    g = np.array([float(L @ phi @ pm @ phi @ L) for pm in p_mats])
    denominator = float(g @ w @ g)
    variance = float(L @ phi_adjusted @ L)
    if not denominator > 0 or not variance > 0:
        return None
    return variance, 2 * var0**2 / denominator
