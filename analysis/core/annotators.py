"""How each annotator worked: pairs rated, time per pair and straight-lining."""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.core.coded import CodedRatings


def annotator_behaviour(coded: CodedRatings, scale_min: int, scale_max: int) -> pd.DataFrame:
    """One row per annotator code: n_pairs, n_scores, median_seconds, straight_lining,
    modal_value, modal_share.

    * ``median_seconds``: median over the annotator's pair-ratings of the time on the pair
      (the value repeated on each score row of a pair-rating; its first non-empty value);
    * ``straight_lining``: share of their pair-ratings with at least two scores where all
      scores are equal (e.g. all 8 scores 4);
    * ``modal_share``: share of their scores equal to their most frequent value.
    """
    per_rating = (
        pd.DataFrame({"rating": coded.rating, "score": coded.score, "seconds": coded.seconds})
        .groupby("rating", sort=True)
        .agg(
            low=("score", "min"),
            high=("score", "max"),
            size=("score", "size"),
            seconds=("seconds", "first"),
        )
    )
    rating_annotator = np.zeros(coded.n_ratings, dtype=np.int64)
    rating_annotator[coded.rating] = coded.annotator
    per_rating["annotator"] = rating_annotator[per_rating.index.to_numpy()]
    scored = per_rating[per_rating["size"] >= 2]
    flat = (scored["low"] == scored["high"]).groupby(scored["annotator"]).mean()

    n = coded.n_annotators
    size = scale_max - scale_min + 1
    value_counts = np.bincount(
        coded.annotator * size + (coded.score - scale_min), minlength=n * size
    ).reshape(n, size)
    n_scores = value_counts.sum(axis=1)
    table = pd.DataFrame(
        {
            "n_pairs": np.bincount(per_rating["annotator"], minlength=n),
            "n_scores": n_scores,
            "median_seconds": per_rating.groupby("annotator")["seconds"].median().reindex(range(n)),
            "straight_lining": flat.reindex(range(n)),
            "modal_value": value_counts.argmax(axis=1) + scale_min,
            "modal_share": value_counts.max(axis=1) / np.maximum(n_scores, 1),
        }
    )
    return table
