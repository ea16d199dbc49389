"""The small-sample df of a REML fit (:mod:`analysis.inference.reml`): lmerTest's
Satterthwaite df from numerical derivatives of the deviance and Var(beta), the singular
factors (lme4's ``isSingular``), and Kenward & Roger's SE and df as pbkrtest computes them."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from scipy import linalg, sparse

from analysis.core.coded import FloatArray, IntArray
from analysis.inference.reml import (
    RemlFit,
)

TOLERANCE = 1e-9
SINGULAR_TOL = 1e-4
"""A relative SD (lme4's theta) below this is a variance at the boundary: a singular fit
(lme4's ``isSingular`` default tolerance)."""
KR_MAX_ENTRIES = 20_000_000
"""Kenward-Roger's sparse V^-1 holds at most this many entries (else Satterthwaite's df with
the floor of :data:`DF_SINGULAR_FLOOR`)."""


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
