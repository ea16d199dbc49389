"""The pilot's variance components for sizing the main study (:mod:`analysis.inference.sizing`).

Each tested question's pilot differences d_pa = mu + v_p + u_a + e_pa are fitted by
:func:`analysis.inference.reml.fit_reml`; the covariance C of the three variance estimates
is the inverse expected REML information on the pilot's design (:func:`component_covariance`).
Each SD's own upper profile-likelihood limit at one-sided ``confidence`` (the SD where the
profiled REML criterion rises by z^2; for the residual SD, lme4's ``confint(fit, method =
"profile", level = 2 * confidence - 1)`` upper end, checked live in
``tests/analysis/inference/test_sizing.py``) is shown for reading only: taking every component at
its own limit compounded and oversized the study 1.5-2x.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import linalg, optimize, stats
from threadpoolctl import threadpool_limits

from analysis.core.coded import FloatArray, IntArray, encode_ratings
from analysis.inference.mixed import rating_level
from analysis.inference.reml import (
    RemlFit,
    fit_reml,
)
from analysis.inference.reml_df import (
    satterthwaite_df,
)
from analysis.schema.questions import target_key
from analysis.schema.sizing_types import (
    ComponentSet,
)
from annotate.questionnaire import DEFAULT_QUESTIONNAIRE, Questionnaire

DEFAULT_CONFIDENCE = 0.7
"""One-sided confidence of the planning limits."""


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
