"""Missing ratings: the assumption stated, skips and flags counted, a test of whether skipping
is related to the pair, and a sensitivity analysis of the verdict (issue 33.2).

The primary fit (:mod:`analysis.inference.crossed`) uses the ratings that were given. It is
unbiased when a rating is *missing at random given pair and annotator* (Little & Rubin 2019,
ch. 1-3): whether an annotator skipped a pair says nothing about the score they would have
given beyond what the pair and the annotator already say. A design in which annotators skip
the close calls breaks it: the ratings kept are those with the larger differences.

**The test** (:func:`skip_test`). Per pair: the skips beyond what its annotators' own skip
rates predict, ``r_p = S_p - sum_a p_a`` over the pair's attempts (done or skipped), against
how close a call the pair is, ``c_p = |mean over its ratings of (d - annotator's shift)|`` on
the rubric difference d. The statistic is Spearman's correlation of ``r`` and ``c``, its
two-sided p-value by permuting ``r`` over the pairs (``SKIP_PERMUTATIONS`` draws, seeded;
Phipson & Smyth's (b + 1) / (m + 1)). Under the null, skips do not depend on the pair, so
``r`` is exchangeable over pairs whatever ``c`` is; the pool's refill (a skipped slot goes to
another annotator, so a pair's attempts depend on its skips) changes ``r``'s distribution but
not its exchangeability. Pairs with no rating (every attempt skipped) have no ``c`` and are
counted, not tested. ``benchmarks/bench_coverage.py`` shows its size and power.

**The sensitivity analysis** (:func:`skips_as_ties`): a pattern-mixture, delta-adjusted
analysis (Carpenter & Kenward 2013, ch. 10; Carpenter, Roger & Kenward 2013) in which each
skipped rating enters the crossed model as a tie, d = 0, given by its own annotator: the
"close call" made explicit. A rubric verdict "diverges" that does not survive it holds only
if skips are at random, and the report says so in the verdict's words. It is a bound in the
direction that matters for superiority (a close call pulls a positive difference down); for
an equivalence tie it can only help, which the report says too.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from analysis.core.coded import BoolArray, CodedRatings, FloatArray, IntArray
from analysis.inference.crossed import (
    CrossedMean,
    crossed_mean,
)
from analysis.inference.paired import DIVERGES, TIE, verdict
from analysis.inference.primary import RatingDiffs
from analysis.schema.report_types import (
    MissingData,
    MissingSensitivity,
    PairedTest,
    SensitivityDimension,
    SkipTestResult,
    SlotRow,
)
from annotate.questionnaire import DEFAULT_QUESTIONNAIRE, Questionnaire

SKIP_PERMUTATIONS = 1999
MIN_TESTED_PAIRS = 5
"""Below this many pairs with both a skip count and a rating the test is not run."""


@dataclass(frozen=True)
class SkipTest:
    """Spearman's correlation of a pair's excess skips and its closeness, with its
    permutation p-value (None: not enough pairs, or no variation in either)."""

    rho: float | None
    p: float | None
    n_pairs: int  # pairs tested
    n_unrated: int  # pairs every attempt of which was skipped (not tested)
    permutations: int


def skip_test(
    slot_pair: IntArray,
    slot_annotator: IntArray,
    slot_skipped: BoolArray,
    d: FloatArray,
    pair: IntArray,
    annotator: IntArray,
    *,
    permutations: int = SKIP_PERMUTATIONS,
    seed: int = 0,
) -> SkipTest:
    """Is skipping related to how close a call the pair is, beyond each annotator's own skip
    rate? ``slot_*``: one entry per attempt (done or skipped); ``d, pair, annotator``: the
    rubric difference of each rating given. Codes are shared between the two."""
    n_pairs = int(max(slot_pair.max(initial=-1), pair.max(initial=-1))) + 1
    excess = _excess_skips(slot_pair, slot_annotator, slot_skipped, n_pairs)
    closeness, rated = _closeness(d, pair, annotator, n_pairs)
    attempted = np.bincount(slot_pair, minlength=n_pairs) > 0
    tested = rated & attempted
    n_unrated = int(np.sum(attempted & ~rated))
    r, c = excess[tested], closeness[tested]
    if len(r) < MIN_TESTED_PAIRS or np.ptp(r) == 0 or np.ptp(c) == 0:
        return SkipTest(None, None, len(r), n_unrated, permutations)
    rank_r, rank_c = _centred_ranks(r), _centred_ranks(c)
    observed = float(rank_r @ rank_c)
    rng = np.random.default_rng(seed)
    shuffled = rng.permuted(np.tile(rank_r, (permutations, 1)), axis=1)
    extreme = int(np.sum(np.abs(shuffled @ rank_c) >= abs(observed) - 1e-12))
    rho = float(stats.spearmanr(r, c).statistic)
    return SkipTest(rho, (extreme + 1) / (permutations + 1), len(r), n_unrated, permutations)


def _excess_skips(
    slot_pair: IntArray, slot_annotator: IntArray, skipped: BoolArray, n_pairs: int
) -> FloatArray:
    """Per pair: its skips minus the sum of its attempts' annotators' skip rates."""
    n_annotators = int(slot_annotator.max(initial=-1)) + 1
    attempts = np.bincount(slot_annotator, minlength=n_annotators)
    rate = np.bincount(slot_annotator, weights=skipped, minlength=n_annotators) / np.maximum(
        attempts, 1
    )
    observed = np.bincount(slot_pair, weights=skipped.astype(np.float64), minlength=n_pairs)
    expected = np.bincount(slot_pair, weights=rate[slot_annotator], minlength=n_pairs)
    return np.asarray(observed - expected, np.float64)


def _closeness(
    d: FloatArray, pair: IntArray, annotator: IntArray, n_pairs: int
) -> tuple[FloatArray, BoolArray]:
    """Per pair: |mean of its ratings' d, each less its annotator's shift from the grand
    mean| (how far from a tie), and whether it has a rating."""
    n_annotators = int(annotator.max(initial=-1)) + 1
    counts = np.bincount(annotator, minlength=n_annotators)
    shift = np.bincount(annotator, weights=d, minlength=n_annotators) / np.maximum(counts, 1)
    adjusted = d - (shift[annotator] - (d.mean() if len(d) else 0.0))
    n = np.bincount(pair, minlength=n_pairs)
    total = np.bincount(pair, weights=adjusted, minlength=n_pairs)
    return np.abs(total / np.maximum(n, 1)), n > 0


def _centred_ranks(x: FloatArray) -> FloatArray:
    ranks = stats.rankdata(x)
    return np.asarray(ranks - ranks.mean(), np.float64)


def skips_as_ties(
    d: FloatArray,
    pair: IntArray,
    annotator: IntArray,
    skip_pair: IntArray,
    skip_annotator: IntArray,
) -> CrossedMean:
    """The crossed fit with each skipped (pair, annotator) slot added as a tie (d = 0)."""
    return crossed_mean(
        np.concatenate([d, np.zeros(len(skip_pair))]),
        np.concatenate([pair, skip_pair]),
        np.concatenate([annotator, skip_annotator]),
    )


ASSUMPTION = (
    "The primary figures use the ratings that were given; they assume a skipped rating is "
    "missing at random given the pair and the annotator (whether an annotator skipped a pair "
    "says nothing about the score they would have given beyond what the pair and the "
    "annotator already say)."
)
SENSITIVITY_METHOD = (
    "pattern-mixture, delta-adjusted: each skipped rating counted as a tie (chosen - rejected "
    "= 0) by its own annotator, crossed model refitted"
)
MAX_LISTED = 100
"""At most this many pairs are listed (those with the most skips and flags first)."""


def slot_counts(slots: pd.DataFrame, by: str, limit: int | None = None) -> list[SlotRow]:
    """Assignments, skips and flags per ``by`` ("pair_id" or "annotator"), most skipped and
    flagged first, at most ``limit`` rows."""
    keys = ["study", by] if by == "pair_id" else [by]
    grouped = slots.groupby(keys, sort=True).agg(
        n_assigned=("skipped", "size"), n_skipped=("skipped", "sum"), n_flagged=("flagged", "sum")
    )
    grouped = grouped.reset_index().sort_values(
        ["n_skipped", "n_flagged", *keys], ascending=[False, False, *([True] * len(keys))]
    )
    rows: list[SlotRow] = [
        {
            "name": str(row[by]),
            "n_assigned": int(row["n_assigned"]),
            "n_skipped": int(row["n_skipped"]),
            "skipped_share": float(row["n_skipped"] / row["n_assigned"]),
            "n_flagged": int(row["n_flagged"]),
            "flagged_share": float(row["n_flagged"] / row["n_assigned"]),
        }
        for _, row in grouped.iterrows()
    ]
    return rows if limit is None else rows[:limit]


TEST_METHOD = (
    "Spearman correlation of a pair's skips beyond its annotators' own skip rates with its "
    "distance from a tie (|mean rubric difference|, annotator-adjusted), two-sided "
    "permutation p-value"
)


def missing_data(
    slots: pd.DataFrame,
    coded: CodedRatings,
    diffs: RatingDiffs,
    paired: Mapping[str, PairedTest],
    alpha: float,
    seed: int = 0,
) -> MissingData:
    """The report's missing-data section from the assignments ``slots``
    (:func:`analysis.core.ratings.assignment_slots`) and the ratings analysed."""
    pair_code, annotator_code = _slot_codes(slots, coded)
    skipped = slots["skipped"].to_numpy(bool)
    d, pair, annotator = diffs.of(coded.target_index(), None)
    test = skip_test(pair_code, annotator_code, skipped, d, pair, annotator, seed=seed)
    tested: SkipTestResult = {
        "method": TEST_METHOD,
        "rho": test.rho,
        "p": test.p,
        "n_pairs": test.n_pairs,
        "n_unrated": test.n_unrated,
        "permutations": test.permutations,
        "related": None if test.p is None else test.p < alpha,
    }
    sensitivity = None
    if skipped.any():
        sensitivity = skip_sensitivity(
            diffs, paired, pair_code[skipped], annotator_code[skipped], alpha
        )
    by_pair = slot_counts(slots, "pair_id")
    n, n_skipped, n_flagged = len(slots), int(skipped.sum()), int(slots["flagged"].sum())
    return {
        "assumption": ASSUMPTION,
        "n_assigned": n,
        "n_skipped": n_skipped,
        "skipped_share": n_skipped / n if n else None,
        "n_flagged": n_flagged,
        "flagged_share": n_flagged / n if n else None,
        "by_pair": by_pair[:MAX_LISTED],
        "by_pair_truncated": len(by_pair) > MAX_LISTED,
        "by_annotator": slot_counts(slots, "annotator"),
        "skip_test": tested,
        "sensitivity": sensitivity,
        "words": missing_words(n_skipped, tested, sensitivity, paired, coded.questionnaire),
    }


def _slot_codes(slots: pd.DataFrame, coded: CodedRatings) -> tuple[IntArray, IntArray]:
    """Pair and annotator codes of the slots, those of ``coded`` where it has them (a pair or
    annotator with skips only gets a code after them)."""
    known = pd.MultiIndex.from_frame(coded.pairs[["study", "pair_id"]].astype(str))
    keys = pd.MultiIndex.from_frame(slots[["study", "pair_id"]])
    pair = _extend(known.get_indexer(keys), keys.to_flat_index())
    names = pd.Index(coded.annotators.astype(str))
    annotator = _extend(names.get_indexer(slots["annotator"]), slots["annotator"].to_numpy())
    return pair, annotator


def _extend(codes: IntArray, labels: object) -> IntArray:
    """Give the unknown (-1) entries new codes after the known ones, one per label."""
    codes = np.asarray(codes, np.int64).copy()
    unknown = codes < 0
    if unknown.any():
        fresh = pd.factorize(pd.Series(np.asarray(labels, dtype=object)[unknown]))[0]
        codes[unknown] = int(codes.max(initial=-1)) + 1 + fresh
    return codes


def skip_sensitivity(
    diffs: RatingDiffs,
    paired: Mapping[str, PairedTest],
    skip_pair: IntArray,
    skip_annotator: IntArray,
    alpha: float,
) -> MissingSensitivity:
    """Each dimension refitted with the skipped slots as ties, its verdict by the primary
    rules (:func:`analysis.inference.paired.verdict`) at the same margin and SESOI."""
    dimensions: dict[str, SensitivityDimension] = {}
    changed = []
    for dim_index, dim in enumerate(diffs.coded.keys):
        primary = paired[dim]
        fit = skips_as_ties(*diffs.of(dim_index, None), skip_pair, skip_annotator)
        tost = fit.tost_p(primary["margin"])
        superior = fit.p_greater(primary.get("sesoi", primary["margin"]))
        read = verdict({**primary, "tost_p": tost, "superiority_p": superior}, alpha)
        if primary["verdict"] == "insufficient_data":
            read = primary["verdict"]
        dimensions[dim] = {
            "estimate": fit.estimate,
            "ci95": fit.ci,
            "tost_p": tost,
            "superiority_p": superior,
            "verdict": read,
        }
        if read != primary["verdict"]:
            changed.append(dim)
    return {"method": SENSITIVITY_METHOD, "dimensions": dimensions, "changed": changed}


def missing_words(
    n_skipped: int,
    test: SkipTestResult,
    sensitivity: MissingSensitivity | None,
    paired: Mapping[str, PairedTest],
    questionnaire: Questionnaire = DEFAULT_QUESTIONNAIRE,
) -> str:
    """The assumption, the test and the sensitivity analysis in the verdict's words (questions
    named by their labels in ``questionnaire``)."""
    if sensitivity is None:
        return "No rating was skipped: no rating is missing. " + ASSUMPTION
    text = [ASSUMPTION, _test_words(test)]
    hypotheses = {*questionnaire.tie_keys, *questionnaire.diverge_keys}
    rests = [
        d
        for d in sensitivity["changed"]
        if d in hypotheses and paired[d]["verdict"] in (DIVERGES, TIE)
    ]
    if rests:
        text.append("The study verdict rests on that assumption" + _rests_words(test))
    for dim in sensitivity["changed"]:
        label = questionnaire.labels[dim]
        text.append(_changed_words(label, n_skipped, sensitivity["dimensions"][dim], paired[dim]))
    if not sensitivity["changed"]:
        text.append(
            f"The verdicts are the same with the {n_skipped} skipped rating(s) counted as ties "
            "(close calls)."
        )
    return " ".join(text)


def _rests_words(test: SkipTestResult) -> str:
    """How far to trust the assumption the verdict rests on, by the skip test (in the skip
    benchmark, a verdict qualified only where the test flags keeps the close calls' false
    superiority at 2.3% and its power when skips are at random)."""
    if test["related"]:
        return (
            ", and the test finds skipping related to the pair: report it as holding only "
            "if skips are at random."
        )
    if test["related"] is None:
        return "; whether skipping depends on the pair could not be tested."
    return "; the test finds no sign against it."


def _test_words(test: SkipTestResult) -> str:
    if test["p"] is None:
        return (
            "Whether skipping depends on the pair was not tested (too few pairs, or no pair "
            "skipped more or less often than its annotators' own skip rates predict)."
        )
    figures = f"(Spearman rho = {test['rho']:.2f}, permutation p = {test['p']:.3g})"
    if test["related"]:
        return (
            f"Skipping is related to the pair: pairs closer to a tie were skipped more or less "
            f"often than their annotators' own skip rates predict {figures}, so the assumption "
            "is doubtful; the sensitivity analysis below matters."
        )
    return f"No sign that skipping depends on how close a call the pair is {figures}."


def _changed_words(
    label: str, n_skipped: int, result: SensitivityDimension, primary: PairedTest
) -> str:
    ci = result["ci95"]
    interval = "" if ci is None else f" [{ci[0]:.2f}, {ci[1]:.2f}]"
    estimate = "undefined" if result["estimate"] is None else f"{result['estimate']:.2f}"
    was = {DIVERGES: "diverges", TIE: "ties"}.get(primary["verdict"], f"reads {primary['verdict']}")
    return (
        f"{label} {was} only if skips are at random: were the {n_skipped} skipped rating(s) "
        f"ties (close calls), its difference would be {estimate}{interval} and it would read "
        f"'{result['verdict']}'."
    )
