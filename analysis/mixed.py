"""Annotators modelled: a linear mixed model with crossed random pair and annotator effects.

Per dimension, on each annotator's chosen - rejected difference d (one value per pair-rating):

    d_pa = mu + beta * s_pa + v_p + u_a + e_pa,   v_p ~ N(0, s2_pair), u_a ~ N(0, s2_annotator)

with s = +1 when chosen was shown on side A and -1 on side B. This is the score model
``score ~ response * dimension + side`` with random pair and annotator effects, taken within
each pair-rating: the pair's and the annotator's main effects cancel in the difference, and
what remains are the pair x response (v) and annotator x response (u) effects. ``mu`` is the
mean chosen - rejected difference (the primary estimand), ``beta`` the side-A advantage.
Unlike per-pair means it weighs pairs by how many annotators rated them, and an annotator who
systematically favours one response is a random effect shared across their pairs (ignoring
such grouping inflates Type I error: Steen & Markert, EACL 2021).

Fitted by REML, written out here because statsmodels' MixedLM handles crossed effects only
through dense variance components (tens of seconds for a hundred pairs): the pair part of the
covariance is block-diagonal with a closed-form inverse, the annotator part enters by
Woodbury, so each likelihood evaluation costs O(n x annotators + annotators^3). Intervals are
Wald intervals from the REML fit (normal quantiles). Checked against statsmodels' MixedLM
with crossed variance components in the tests.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import optimize, sparse, stats

from annotate.vocabulary import DIMENSIONS

from .coded import CHOSEN, REJECTED, CodedRatings, FloatArray, IntArray
from .paired import DIVERGES, INCONCLUSIVE, INSUFFICIENT, MIN_PAIRS, TIE
from .position import response_scores
from .report_types import MixedDimension, MixedModel, PairedTest

MIN_RATIO, MAX_RATIO = 1e-8, 1e3
STARTS = ((0.3, 0.3), (0.05, 0.05))
"""Starting variance ratios (pair, annotator) / residual; the best optimum wins (the
likelihood can have a boundary optimum beside the interior one)."""


@dataclass(frozen=True)
class CrossedFit:
    beta: FloatArray  # fixed effects (intercept, side)
    cov: FloatArray  # their covariance
    s2_residual: float
    s2_pair: float
    s2_annotator: float
    converged: bool


class _Model:
    """REML pieces for d = X beta + Z_pair v + Z_annotator u + e."""

    def __init__(self, d: FloatArray, x: FloatArray, pair: IntArray, annotator: IntArray):
        self.d, self.x = d, x
        self.pair = np.unique(pair, return_inverse=True)[1]
        self.annotator = np.unique(annotator, return_inverse=True)[1]
        self.n_pairs = int(self.pair.max()) + 1
        self.n_annotators = int(self.annotator.max()) + 1
        self.k = np.bincount(self.pair, minlength=self.n_pairs).astype(float)
        rows = np.arange(len(d))
        ones = np.ones(len(d))
        self.by_pair = sparse.csr_matrix((ones, (self.pair, rows)))
        self.by_annotator = sparse.csr_matrix((ones, (self.annotator, rows)))
        # Z_p' Z_a: how many ratings each pair has from each annotator (pairs x annotators)
        self.pair_annotator = np.asarray((self.by_pair @ self.by_annotator.T).toarray())
        self.n_per_annotator = np.bincount(self.annotator, minlength=self.n_annotators)

    def _vp_inv(self, m: FloatArray, s2e: float, s2p: float) -> FloatArray:
        """(s2e I + s2p Z_p Z_p')^-1 m, block by block: (I - c J) / s2e, c = s2p/(s2e+k s2p)."""
        sums = np.asarray(self.by_pair @ m)
        c = s2p / (s2e + self.k * s2p)
        return np.asarray((m - c[self.pair, None] * sums[self.pair]) / s2e, dtype=np.float64)

    def solve(self, s2e: float, s2p: float, s2a: float) -> tuple[FloatArray, float]:
        """V^-1 [X d] and log|V| by Woodbury over the annotator effects, never forming the
        n x annotators matrix V_p^-1 Z_a (Z_a is one-hot, so its products are group sums)."""
        rhs = np.column_stack([self.x, self.d])
        vp_rhs = self._vp_inv(rhs, s2e, s2p)
        c = s2p / (s2e + self.k * s2p)
        za_vp_za = (
            np.diag(self.n_per_annotator.astype(float))
            - self.pair_annotator.T @ (c[:, None] * self.pair_annotator)
        ) / s2e
        inner = np.eye(self.n_annotators) / s2a + za_vp_za
        chol = np.asarray(np.linalg.cholesky(inner), dtype=np.float64)
        q = _cho_solve(chol, np.asarray(self.by_annotator @ vp_rhs, dtype=np.float64))
        v_inv_rhs = vp_rhs - self._vp_inv(q[self.annotator], s2e, s2p)
        log_vp = float(np.sum((self.k - 1) * np.log(s2e) + np.log(s2e + self.k * s2p)))
        log_chol = 2 * float(np.sum(np.log(np.diag(chol))))
        return v_inv_rhs, log_vp + self.n_annotators * float(np.log(s2a)) + log_chol

    def reml(self, log_vars: FloatArray) -> float:
        """Minus twice the REML log-likelihood (up to a constant) at (s2e, s2p, s2a)."""
        s2e, s2p, s2a = np.exp(log_vars)
        parts = self._gls(1.0, s2p / s2e, s2a / s2e)
        if parts is None:
            return float("inf")
        quad, log_h, log_xtvx = parts
        n, p = self.x.shape
        return float((n - p) * np.log(s2e) + log_h - p * np.log(s2e) + log_xtvx + quad / s2e)

    def profiled(self, log_ratios: FloatArray) -> float:
        """The REML criterion with the residual variance profiled out; parameters are the
        log ratios s2p/s2e and s2a/s2e."""
        parts = self._gls(1.0, *np.exp(log_ratios))
        if parts is None:
            return float("inf")
        quad, log_h, log_xtvx = parts
        n, p = self.x.shape
        return float((n - p) * np.log(quad / (n - p)) + log_h + log_xtvx)

    def _gls(self, s2e: float, s2p: float, s2a: float) -> tuple[float, float, float] | None:
        """r' V^-1 r at the GLS beta, log|V| and log|X' V^-1 X|; None if not positive."""
        try:
            v_inv_rhs, log_det = self.solve(s2e, s2p, s2a)
        except np.linalg.LinAlgError:
            return None
        p = self.x.shape[1]
        xtvx = self.x.T @ v_inv_rhs[:, :p]
        beta = np.linalg.solve(xtvx, self.x.T @ v_inv_rhs[:, p])
        quad = float(self.d @ v_inv_rhs[:, p] - beta @ (self.x.T @ v_inv_rhs[:, p]))
        sign, log_xtvx = np.linalg.slogdet(xtvx)
        return (quad, log_det, float(log_xtvx)) if sign > 0 and quad > 0 else None


def _cho_solve(chol: FloatArray, b: FloatArray) -> FloatArray:
    y = np.linalg.solve(chol, b)
    return np.asarray(np.linalg.solve(chol.T, y), dtype=np.float64)


def fit_crossed(d: FloatArray, x: FloatArray, pair: IntArray, annotator: IntArray) -> CrossedFit:
    """REML fit of the crossed model: the residual variance is profiled out and the two
    variance ratios optimised on the log scale from a few starts (the best optimum wins)."""
    model = _Model(d, x, pair, annotator)
    bounds = [(np.log(MIN_RATIO), np.log(MAX_RATIO))] * 2
    results = [
        optimize.minimize(model.profiled, np.log(start), method="L-BFGS-B", bounds=bounds)
        for start in STARTS
    ]
    best = min(results, key=lambda r: float(r.fun))
    g_pair, g_annotator = (float(v) for v in np.exp(best.x))
    v_inv_rhs, _ = model.solve(1.0, g_pair, g_annotator)
    p = x.shape[1]
    xtvx_inv = np.asarray(np.linalg.inv(x.T @ v_inv_rhs[:, :p]), dtype=np.float64)
    beta = np.asarray(xtvx_inv @ (x.T @ v_inv_rhs[:, p]), dtype=np.float64)
    quad = float(d @ v_inv_rhs[:, p] - beta @ (x.T @ v_inv_rhs[:, p]))
    s2e = quad / (len(d) - p)
    return CrossedFit(
        beta, xtvx_inv * s2e, s2e, g_pair * s2e, g_annotator * s2e, bool(best.success)
    )


def rating_level(
    coded: CodedRatings, dim_index: int
) -> tuple[FloatArray, FloatArray, IntArray, IntArray]:
    """Per pair-rating with both scores on the dimension: d, side code (+1 chosen on A), pair,
    annotator."""
    scores, chosen_side = response_scores(coded)
    d = scores[:, dim_index, CHOSEN] - scores[:, dim_index, REJECTED]
    pair = np.zeros(coded.n_ratings, dtype=np.int64)
    annotator = np.zeros(coded.n_ratings, dtype=np.int64)
    pair[coded.rating] = coded.pair
    annotator[coded.rating] = coded.annotator
    keep = ~np.isnan(d)
    side = np.where(chosen_side[keep] == 0, 1.0, -1.0)
    return d[keep], side, pair[keep], annotator[keep]


def mixed_model(coded: CodedRatings, primary: dict[str, PairedTest], alpha: float) -> MixedModel:
    """The crossed mixed model per dimension, its verdict by the primary rules on the
    (1 - 2 alpha) Wald interval, and the dimensions where it disagrees with the primary."""
    out: dict[str, MixedDimension] = {}
    for dim_index, dim in enumerate(DIMENSIONS):
        out[dim] = _dimension(coded, dim_index, primary[dim], alpha)
    disagree = [d for d in DIMENSIONS if out[d]["verdict"] != primary[d]["verdict"]]
    note = (
        "The mixed model disagrees with the primary verdict on: " + ", ".join(disagree) + "."
        if disagree
        else "The mixed model agrees with the primary verdict on every dimension."
    )
    return {"dimensions": out, "disagreements": disagree, "note": note}


def _dimension(
    coded: CodedRatings, dim_index: int, primary: PairedTest, alpha: float
) -> MixedDimension:
    d, side, pair, annotator = rating_level(coded, dim_index)
    n_pairs = len(np.unique(pair))
    empty: MixedDimension = {
        "estimate": None,
        "ci95": None,
        "ci_tost": None,
        "side_a_advantage": None,
        "side_a_advantage_ci95": None,
        "var_pair": None,
        "var_annotator": None,
        "var_residual": None,
        "n_ratings": len(d),
        "n_pairs": n_pairs,
        "n_annotators": len(np.unique(annotator)),
        "converged": False,
        "verdict": INSUFFICIENT,
    }
    if n_pairs < MIN_PAIRS or np.var(d) == 0:
        return empty
    x = np.column_stack([np.ones(len(d)), side]) if np.var(side) > 0 else np.ones((len(d), 1))
    fit = fit_crossed(d, x, pair, annotator)
    se = np.sqrt(np.diag(fit.cov))
    z95, z_tost = stats.norm.ppf(0.975), stats.norm.ppf(1 - alpha)
    mu, se_mu = float(fit.beta[0]), float(se[0])
    ci_tost = [mu - z_tost * se_mu, mu + z_tost * se_mu]
    result: MixedDimension = {
        **empty,
        "estimate": mu,
        "ci95": [mu - z95 * se_mu, mu + z95 * se_mu],
        "ci_tost": ci_tost,
        "var_pair": fit.s2_pair,
        "var_annotator": fit.s2_annotator,
        "var_residual": fit.s2_residual,
        "converged": fit.converged,
        "verdict": _verdict(ci_tost, primary["margin"], primary["rule"]),
    }
    if x.shape[1] == 2:
        b, se_b = float(fit.beta[1]), float(se[1])
        result["side_a_advantage"] = b
        result["side_a_advantage_ci95"] = [b - z95 * se_b, b + z95 * se_b]
    return result


def _verdict(ci_tost: list[float], margin: float, rule: str) -> str:
    """The primary rules on the (1 - 2 alpha) interval: equivalence when it lies inside
    +-margin, superiority when its lower end is above 0."""
    passed = {TIE: -margin < ci_tost[0] and ci_tost[1] < margin, DIVERGES: ci_tost[0] > 0}
    order = (DIVERGES, TIE) if rule == "superiority" else (TIE, DIVERGES)
    for candidate in order:
        if passed[candidate]:
            return candidate
    return INCONCLUSIVE
