"""A mean over pairs AND annotators: a crossed random-effects model with small-sample df.

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
below :data:`reml_df.SINGULAR_TOL`, lme4's ``isSingular``), Satterthwaite's df on lme4's
parameters loses that variance's uncertainty (the mean's variance has no slope in a relative SD
at 0) and jumps to about n - 1; the intervals then under-cover (88% in a 3-annotator pilot,
``benchmarks/bench_coverage.py --singular``). Such a fit is named in ``singular`` and its SE
and df are Kenward & Roger's (1997), as R's pbkrtest computes them
(:func:`reml_df.kenward_roger`: the variances themselves as parameters, the one at 0 included,
with the REML expected information), which covers 95-96% there. Out of KR's reach (a sparse
V^-1 above :data:`reml_df.KR_MAX_ENTRIES` entries) the df is Satterthwaite's, at most the
zero-variance factor's levels - 1 (``DF_FLOOR``). The REML fit itself is
:mod:`analysis.inference.reml`, its df :mod:`analysis.inference.reml_df`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache

import numpy as np
from scipy import stats
from threadpoolctl import ThreadpoolController

from analysis.core.coded import FloatArray, IntArray
from analysis.inference.reml import (
    RemlFit,
    fit_reml,
)
from analysis.inference.reml_df import (
    kenward_roger,
    satterthwaite_df,
    singular_factors,
)

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
    (None, None, "") where KR is out of reach (see :func:`reml_df.kenward_roger`)."""
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
