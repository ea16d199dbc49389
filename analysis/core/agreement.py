"""Inter-annotator agreement: alpha per dimension (with intervals), on the rubric preference,
and between pairs of annotators. The alpha computation itself is in :mod:`analysis.core.alpha`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from scipy import sparse

from analysis.core.alpha import LEVELS, ValueDomain, alpha_with_ci, codings, pairable, value_counts
from analysis.core.coded import CHOSEN, REJECTED, CodedRatings, FloatArray, IntArray
from analysis.schema.report_types import DimensionAgreement, PreferenceAgreement

Matrix = Any
"""A dense numpy array or a scipy sparse matrix (scipy ships no type hints)."""
PREFERENCES = ("chosen", "equal", "rejected")
DENSE_CELLS = 20_000_000
SPARSE_BELOW = 10
"""An indicator matrix less than 1 / SPARSE_BELOW full is multiplied as a sparse matrix."""
"""Annotator-by-column matrices up to this size are multiplied densely (BLAS), larger ones
(large crowds) as sparse matrices."""


# --- per dimension and rubric preference ----------------------------------------------------


def dimension_agreement(
    coded: CodedRatings, value_domain: ValueDomain, n_boot: int, seed: int
) -> dict[str, DimensionAgreement]:
    """Per dimension: ordinal and interval alpha with units (pair, response), and interval
    alpha on each annotator's chosen - rejected difference with units = pairs."""
    out: dict[str, DimensionAgreement] = {}
    domain = np.asarray(value_domain)
    span = int(domain[-1] - domain[0])
    diff_domain = np.arange(-span, span + 1)
    for dim_index, dim in enumerate(coded.keys):
        rows = coded.dimension == dim_index
        units = coded.pair[rows] * 2 + coded.response[rows]
        data = codings(
            units, coded.annotator[rows], coded.score[rows], value_domain, coded.pair[rows]
        )
        rng = np.random.default_rng([seed, dim_index])
        result = alpha_with_ci(data, value_domain, LEVELS, n_boot, rng)
        diffs = rating_differences(coded, dim_index)
        diff_data = codings(
            diffs["pair"].to_numpy(),
            diffs["annotator"].to_numpy(),
            diffs["diff"].to_numpy(np.int64),
            diff_domain,
            diffs["pair"].to_numpy(),
        )
        diff_result = alpha_with_ci(diff_data, diff_domain, ["interval"], n_boot, rng)
        counts = value_counts(units, coded.score[rows], value_domain)
        out[dim] = {
            "alpha_ordinal": result["ordinal"]["alpha"],
            "alpha_ordinal_ci95": result["ordinal"]["ci95"],
            "alpha_interval": result["interval"]["alpha"],
            "alpha_interval_ci95": result["interval"]["ci95"],
            "alpha_units": len(pairable(counts)),
            "alpha_difference": diff_result["interval"]["alpha"],
            "alpha_difference_ci95": diff_result["interval"]["ci95"],
            "alpha_note": _alpha_note(result["ordinal"]["alpha"], len(pairable(counts))),
        }
    return out


def _alpha_note(value: float | None, n_units: int) -> str | None:
    """Why alpha is missing, when it is."""
    if value is not None:
        return None
    if n_units == 0:
        return "no unit rated by two or more annotators"
    return "no variation in the scores (expected disagreement is zero)"


def rating_differences(coded: CodedRatings, dim_index: int) -> pd.DataFrame:
    """Per annotator and pair with both scores on the dimension: chosen - rejected (columns
    pair, annotator, diff)."""
    rows = coded.dimension == dim_index
    rating = coded.rating[rows]
    scores = np.full((coded.n_ratings, 2), np.nan)
    scores[rating, coded.response[rows]] = coded.score[rows]
    pair = np.zeros(coded.n_ratings, dtype=np.int64)
    annotator = np.zeros(coded.n_ratings, dtype=np.int64)
    pair[rating] = coded.pair[rows]
    annotator[rating] = coded.annotator[rows]
    both = ~np.isnan(scores).any(axis=1)
    return pd.DataFrame(
        {
            "pair": pair[both],
            "annotator": annotator[both],
            "diff": scores[both, CHOSEN] - scores[both, REJECTED],
        }
    )


def rubric_preferences(coded: CodedRatings) -> pd.DataFrame:
    """Per annotator and pair with both rubric scores: which response they scored higher
    (columns pair, annotator, preference code: 0 chosen, 1 equal, 2 rejected)."""
    diffs = rating_differences(coded, coded.target_index())
    diff = diffs.pop("diff").to_numpy()
    diffs["preference"] = np.where(diff > 0, 0, np.where(diff == 0, 1, 2))
    return diffs


