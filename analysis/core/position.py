"""Position bias: do annotators score the response shown as A differently from the one shown
as B? Sides are drawn at random per (annotator, pair), so the chosen-minus-rejected difference
should not depend on the side chosen was shown on. Testing A - B directly would mix in the
chosen/rejected effect; comparing chosen - rejected between the two side assignments does not:
with a side-A advantage b, chosen - rejected is effect + 2b when chosen is on A and effect - 2b
when it is on B.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy import stats

from analysis.core.coded import CHOSEN, REJECTED, SIDE_A, SIDE_B, CodedRatings, FloatArray
from analysis.schema.report_types import Interval, PositionBias, SideTest


def side_scores(coded: CodedRatings) -> FloatArray:
    """Scores by (pair-rating, dimension, side): shape (n_ratings, n_dims, 2), nan if missing."""
    scores = np.full((coded.n_ratings, coded.n_dims, 2), np.nan)
    scores[coded.rating, coded.dimension, coded.side] = coded.score
    return scores


def response_scores(coded: CodedRatings) -> tuple[FloatArray, FloatArray]:
    """Scores by (pair-rating, dimension, response) and the side chosen was shown on per
    pair-rating (0 A, 1 B; nan when the rating has no chosen score)."""
    scores = np.full((coded.n_ratings, coded.n_dims, 2), np.nan)
    scores[coded.rating, coded.dimension, coded.response] = coded.score
    chosen_side = np.full(coded.n_ratings, np.nan)
    is_chosen = coded.response == CHOSEN
    chosen_side[coded.rating[is_chosen]] = coded.side[is_chosen]
    rejected = coded.response == REJECTED
    missing = np.isnan(chosen_side)
    fill = rejected & missing[coded.rating]
    chosen_side[coded.rating[fill]] = 1 - coded.side[fill]
    return scores, chosen_side


def position_bias(coded: CodedRatings, alpha: float = 0.05) -> dict[str, PositionBias]:
    """Per dimension: chosen - rejected per pair-rating, chosen on A against chosen on B, by
    Welch's t-test (R ``t.test(d_a, d_b)``) with the Wilcoxon rank-sum test (R
    ``wilcox.test(d_a, d_b, exact=FALSE)``) as sensitivity; plus descriptive side means."""
    by_side = side_scores(coded)
    by_response, chosen_side = response_scores(coded)
    out: dict[str, PositionBias] = {}
    for dim_index, dim in enumerate(coded.keys):
        a, b = by_side[:, dim_index, SIDE_A], by_side[:, dim_index, SIDE_B]
        both = ~(np.isnan(a) | np.isnan(b))
        d = by_response[both, dim_index, CHOSEN] - by_response[both, dim_index, REJECTED]
        on_a = chosen_side[both] == SIDE_A
        out[dim] = {
            **_side_comparison(d[on_a], d[~on_a], alpha),
            "mean_a": _mean(a[both]),
            "mean_b": _mean(b[both]),
            "mean_diff": _mean(a[both] - b[both]),
            "n_ratings": int(both.sum()),
            "n_dropped": int(np.sum(~both & ~(np.isnan(by_side[:, dim_index]).all(axis=1)))),
        }
    return out


def _side_comparison(d_a: FloatArray, d_b: FloatArray, alpha: float) -> SideTest:
    t_p: float | None = None
    ci: Interval | None = None
    rank_p: float | None = None
    if len(d_a) >= 2 and len(d_b) >= 2 and (np.var(d_a) > 0 or np.var(d_b) > 0):
        with warnings.catch_warnings():  # nearly constant data: scipy warns, the p is fine
            warnings.simplefilter("ignore", RuntimeWarning)
            welch = stats.ttest_ind(d_a, d_b, equal_var=False)
        t_p = float(welch.pvalue)
        low, high = welch.confidence_interval(0.95)
        ci = [float(low) / 2, float(high) / 2]
        rank = stats.mannwhitneyu(
            d_a, d_b, use_continuity=True, alternative="two-sided", method="asymptotic"
        )
        rank_p = float(rank.pvalue)
    mean_a, mean_b = _mean(d_a), _mean(d_b)
    advantage = None if mean_a is None or mean_b is None else (mean_a - mean_b) / 2
    return {
        "n_chosen_on_a": len(d_a),
        "n_chosen_on_b": len(d_b),
        "diff_chosen_on_a": mean_a,
        "diff_chosen_on_b": mean_b,
        "side_a_advantage": advantage,
        "side_a_advantage_ci95": ci,
        "t_p": t_p,
        "wilcoxon_p": rank_p,
        "wilcoxon_method": None if rank_p is None else "rank-sum, asymptotic",
        "biased": t_p is not None and t_p < alpha,
    }


def _mean(values: FloatArray) -> float | None:
    return float(values.mean()) if len(values) else None
