"""Krippendorff's alpha and its bootstrap intervals over pairs and coders.

Alpha point estimates come from the ``krippendorff`` package (``krippendorff.alpha``), fed with
value counts (units x values) built by ``np.bincount`` from the long ratings; this is the same
as its reliability matrix (rows = annotators, columns = units, nan for missing, see
:func:`reliability_matrix`). Units seen by fewer than two annotators are dropped first: they
carry no pairable values and do not change alpha.

Bootstrap CIs (:func:`bootstrap_alpha`) resample pairs whole (a pair's chosen and rejected units
together) and coders. Coincidence matrices are additive over units, so each replicate's matrix
is ``weights @ per-unit coincidences`` and all replicates are computed at once with the same
formulas as the package (checked against it in the tests).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypedDict

import krippendorff
import numpy as np
import pandas as pd

from analysis.core.coded import FloatArray, IntArray
from analysis.schema.report_types import Interval

Level = Literal["nominal", "ordinal", "interval", "ratio"]
ValueDomain = Sequence[int] | Sequence[float] | IntArray | FloatArray

LEVELS: tuple[Level, ...] = ("ordinal", "interval")
BOOT_CHUNK = 250


class AlphaWithCI(TypedDict):
    alpha: float | None
    ci95: Interval | None


# --- alpha ---------------------------------------------------------------------------------


def value_counts(units: IntArray, values: Any, value_domain: ValueDomain) -> IntArray:
    """Units x values count matrix. ``units`` are codes 0..U-1; ``values`` must lie in the
    (sorted) ``value_domain``."""
    domain = np.asarray(value_domain)
    index = np.searchsorted(domain, values)
    if np.any(index >= len(domain)) or np.any(domain[np.minimum(index, len(domain) - 1)] != values):
        raise ValueError("values outside the value domain")
    n_units = int(units.max()) + 1 if len(units) else 0
    counts = np.bincount(units * len(domain) + index, minlength=n_units * len(domain))
    return np.asarray(counts.reshape(n_units, len(domain)), dtype=np.int64)


def pairable(counts: IntArray) -> IntArray:
    """The rows (units) of a value-count matrix with at least two values."""
    return np.asarray(counts[counts.sum(axis=1) >= 2], dtype=np.int64)


def alpha(counts: IntArray, value_domain: ValueDomain, level: Level) -> float | None:
    """``krippendorff.alpha`` on value counts; None when undefined (no pairable unit, or no
    variation at all)."""
    counts = pairable(counts)
    if len(counts) == 0:
        return None
    with np.errstate(all="ignore"):
        value = krippendorff.alpha(
            value_counts=counts,
            value_domain=np.asarray(value_domain),
            level_of_measurement=level,
        )
    return float(value) if np.isfinite(value) else None


def why_no_alpha(units: IntArray, values: FloatArray) -> str:
    """Why alpha is undefined on `values` (one per coder and unit), in words: no unit with two
    values, or no variation at all among those that have two (then alpha is 0/0: the coders
    agree perfectly, but there is no disagreement expected by chance to compare with)."""
    codes = np.unique(units, return_inverse=True)[1].ravel()
    pairable = np.bincount(codes)[codes] >= 2
    if not pairable.any():
        return "no pair was rated by two annotators, so there is no agreement to measure"
    seen = np.unique(np.asarray(values)[pairable])
    if len(seen) == 1:
        return (
            f"every annotator gave every pair the same value ({seen[0]:g}): with no variation "
            "at all alpha is 0/0, undefined; they agree perfectly, but there is no chance "
            "disagreement to compare with"
        )
    return "alpha is undefined on these values"


def reliability_matrix(
    df: pd.DataFrame, unit_cols: Sequence[str], coder_col: str, value_col: str
) -> tuple[FloatArray, list[Any], list[Any]]:
    """Reliability matrix (rows = coders, columns = units, nan for missing) from long data,
    with the coder and unit labels in matrix order (sorted)."""
    coders, coder_labels = pd.factorize(df[coder_col], sort=True)
    unit_index = pd.MultiIndex.from_frame(df[list(unit_cols)])
    units, unit_labels = pd.factorize(unit_index, sort=True)
    matrix = np.full((len(coder_labels), len(unit_labels)), np.nan)
    matrix[coders, units] = df[value_col].to_numpy(float)
    return matrix, list(coder_labels), list(unit_labels)


def alpha_from_long(
    df: pd.DataFrame,
    unit_cols: Sequence[str],
    value_col: str,
    level: Level = "interval",
    value_domain: ValueDomain | None = None,
) -> float | None:
    """Krippendorff's alpha from long data (one row per coder and unit) through the same value
    count path as the report."""
    units = pd.factorize(pd.MultiIndex.from_frame(df[list(unit_cols)]))[0].astype(np.int64)
    values = df[value_col].to_numpy()
    domain = np.unique(values) if value_domain is None else np.asarray(value_domain)
    return alpha(value_counts(units, values, domain), domain, level)


def coincidence_alpha(o: FloatArray, value_domain: ValueDomain, level: Level) -> FloatArray:
    """Alpha for a stack of coincidence matrices ``o`` (B x V x V), vectorised over B; same
    formula as ``krippendorff.alpha``: 1 - sum(o * delta) / sum(e * delta)."""
    n_v = o.sum(axis=1)
    n = n_v.sum(axis=1)
    expected = (n_v[:, :, None] * n_v[:, None, :] - _diag(n_v)) / (n - 1)[:, None, None]
    delta = _distances(np.asarray(value_domain, float), level, n_v)
    with np.errstate(all="ignore"):
        disagreement = (o * delta).sum(axis=(1, 2)) / (expected * delta).sum(axis=(1, 2))
    return np.asarray(1 - disagreement, dtype=np.float64)


def _diag(n_v: FloatArray) -> FloatArray:
    return np.asarray(n_v[:, :, None] * np.eye(n_v.shape[1])[None], dtype=np.float64)


def _distances(domain: FloatArray, level: Level, n_v: FloatArray) -> FloatArray:
    """Squared distance between values (V x V, or B x V x V for ordinal, which depends on the
    value frequencies n_v)."""
    c, k = domain[:, None], domain[None, :]
    if level == "nominal":
        distance = (c != k).astype(float)
    elif level == "interval":
        distance = (c - k) ** 2
    elif level == "ratio":
        with np.errstate(all="ignore"):
            distance = np.nan_to_num(((c - k) / (c + k)) ** 2)
    elif level == "ordinal":
        i = np.arange(len(domain))
        lo, hi = np.minimum.outer(i, i), np.maximum.outer(i, i)
        cum = np.concatenate([np.zeros((len(n_v), 1)), np.cumsum(n_v, axis=1)], axis=1)
        between = cum[:, hi + 1] - cum[:, lo]
        distance = (between - (n_v[:, i][:, :, None] + n_v[:, i][:, None, :]) / 2) ** 2
    else:
        raise ValueError(f"unknown level of measurement {level!r}")
    return np.asarray(distance, dtype=np.float64)


def unit_coincidences(counts: IntArray) -> FloatArray:
    """Each pairable unit's contribution to the coincidence matrix, flattened (U x V*V)."""
    counts = pairable(counts).astype(float)
    n_values = counts.shape[1]
    outer = counts[:, :, None] * counts[:, None, :]
    outer[:, np.arange(n_values), np.arange(n_values)] -= counts
    per_unit = outer / (counts.sum(axis=1) - 1)[:, None, None]
    return np.asarray(per_unit.reshape(len(counts), n_values**2), dtype=np.float64)


