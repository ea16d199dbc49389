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
from scipy import linalg, optimize, sparse, stats

from analysis.core.coded import CHOSEN, REJECTED, CodedRatings, FloatArray, IntArray
from analysis.core.position import response_scores
from analysis.inference.paired import DIVERGES, INCONCLUSIVE, INSUFFICIENT, MIN_PAIRS, TIE
from analysis.schema.report_types import MixedDimension, MixedModel, PairedTest
from annotate.vocabulary import DIMENSIONS

MIN_RATIO = 1e-10
MAX_EVALUATIONS = 400
SMALL_DATA = 20_000
"""Up to this many pair-ratings the fixed starts are tried besides the moment-based one."""
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
        self.pair_annotator = sparse.csr_matrix(self.by_pair @ self.by_annotator.T)
        self.n_per_annotator = np.bincount(self.annotator, minlength=self.n_annotators)

        # everything the likelihood needs from the n ratings, reduced once:
        rhs = np.column_stack([x, d])
        self.rhs_gram = rhs.T @ rhs  # [X d]'[X d]
        self.pair_sums = np.asarray(self.by_pair @ rhs)  # Z_p'[X d], pairs x (p + 1)
        self.annotator_sums = np.asarray(self.by_annotator @ rhs)  # Z_a'[X d]

    def gram(self, s2e: float, s2p: float, s2a: float) -> tuple[FloatArray, float]:
        """[X d]' V^-1 [X d] and log|V|, with V = s2e I + s2p Z_p Z_p' + s2a Z_a Z_a'.

        V_p = s2e I + s2p Z_p Z_p' is block-diagonal with V_p^-1 = (I - c_p J) / s2e per pair,
        c_p = s2p / (s2e + k_p s2p); the annotator part enters by Woodbury. Every product
        reduces to pair sums, annotator sums and the pairs x annotators count matrix, so one
        evaluation costs O(pairs x annotators-per-pair + annotators^3), not O(ratings)."""
        c = s2p / (s2e + self.k * s2p)
        rhs_vp_rhs = (self.rhs_gram - self.pair_sums.T @ (c[:, None] * self.pair_sums)) / s2e
        za_vp_rhs = (
            self.annotator_sums - self.pair_annotator.T @ (c[:, None] * self.pair_sums)
        ) / s2e
        weighted = sparse.diags(c) @ self.pair_annotator
        shared = np.asarray((self.pair_annotator.T @ weighted).toarray(), dtype=np.float64)
        za_vp_za = (np.diag(self.n_per_annotator.astype(float)) - shared) / s2e
        inner = np.eye(self.n_annotators) / s2a + za_vp_za
        chol = np.asarray(linalg.cholesky(inner, lower=True), dtype=np.float64)
        gram = rhs_vp_rhs - za_vp_rhs.T @ _cho_solve(chol, np.asarray(za_vp_rhs))
        log_vp = float(np.sum((self.k - 1) * np.log(s2e) + np.log(s2e + self.k * s2p)))
        log_chol = 2 * float(np.sum(np.log(np.diag(chol))))
        return np.asarray(gram, dtype=np.float64), log_vp + self.n_annotators * float(
            np.log(s2a)
        ) + log_chol

    def reml(self, log_vars: FloatArray) -> float:
        """Minus twice the REML log-likelihood (up to a constant) at (s2e, s2p, s2a)."""
        s2e, s2p, s2a = np.exp(log_vars)
        parts = self._gls(1.0, s2p / s2e, s2a / s2e)
        if parts is None:
            return float("inf")
        quad, log_h, log_xtvx = parts
        n, p = self.x.shape
        return float((n - p) * np.log(s2e) + log_h - p * np.log(s2e) + log_xtvx + quad / s2e)

    def profiled(self, theta: FloatArray) -> float:
        """The REML criterion with the residual variance profiled out; parameters are the
        relative SDs theta (s2p/s2e = theta_0^2, s2a/s2e = theta_1^2), smooth through zero
        (as lme4)."""
        ratios = np.square(theta) + MIN_RATIO
        parts = self._gls(1.0, float(ratios[0]), float(ratios[1]))
        if parts is None:
            return float("inf")
        quad, log_h, log_xtvx = parts
        n, p = self.x.shape
        return float((n - p) * np.log(quad / (n - p)) + log_h + log_xtvx)

    def _gls(self, s2e: float, s2p: float, s2a: float) -> tuple[float, float, float] | None:
        """r' V^-1 r at the GLS beta, log|V| and log|X' V^-1 X|; None if not positive."""
        p = self.x.shape[1]
        try:
            gram, log_det = self.gram(s2e, s2p, s2a)
            factor = linalg.cho_factor(gram[:p, :p], lower=True)
        except (np.linalg.LinAlgError, linalg.LinAlgError):
            return None
        xtvd = gram[:p, p]
        quad = float(gram[p, p] - xtvd @ linalg.cho_solve(factor, xtvd))
        log_xtvx = 2 * float(np.sum(np.log(np.diag(factor[0]))))
        return (quad, log_det, log_xtvx) if quad > 0 else None


