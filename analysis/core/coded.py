"""Integer-coded view of validated ratings, and per-pair means.

Everything downstream works on numpy arrays of small integer codes (pair, annotator, dimension,
response, side) so a million scores are grouped with ``np.bincount`` rather than Python loops.
A pair is identified by (study, pair_id).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import numpy.typing as npt
import pandas as pd

from analysis.schema.questions import target_key
from annotate.questionnaire import DEFAULT_QUESTIONNAIRE, Questionnaire
from annotate.vocabulary import RESPONSES, SIDES

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
ObjectArray = npt.NDArray[np.object_]

CHOSEN, REJECTED = 0, 1
SIDE_A, SIDE_B = 0, 1


@dataclass(frozen=True)
class CodedRatings:
    """Validated ratings as parallel code arrays (one entry per score)."""

    pair: IntArray  # 0..n_pairs-1
    annotator: IntArray  # 0..n_annotators-1
    dimension: IntArray  # index into `keys` (the questionnaire's scale questions)
    response: IntArray  # 0 chosen / 1 rejected
    side: IntArray  # 0 A / 1 B
    score: IntArray
    seconds: FloatArray  # nan when unknown
    pairs: pd.DataFrame  # one row per pair code: study, pair_id, domain
    annotators: ObjectArray  # annotator names, by code
    questionnaire: Questionnaire = field(default=DEFAULT_QUESTIONNAIRE)

    @property
    def keys(self) -> tuple[str, ...]:
        """The questions analysed as numbers (every scale question), in the questionnaire's
        order; `dimension` codes index this."""
        return scale_keys(self.questionnaire)

    @property
    def n_dims(self) -> int:
        return len(self.keys)

    @property
    def target(self) -> int | None:
        """Code of the target question (the first ``diverge``); None without one."""
        target = self.questionnaire.target
        return None if target is None else self.keys.index(target)

    def target_index(self) -> int:
        """Code of the target question; ValueError for a questionnaire without one."""
        return self.keys.index(target_key(self.questionnaire))

    @property
    def n_pairs(self) -> int:
        return len(self.pairs)

    @property
    def n_annotators(self) -> int:
        return len(self.annotators)

    @property
    def n_scores(self) -> int:
        return len(self.score)

    @cached_property
    def rating(self) -> IntArray:
        """Code of the pair-rating (annotator, pair) of each score, 0..n_ratings-1."""
        key = self.pair * self.n_annotators + self.annotator
        return np.asarray(np.unique(key, return_inverse=True)[1], dtype=np.int64)

    @cached_property
    def n_ratings(self) -> int:
        return int(self.rating.max()) + 1 if self.n_scores else 0

    def pair_names(self, codes: IntArray) -> list[str]:
        """Readable pair names; prefixed by study when the data holds several studies."""
        several = self.pairs["study"].nunique() > 1
        rows = self.pairs.iloc[codes]
        if several:
            return [f"{s}:{p}" for s, p in zip(rows["study"], rows["pair_id"], strict=True)]
        return [str(p) for p in rows["pair_id"]]


def scale_keys(questionnaire: Questionnaire) -> tuple[str, ...]:
    """The keys of the questionnaire's scale questions (choice questions are counted, not
    averaged: :mod:`analysis.core.choices`)."""
    return tuple(q.key for q in questionnaire.questions if q.is_scale)


def encode_ratings(
    df: pd.DataFrame, questionnaire: Questionnaire = DEFAULT_QUESTIONNAIRE
) -> CodedRatings:
    """Code a validated ratings DataFrame (see :func:`analysis.core.ratings.validate_ratings`);
    rows of a choice question are left out (:mod:`analysis.core.choices` counts them)."""
    df = df[df["dimension"].isin(scale_keys(questionnaire))]
    grouped = df.groupby(["study", "pair_id"], sort=True)
    pair = grouped.ngroup().to_numpy(np.int64)
    pairs = grouped[["study", "pair_id", "domain"]].first().reset_index(drop=True)
    annotator_codes, annotators = pd.factorize(df["annotator"], sort=True)
    return CodedRatings(
        pair=pair,
        annotator=annotator_codes.astype(np.int64),
        dimension=_codes(df["dimension"], scale_keys(questionnaire)),
        response=_codes(df["response"], RESPONSES),
        side=_codes(df["side"], SIDES),
        score=df["score"].to_numpy(np.int64),
        seconds=df["seconds"].to_numpy(np.float64, na_value=np.nan),
        pairs=pairs,
        annotators=np.asarray(annotators, dtype=object),
        questionnaire=questionnaire,
    )


def _codes(values: pd.Series, categories: tuple[str, ...]) -> IntArray:
    return np.asarray(pd.Categorical(values, categories=list(categories)).codes, dtype=np.int64)


@dataclass(frozen=True)
class PairMeans:
    """Per pair, dimension and response: sum and count of scores over the pair's annotators."""

    sums: FloatArray  # (n_pairs, n_dims, 2)
    counts: IntArray  # (n_pairs, n_dims, 2)

    def complete(self, dim: int) -> BoolArray:
        """Pairs with both chosen and rejected scores on ``dim`` (boolean mask)."""
        return (self.counts[:, dim, CHOSEN] > 0) & (self.counts[:, dim, REJECTED] > 0)

    def means(self, dim: int, mask: BoolArray | None = None) -> tuple[FloatArray, FloatArray]:
        """Chosen and rejected per-pair means on ``dim`` for complete pairs (within ``mask``)."""
        keep = self.complete(dim) if mask is None else self.complete(dim) & mask
        sums = self.sums[keep, dim]
        counts = self.counts[keep, dim]
        return sums[:, CHOSEN] / counts[:, CHOSEN], sums[:, REJECTED] / counts[:, REJECTED]


def pair_means(coded: CodedRatings) -> PairMeans:
    """Sum and count scores per (pair, dimension, response) with one bincount."""
    n_dims = coded.n_dims
    index = (coded.pair * n_dims + coded.dimension) * 2 + coded.response
    size = coded.n_pairs * n_dims * 2
    sums = np.bincount(index, weights=coded.score, minlength=size).astype(np.float64)
    counts = np.bincount(index, minlength=size).astype(np.int64)
    shape = (coded.n_pairs, n_dims, 2)
    return PairMeans(sums=sums.reshape(shape), counts=counts.reshape(shape))
