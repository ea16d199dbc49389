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

Fitted by REML with :func:`analysis.inference.reml.fit_reml` (the primary analysis' own
REML, with the side as a second fixed effect); intervals are t intervals with lmerTest's
Satterthwaite df of each fixed effect (:func:`analysis.inference.reml_df.satterthwaite_dfs`).
Checked against statsmodels' MixedLM with crossed variance components in the tests.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats
from threadpoolctl import threadpool_limits

from analysis.core.coded import CHOSEN, REJECTED, CodedRatings, FloatArray, IntArray
from analysis.core.position import response_scores
from analysis.inference.paired import DIVERGES, INCONCLUSIVE, INSUFFICIENT, MIN_PAIRS, TIE
from analysis.inference.reml import (
    RemlFit,
    fit_reml,
)
from analysis.inference.reml_df import (
    satterthwaite_dfs,
)
from analysis.schema.report_types import MixedDimension, MixedModel, PairedTest
from annotate.questionnaire import QuestionRole


@dataclass(frozen=True)
class CrossedFit:
    beta: FloatArray  # fixed effects (intercept, side)
    cov: FloatArray  # their covariance
    s2_residual: float
    s2_pair: float
    s2_annotator: float
    converged: bool
    df: list[float]  # Satterthwaite's df of each fixed effect (fallback: fewer levels - 1)
    reml: RemlFit  # the fit itself (its REML criterion, for checks)


def fit_crossed(d: FloatArray, x: FloatArray, pair: IntArray, annotator: IntArray) -> CrossedFit:
    """REML fit of d = X beta + pair + annotator + residual (any integer labels) by
    :func:`analysis.inference.reml.fit_reml`, with each fixed effect's Satterthwaite df;
    where it is undefined, the fewer levels of pairs or annotators - 1."""
    pair_codes = np.unique(pair, return_inverse=True)[1].ravel()
    annotator_codes = np.unique(annotator, return_inverse=True)[1].ravel()
    fallback = float(max(min(pair_codes.max(), annotator_codes.max()), 1))
    with threadpool_limits(1, "blas"):  # small matrices: BLAS threads only contend
        fit = fit_reml(d, x, pair_codes, annotator_codes, scatter=True)
        df = satterthwaite_dfs(fit, range(x.shape[1]))
    return CrossedFit(
        fit.beta,
        fit.cov,
        fit.s2_residual,
        fit.s2_pair,
        fit.s2_annotator,
        fit.converged,
        [fallback if v is None else v for v in df],
        fit,
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


NOT_FITTED = "The mixed model was not fitted (a sensitivity variant; see the full report)."


def mixed_model(
    coded: CodedRatings,
    primary: dict[str, PairedTest],
    alpha: float,
    fit: bool = True,
    tie_alpha: float | None = None,
) -> MixedModel:
    """The crossed mixed model per dimension, its verdict by the primary rules on the
    (1 - 2 alpha) Satterthwaite interval (a ``tie`` question's at ``tie_alpha`` when an
    internal pilot set one, as the primary reads it), and the dimensions where it disagrees
    with the primary.
    With `fit` False (a report built only for its headline figures) nothing is fitted."""
    out: dict[str, MixedDimension] = {}
    for dim_index, dim in enumerate(coded.keys):
        tie = coded.questionnaire.question(dim).role is QuestionRole.TIE
        level = tie_alpha if tie and tie_alpha is not None else alpha
        out[dim] = _dimension(coded, dim_index, primary[dim], level, fitted=fit)
    if not fit:
        return {"dimensions": out, "disagreements": [], "note": NOT_FITTED}
    disagree = [d for d in coded.keys if out[d]["verdict"] != primary[d]["verdict"]]
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
    mu, se_mu = float(fit.beta[0]), float(se[0])
    ci_tost = _interval(mu, se_mu, fit.df[0], 1 - 2 * alpha)
    result: MixedDimension = {
        **empty,
        "estimate": mu,
        "ci95": _interval(mu, se_mu, fit.df[0], 0.95),
        "ci_tost": ci_tost,
        "var_pair": fit.s2_pair,
        "var_annotator": fit.s2_annotator,
        "var_residual": fit.s2_residual,
        "converged": fit.converged,
        "verdict": _verdict(ci_tost, primary["margin"], primary.get("sesoi"), primary["rule"]),
    }
    if x.shape[1] == 2:
        b = float(fit.beta[1])
        result["side_a_advantage"] = b
        result["side_a_advantage_ci95"] = _interval(b, float(se[1]), fit.df[1], 0.95)
    return result


def _interval(estimate: float, se: float, df: float, level: float) -> list[float]:
    half = float(stats.t.ppf(0.5 + level / 2, df)) * se
    return [estimate - half, estimate + half]


def _verdict(ci_tost: list[float], margin: float, sesoi: float | None, rule: str) -> str:
    """The primary rules on the (1 - 2 alpha) interval: equivalence when it lies inside
    +-margin, superiority when its lower end is above the smallest effect of interest (as the
    primary's one-sided test; against 0 a difference smaller than it "diverged" here only)."""
    floor = margin if sesoi is None else sesoi
    passed = {TIE: -margin < ci_tost[0] and ci_tost[1] < margin, DIVERGES: ci_tost[0] > floor}
    order = (DIVERGES, TIE) if rule == "superiority" else (TIE, DIVERGES)
    for candidate in order:
        if passed[candidate]:
            return candidate
    return INCONCLUSIVE