@dataclass(frozen=True)
class Codings:
    """Long codings for the bootstrap: per value its unit, coder and index in the value
    domain; per unit its cluster (the pair: a pair's chosen and rejected units resample
    together)."""

    unit: IntArray
    coder: IntArray
    value: IntArray
    cluster_of_unit: IntArray

    @property
    def n_units(self) -> int:
        return len(self.cluster_of_unit)

    @property
    def cell(self) -> IntArray:
        """Code of each value's (cluster, coder) cell: one annotator's rating of one pair."""
        key = self.cluster_of_unit[self.unit] * (int(self.coder.max()) + 1) + self.coder
        return np.asarray(np.unique(key, return_inverse=True)[1], dtype=np.int64)


def codings(
    units: IntArray, coders: IntArray, values: Any, value_domain: ValueDomain, clusters: IntArray
) -> Codings:
    """:class:`Codings` from parallel arrays (``clusters`` per value: its unit's cluster)."""
    domain = np.asarray(value_domain)
    unit_codes, first = np.unique(units, return_inverse=False, return_index=True)
    unit = np.searchsorted(unit_codes, units).astype(np.int64)
    value = np.searchsorted(domain, values).astype(np.int64)
    cluster = np.unique(clusters, return_inverse=True)[1].astype(np.int64)
    coder = np.unique(coders, return_inverse=True)[1].astype(np.int64)
    return Codings(unit, coder, value, cluster[first])


