"""Position bias: do annotators score the response shown as A differently from the one shown
as B, whichever it is? Sides are drawn at random per (annotator, pair), so without bias the
A-B difference averages zero."""

from __future__ import annotations

import numpy as np

from annotate.vocabulary import DIMENSIONS

from .coded import N_DIMS, SIDE_A, SIDE_B, CodedRatings, FloatArray
from .paired import wilcoxon_test
from .report_types import PositionBias


def side_scores(coded: CodedRatings) -> FloatArray:
    """Scores by (pair-rating, dimension, side): shape (n_ratings, N_DIMS, 2), nan if missing."""
    scores = np.full((coded.n_ratings, N_DIMS, 2), np.nan)
    scores[coded.rating, coded.dimension, coded.side] = coded.score
    return scores


def position_bias(coded: CodedRatings, alpha: float = 0.05) -> dict[str, PositionBias]:
    """Per dimension: mean score on side A and side B, paired over pair-ratings (one annotator
    on one pair), with the two-sided Wilcoxon signed-rank test of A - B."""
    scores = side_scores(coded)
    out: dict[str, PositionBias] = {}
    for dim_index, dim in enumerate(DIMENSIONS):
        a, b = scores[:, dim_index, SIDE_A], scores[:, dim_index, SIDE_B]
        both = ~(np.isnan(a) | np.isnan(b))
        a, b = a[both], b[both]
        test = wilcoxon_test(a, b)
        mean_a = float(a.mean()) if len(a) else None
        mean_b = float(b.mean()) if len(b) else None
        out[dim] = {
            "n_ratings": len(a),
            "mean_a": mean_a,
            "mean_b": mean_b,
            "mean_diff": None if mean_a is None or mean_b is None else mean_a - mean_b,
            "wilcoxon_p": test.pvalue,
            "wilcoxon_method": test.method,
            "biased": test.pvalue is not None and test.pvalue < alpha,
            "n_dropped": int(np.sum(~both & ~(np.isnan(scores[:, dim_index]).all(axis=1)))),
        }
    return out
