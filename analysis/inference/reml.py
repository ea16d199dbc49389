"""REML for the crossed model of :mod:`analysis.inference.crossed`: y = X beta + Z_big b +
Z_small s + e, the factor with more levels by a closed-form block inverse, the other by
Woodbury; several starts, the best optimum wins (:func:`fit_reml`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import linalg, optimize, sparse

from analysis.core.coded import FloatArray, IntArray

STARTS = ((0.5, 0.5), (0.1, 0.1), (2.0, 0.3))
"""Starting relative SDs (pair, annotator); the best REML optimum wins."""
SMALL_DATA = 2_000
"""Up to this many values a few Nelder-Mead starts check the quasi-Newton optimum."""
DENSE_MAX = 4_000_000
"""Up to this many (big level, small level) cells their counts are held dense."""
SCATTER_FROM = 100_000
"""With ``fit_reml(..., scatter=True)``, from this many cells a sparse design (few small levels
per big level) forms Z_s' V_b^-1 Z_s by scattering each big level's products (O(sum k^2) per
evaluation, not O(cells x small)); equal to the dense product up to rounding, which moves an
optimum within the optimizer's tolerance, so crossed_mean keeps the dense product."""


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