def _cho_solve(chol: FloatArray, b: FloatArray) -> FloatArray:
    """Solve (L L') x = b from the lower Cholesky factor L (LAPACK potrs)."""
    return np.asarray(linalg.cho_solve((chol, True), b), dtype=np.float64)


def fit_crossed(d: FloatArray, x: FloatArray, pair: IntArray, annotator: IntArray) -> CrossedFit:
    """REML fit of the crossed model: the residual variance is profiled out and the two
    relative SDs optimised without derivatives (Nelder-Mead: zero is a stationary point in this
    parameterisation, which fools gradient methods), from a moment-based start and, on small
    data, a few fixed starts too; the best optimum wins."""
    model = _Model(d, x, pair, annotator)
    starts = [moment_start(d, model.pair, model.annotator)]
    if len(d) <= SMALL_DATA:
        starts += [np.asarray(s, dtype=np.float64) for s in STARTS]
    results = [
        optimize.minimize(
            model.profiled,
            np.sqrt(start),
            method="Nelder-Mead",
            options={"xatol": 1e-4, "fatol": 1e-7, "maxfev": MAX_EVALUATIONS},
        )
        for start in starts
    ]
    best = min(results, key=lambda r: float(r.fun))
    g_pair, g_annotator = (float(v) ** 2 + MIN_RATIO for v in best.x)
    gram, _ = model.gram(1.0, g_pair, g_annotator)
    p = x.shape[1]
    xtvx_inv = np.asarray(linalg.inv(gram[:p, :p]), dtype=np.float64)
    beta = np.asarray(xtvx_inv @ gram[:p, p], dtype=np.float64)
    quad = float(gram[p, p] - beta @ gram[:p, p])
    s2e = quad / (len(d) - p)
    return CrossedFit(
        beta, xtvx_inv * s2e, s2e, g_pair * s2e, g_annotator * s2e, bool(best.success)
    )


def moment_start(d: FloatArray, pair: IntArray, annotator: IntArray) -> FloatArray:
    """Rough variance ratios (pair, annotator) / residual from group means: within-pair
    variance ~ s2e + s2a, variance of pair means ~ s2p + within / k, variance of annotator
    means ~ s2a + (s2p + s2e) / n_a."""
    pair_mean = np.bincount(pair, weights=d) / np.bincount(pair)
    k = np.bincount(pair).astype(float)
    within = float(np.sum((d - pair_mean[pair]) ** 2) / max(len(d) - len(k), 1))
    s2p = max(float(np.var(pair_mean)) - within * float(np.mean(1 / k)), 0.0)
    n_a = np.bincount(annotator).astype(float)
    annotator_mean = np.bincount(annotator, weights=d) / n_a
    s2a = max(float(np.var(annotator_mean)) - (s2p + within) * float(np.mean(1 / n_a)), 0.0)
    s2e = max(within - s2a, within / 10, MIN_RATIO)
    return np.asarray([s2p / s2e + 0.01, s2a / s2e + 0.01], dtype=np.float64)


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


NOT_FITTED = "The mixed model was not fitted (a sensitivity variant; see the full report)."


def mixed_model(
    coded: CodedRatings, primary: dict[str, PairedTest], alpha: float, fit: bool = True
) -> MixedModel:
    """The crossed mixed model per dimension, its verdict by the primary rules on the
    (1 - 2 alpha) Wald interval, and the dimensions where it disagrees with the primary.
    With `fit` False (a report built only for its headline figures) nothing is fitted."""
    out: dict[str, MixedDimension] = {}
    for dim_index, dim in enumerate(DIMENSIONS):
        out[dim] = _dimension(coded, dim_index, primary[dim], alpha, fitted=fit)
    if not fit:
        return {"dimensions": out, "disagreements": [], "note": NOT_FITTED}
    disagree = [d for d in DIMENSIONS if out[d]["verdict"] != primary[d]["verdict"]]
    note = (
        "The mixed model disagrees with the primary verdict on: " + ", ".join(disagree) + "."
        if disagree
        else "The mixed model agrees with the primary verdict on every dimension."
    )
    return {"dimensions": out, "disagreements": disagree, "note": note}


def _dimension(
    coded: CodedRatings, dim_index: int, primary: PairedTest, alpha: float, fitted: bool = True
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
    if not fitted or n_pairs < MIN_PAIRS or np.var(d) == 0:
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