BootDesign = Literal["pairs", "pairs+coders", "combined"]
BOOT_DESIGNS: tuple[BootDesign, ...] = ("pairs", "pairs+coders", "combined")
DEFAULT_DESIGN: BootDesign = "combined"
VARIANCE_DRAWS = 200
"""Resamples for the coder and pair-rating variance components of the combined design (only
their variances are needed, not quantiles)."""


def bootstrap_alpha(
    data: Codings,
    value_domain: ValueDomain,
    levels: Sequence[Level],
    n_boot: int,
    rng: np.random.Generator,
    design: BootDesign = DEFAULT_DESIGN,
) -> dict[Level, Interval | None]:
    """95% bootstrap CI of alpha per level for crossed pairs x coders data.

    * ``pairs``: clusters (pairs; both units of a pair together) resampled with replacement,
      coders fixed; percentile interval.
    * ``pairs+coders``: clusters and coders resampled independently ("pigeonhole"); known to
      overstate the variance (it counts the pair x coder noise twice or more).
    * ``combined`` (default): the variance over pairs and coders estimated as
      V_pairs + V_coders - V_cells (McCullagh 2000; Owen 2007), where V_cells resamples
      pair-ratings (one annotator on one pair) independently; the pairs-only percentile
      interval is stretched about the estimate by sqrt(V / V_pairs) (never shrunk).

    A resampled coder or pair-rating drawn m times counts m times, but pairs of its copies
    with each other are left out (they would agree by construction). With all multiplicities
    1 the coincidences are Krippendorff's."""
    n_clusters = int(data.cluster_of_unit.max()) + 1 if data.n_units else 0
    if n_boot <= 0 or n_clusters < 2:
        return dict.fromkeys(levels)
    if design == "pairs+coders":
        draws = _draws(data, value_domain, levels, n_boot, rng, ("pairs", "coders"))
        return {level: _percentile_ci(draws[level]) for level in levels}
    pairs = _draws(data, value_domain, levels, n_boot, rng, ("pairs",))
    if design == "pairs":
        return {level: _percentile_ci(pairs[level]) for level in levels}
    n_var = min(n_boot, VARIANCE_DRAWS)
    coders = _draws(data, value_domain, levels, n_var, rng, ("coders",))
    cells = _draws(data, value_domain, levels, n_var, rng, ("cells",))
    estimate = alpha(
        value_counts(data.unit, np.asarray(value_domain)[data.value], value_domain),
        value_domain,
        levels[0],
    )
    out: dict[Level, Interval | None] = {}
    for level in levels:
        base = _percentile_ci(pairs[level])
        point = estimate if level == levels[0] else _point(data, value_domain, level)
        out[level] = (
            None
            if base is None or point is None
            else _stretch(base, point, _var(pairs[level]), _var(coders[level]) - _var(cells[level]))
        )
    return out


def _point(data: Codings, value_domain: ValueDomain, level: Level) -> float | None:
    counts = value_counts(data.unit, np.asarray(value_domain)[data.value], value_domain)
    return alpha(counts, value_domain, level)


def _var(values: FloatArray) -> float:
    finite = values[np.isfinite(values)]
    return float(np.var(finite, ddof=1)) if len(finite) > 1 else 0.0


def _stretch(base: Interval, point: float, v_pairs: float, v_extra: float) -> Interval:
    """Widen [low, high] about ``point`` by sqrt((v_pairs + v_extra) / v_pairs), at least 1."""
    factor = float(np.sqrt((v_pairs + v_extra) / v_pairs)) if v_pairs > 0 and v_extra > 0 else 1.0
    low, high = base
    return [point - factor * (point - low), point + factor * (high - point)]


