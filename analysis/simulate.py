"""Simulated ratings in the export format, for tests, demos and benchmarks.

Model, per pair p and dimension d: a shared quality q ~ N(centre, pair_sd); latent chosen and
rejected values q +- effect_d / 2, each plus N(0, response_sd) jitter. Annotator a scores
latent + bias_a + N(0, noise_sd), rounded and clipped to the scale, with bias_a ~
N(0, annotator_bias_sd). So ``effects[d]`` is the true mean chosen - rejected difference in
scale points on the latent scale (rounding is unbiased; clipping near the scale ends shrinks
it a little). Each (annotator, pair) gets a random side for chosen.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from analysis.core.coded import FloatArray, IntArray
from annotate.questionnaire import DEFAULT_QUESTIONNAIRE, Questionnaire
from annotate.vocabulary import EXPORT_COLUMNS, RESPONSES, SCALE_MAX, SCALE_MIN, SIDES

DEFAULT_DOMAINS = (
    "Art_and_Entertainment",
    "Lifestyle_and_Personal_Development",
    "Society_and_Culture",
)
START = np.datetime64("2026-01-05T09:00:00", "s")


def simulate_ratings(
    n_pairs: int,
    n_annotators_per_pair: int,
    effects: Mapping[str, float] | None = None,
    seed: int = 0,
    domains: Sequence[str] = DEFAULT_DOMAINS,
    n_annotators: int | None = None,
    *,
    annotator_bias_sd: float = 0.3,
    noise_sd: float = 0.8,
    pair_sd: float = 0.7,
    response_sd: float = 0.3,
    scale_min: int = SCALE_MIN,
    scale_max: int = SCALE_MAX,
    study: str = "simulated",
    median_seconds: float = 90.0,
    questionnaire: Questionnaire = DEFAULT_QUESTIONNAIRE,
) -> pd.DataFrame:
    """Ratings of ``n_pairs`` pairs, each by ``n_annotators_per_pair`` annotators drawn from a
    pool of ``n_annotators`` (default: exactly that many, so everyone rates every pair).

    ``effects`` maps a question of ``questionnaire`` to its true chosen - rejected difference
    (missing: 0); a choice question's answer is the latent value clipped to its choices.
    Domains are assigned to pairs in turn. Returns one row per score, EXPORT_COLUMNS order.
    """
    effects = dict(effects or {})
    keys = questionnaire.keys
    unknown = set(effects) - set(keys)
    if unknown:
        raise ValueError(f"unknown dimensions in effects: {sorted(unknown)}")
    pool = n_annotators or n_annotators_per_pair
    if not 1 <= n_annotators_per_pair <= pool:
        raise ValueError("need 1 <= n_annotators_per_pair <= n_annotators")
    rng = np.random.default_rng(seed)

    latent = _latent_values(
        rng, n_pairs, [effects.get(k, 0.0) for k in keys], (scale_min + scale_max) / 2, pair_sd,
        response_sd,
    )  # fmt: skip
    rating_pair = np.repeat(np.arange(n_pairs), n_annotators_per_pair)
    rating_annotator = _draw_annotators(rng, n_pairs, n_annotators_per_pair, pool).ravel()
    n_ratings = len(rating_pair)

    bias = rng.normal(0.0, annotator_bias_sd, pool)
    noise = rng.normal(0.0, noise_sd, (n_ratings, 2, len(keys)))
    raw = latent[rating_pair] + bias[rating_annotator][:, None, None] + noise
    top = [scale_max if q.is_scale else len(q.choices) for q in questionnaire.questions]
    bottom = [scale_min if q.is_scale else 1 for q in questionnaire.questions]
    scores = np.clip(np.rint(raw), bottom, top).astype(np.int64)
    chosen_side = rng.integers(0, 2, n_ratings)
    seconds = np.round(median_seconds * rng.lognormal(0.0, 0.5, n_ratings), 1)
    created = START + rng.integers(0, 30 * 86400, n_ratings).astype("timedelta64[s]")

    per_rating = 2 * len(keys)
    row_rating = np.repeat(np.arange(n_ratings), per_rating)
    row_response = np.tile(np.repeat([0, 1], len(keys)), n_ratings)
    row_dimension = np.tile(np.tile(np.arange(len(keys)), 2), n_ratings)
    row_side = np.where(row_response == 0, chosen_side[row_rating], 1 - chosen_side[row_rating])
    pair_of_row = rating_pair[row_rating]

    pair_ids = np.array([f"p{i:06d}" for i in range(n_pairs)], dtype=object)
    pair_domains = np.array([domains[i % len(domains)] for i in range(n_pairs)], dtype=object)
    names = np.array([f"annotator_{j:04d}" for j in range(pool)], dtype=object)
    stamps = np.char.add(np.datetime_as_string(created, unit="s").astype(str), "+00:00")
    columns = {
        "study": np.full(len(row_rating), study, dtype=object),
        "pair_id": pair_ids[pair_of_row],
        "domain": pair_domains[pair_of_row],
        "annotator": names[rating_annotator[row_rating]],
        "response": np.asarray(RESPONSES, dtype=object)[row_response],
        "side": np.asarray(SIDES, dtype=object)[row_side],
        "dimension": np.asarray(keys, dtype=object)[row_dimension],
        "score": scores.reshape(n_ratings, per_rating).ravel(),
        "seconds": seconds[row_rating],
        "created_at": stamps.astype(object)[row_rating],
    }
    df = pd.DataFrame(columns)
    for column in ("study", "pair_id", "domain", "annotator", "response", "side", "dimension"):
        df[column] = df[column].astype("str")
    df["created_at"] = df["created_at"].astype("str")
    return df[list(EXPORT_COLUMNS)]


def _latent_values(
    rng: np.random.Generator,
    n_pairs: int,
    effects: Sequence[float],
    centre: float,
    pair_sd: float,
    response_sd: float,
) -> FloatArray:
    """Latent values, shape (n_pairs, 2 responses, n_dims), ``effects`` per question."""
    effect = np.asarray(effects, np.float64)
    quality = centre + rng.normal(0.0, pair_sd, (n_pairs, len(effect)))
    sign = np.array([0.5, -0.5])[None, :, None]
    jitter = rng.normal(0.0, response_sd, (n_pairs, 2, len(effect)))
    return np.asarray(quality[:, None, :] + sign * effect[None, None, :] + jitter, np.float64)


def _draw_annotators(rng: np.random.Generator, n_pairs: int, per_pair: int, pool: int) -> IntArray:
    """(n_pairs, per_pair) distinct annotator codes per pair."""
    if per_pair == pool:
        return np.tile(np.arange(pool), (n_pairs, 1))
    return np.argsort(rng.random((n_pairs, pool)), axis=1)[:, :per_pair]