def preference_agreement(coded: CodedRatings, n_boot: int, seed: int) -> PreferenceAgreement:
    """Nominal alpha on which response each annotator scored higher on rubric alignment; units
    are pairs, values chosen / equal / rejected."""
    prefs = rubric_preferences(coded)
    pair, preference = prefs["pair"].to_numpy(), prefs["preference"].to_numpy()
    counts = value_counts(pair, preference, [0, 1, 2])
    data = codings(pair, prefs["annotator"].to_numpy(), preference, [0, 1, 2], pair)
    rng = np.random.default_rng([seed, coded.n_dims])
    result = alpha_with_ci(data, [0, 1, 2], ["nominal"], n_boot, rng)["nominal"]
    shares = np.bincount(preference, minlength=3) / max(len(prefs), 1)
    return {
        "alpha_nominal": result["alpha"],
        "ci95": result["ci95"],
        "n_pairs": len(pairable(counts)),
        "n_judgements": len(prefs),
        "shares": {name: float(s) for name, s in zip(PREFERENCES, shares, strict=True)},
    }


# --- annotator pairs -------------------------------------------------------------------------


def annotator_agreement(
    coded: CodedRatings, scale_min: int, scale_max: int
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Exact and within-one agreement between annotators, over shared units (pair, response,
    dimension).

    Returns (pairwise, per_annotator). ``pairwise`` has one row per annotator pair sharing at
    least one unit: annotator_a, annotator_b, n_shared, exact, within_one (shares of shared
    units). ``per_annotator`` pools each annotator's comparisons with all others (index =
    annotator code): n_comparisons, exact, within_one, and mean_abs_diff_from_others (mean over
    their scores of |score - mean of the other annotators' scores on that unit|).
    """
    unit = (coded.pair * coded.n_dims + coded.dimension) * 2 + coded.response
    unit = np.unique(unit, return_inverse=True)[1]
    value = coded.score - scale_min
    scale_size = scale_max - scale_min + 1
    n_units = int(unit.max()) + 1
    n_annotators = coded.n_annotators
    cols = unit * scale_size + value
    near_rows, near_cols = _within_one(coded.annotator, cols, value, scale_size)
    one_hot = _indicator(coded.annotator, cols, (n_annotators, n_units * scale_size))
    near = _indicator(near_rows, near_cols, (n_annotators, n_units * scale_size))
    rated = _indicator(coded.annotator, unit, (n_annotators, n_units))
    shared = _gram(rated, rated)
    exact = _gram(one_hot, one_hot)
    within = _gram(one_hot, near)
    for m in (shared, exact, within):
        np.fill_diagonal(m, 0)
    return _pairwise_table(shared, exact, within), _per_annotator(
        coded, unit, shared, exact, within
    )


def _within_one(
    annotator: IntArray, cols: IntArray, value: IntArray, scale_size: int
) -> tuple[IntArray, IntArray]:
    """(row, column) cells of the "within one point of this value" indicator."""
    rows, columns = [annotator], [cols]
    for step in (-1, 1):
        ok = (value + step >= 0) & (value + step < scale_size)
        rows.append(annotator[ok])
        columns.append(cols[ok] + step)
    return np.concatenate(rows), np.concatenate(columns)


def _indicator(rows: IntArray, cols: IntArray, shape: tuple[int, int]) -> Matrix:
    """0/1 matrix with ones at (rows, cols): dense float32 (exact for counts below 2**24) when
    it fits DENSE_CELLS and is not sparse, for BLAS products; sparse CSR otherwise (large
    crowds, or few annotators per pair from a larger pool: 2.5% full at 3 of 120, where the
    sparse product was 40x faster). Counts are exact either way, so the results are equal."""
    cells = shape[0] * shape[1]
    if cells <= DENSE_CELLS and len(rows) * SPARSE_BELOW >= cells:
        dense = np.zeros(shape, dtype=np.float32)
        dense[rows, cols] = 1
        return dense
    return sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=shape)


def _gram(a: Matrix, b: Matrix) -> FloatArray:
    """a @ b.T as a dense float64 array."""
    product = a @ b.T
    return np.asarray(product.toarray() if sparse.issparse(product) else product, np.float64)


def _pairwise_table(shared: FloatArray, exact: FloatArray, within: FloatArray) -> pd.DataFrame:
    a, b = np.nonzero(np.triu(shared, k=1))
    n = shared[a, b]
    return pd.DataFrame(
        {
            "annotator_a": a,
            "annotator_b": b,
            "n_shared": n.astype(np.int64),
            "exact": exact[a, b] / n,
            "within_one": within[a, b] / n,
        }
    )


def _per_annotator(
    coded: CodedRatings, unit: IntArray, shared: FloatArray, exact: FloatArray, within: FloatArray
) -> pd.DataFrame:
    n_comparisons = shared.sum(axis=1)
    with np.errstate(all="ignore"):
        table = pd.DataFrame(
            {
                "n_comparisons": n_comparisons.astype(np.int64),
                "exact": exact.sum(axis=1) / n_comparisons,
                "within_one": within.sum(axis=1) / n_comparisons,
            }
        )
        sums = np.bincount(unit, weights=coded.score)
        counts = np.bincount(unit)
        others = counts[unit] - 1
        others_mean = (sums[unit] - coded.score) / others
        deviation = np.abs(coded.score - others_mean)
    has_others = others > 0
    dev_sum = np.bincount(
        coded.annotator[has_others], weights=deviation[has_others], minlength=coded.n_annotators
    )
    dev_n = np.bincount(coded.annotator[has_others], minlength=coded.n_annotators)
    with np.errstate(all="ignore"):
        table["mean_abs_diff_from_others"] = dev_sum / dev_n
    return table