def _draws(
    data: Codings,
    value_domain: ValueDomain,
    levels: Sequence[Level],
    n_boot: int,
    rng: np.random.Generator,
    resample: tuple[str, ...],
) -> dict[Level, FloatArray]:
    """Bootstrap replicates of alpha, resampling the given sources: "pairs" (clusters),
    "coders", "cells" (pair-ratings, Poisson(1) weights)."""
    n_clusters = int(data.cluster_of_unit.max()) + 1
    if resample == ("pairs",):
        return _pair_draws(data, value_domain, levels, n_boot, rng, n_clusters)
    n_values = len(value_domain)
    draws: dict[Level, list[FloatArray]] = {level: [] for level in levels}
    chunk = max(1, min(BOOT_CHUNK, 4_000_000 // max(data.n_units * n_values, len(data.unit))))
    for start in range(0, n_boot, chunk):
        size = min(chunk, n_boot - start)
        unit_weight = (
            _multiplicities(rng, size, n_clusters)[:, data.cluster_of_unit]
            if "pairs" in resample
            else np.ones((size, data.n_units))
        )
        if "coders" in resample:
            value_weight = _multiplicities(rng, size, int(data.coder.max()) + 1)[:, data.coder]
        elif "cells" in resample:
            cell = data.cell
            value_weight = rng.poisson(1.0, (size, int(cell.max()) + 1)).astype(float)[:, cell]
        else:
            value_weight = np.ones((size, len(data.unit)))
        o = _weighted_coincidences(data, value_weight, unit_weight, n_values)
        for level in levels:
            draws[level].append(coincidence_alpha(o, value_domain, level))
    return {level: np.concatenate(draws[level]) for level in levels}


def _pair_draws(
    data: Codings,
    value_domain: ValueDomain,
    levels: Sequence[Level],
    n_boot: int,
    rng: np.random.Generator,
    n_clusters: int,
) -> dict[Level, FloatArray]:
    """Pairs-only replicates, fast: coincidences are additive over clusters, so each
    replicate's matrix is ``multiplicities @ per-cluster coincidences``."""
    n_values = len(value_domain)
    counts = value_counts(data.unit, np.asarray(value_domain)[data.value], value_domain)
    keep = counts.sum(axis=1) >= 2
    per_cluster = np.zeros((n_clusters, n_values * n_values))
    np.add.at(per_cluster, data.cluster_of_unit[keep], unit_coincidences(counts))
    draws: dict[Level, list[FloatArray]] = {level: [] for level in levels}
    for start in range(0, n_boot, BOOT_CHUNK):
        size = min(BOOT_CHUNK, n_boot - start)
        o = (_multiplicities(rng, size, n_clusters) @ per_cluster).reshape(size, n_values, n_values)
        for level in levels:
            draws[level].append(coincidence_alpha(o, value_domain, level))
    return {level: np.concatenate(draws[level]) for level in levels}


def _multiplicities(rng: np.random.Generator, size: int, n: int) -> FloatArray:
    """How often each of n items is drawn in each of ``size`` resamples (size x n)."""
    picks = rng.integers(0, n, size=(size, n)) + (np.arange(size) * n)[:, None]
    return np.bincount(picks.ravel(), minlength=size * n).reshape(size, n).astype(np.float64)


def _weighted_coincidences(
    data: Codings, value_weight: FloatArray, unit_weight: FloatArray, n_values: int
) -> FloatArray:
    """Coincidence matrices (B x V x V) with value multiplicities m and unit weights w:
    o = sum_u w_u (N_u N_u' - diag(Q_u)) / (n_u - 1), N_u the m-weighted value counts of unit
    u, Q_u the m^2-weighted ones, n_u = sum N_u (units with n_u < 2 drop out)."""
    size = len(value_weight)
    cells = data.n_units * n_values
    index = (np.arange(size)[:, None] * cells + (data.unit * n_values + data.value)).ravel()
    m = value_weight.ravel()
    counts = np.bincount(index, weights=m, minlength=size * cells).reshape(
        size, data.n_units, n_values
    )
    squares = np.bincount(index, weights=m * m, minlength=size * cells).reshape(
        size, data.n_units, n_values
    )
    n_u = counts.sum(axis=2)
    with np.errstate(all="ignore"):
        scale = np.where(n_u >= 2, unit_weight / (n_u - 1), 0.0)
    o = np.matmul((scale[:, :, None] * counts).transpose(0, 2, 1), counts)
    o -= _diag(np.einsum("bu,buv->bv", scale, squares))
    return np.asarray(o, dtype=np.float64)


def _percentile_ci(values: FloatArray) -> Interval | None:
    values = values[np.isfinite(values)]
    if len(values) == 0:
        return None
    low, high = np.quantile(values, [0.025, 0.975])
    return [float(low), float(high)]


def alpha_with_ci(
    data: Codings,
    value_domain: ValueDomain,
    levels: Sequence[Level],
    n_boot: int,
    rng: np.random.Generator,
) -> dict[Level, AlphaWithCI]:
    """{level: {"alpha": a, "ci95": [low, high] | None}} for one set of codings."""
    counts = value_counts(data.unit, np.asarray(value_domain)[data.value], value_domain)
    cis = bootstrap_alpha(data, value_domain, levels, n_boot, rng)
    return {
        level: {"alpha": alpha(counts, value_domain, level), "ci95": cis[level]} for level in levels
    }
