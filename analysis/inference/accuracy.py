"""Human accuracy: how often humans put the chosen response above the rejected one on rubric
alignment, the human counterpart of a reward model's accuracy on the benchmark.

One definition everywhere (report, reward-model comparison, results page, card):

* **headline** (``accuracy``, ``single_annotator``): the probability that a single annotator
  puts chosen above rejected, ties counted as half. It does not depend on how many annotators
  rate a pair (a panel's majority or mean gets more decisive as k grows), and a reward model
  practically never ties, so it is the figure to set beside a reward model's accuracy. Its
  interval is :func:`analysis.inference.crossed.crossed_mean` on each rating's credit (1 / 0.5 / 0):
  pairs and annotators random, Satterthwaite df (coverage in benchmarks/bench_coverage.py).
* beside it: the **strict** rate (chosen above, ties as losses) and the **tie share**, with the
  same kind of interval;
* **panel majority** (``panel_majority``): the share of pairs whose annotators' majority vote is
  chosen (a tied majority as half) at the study's k, with a Wilson interval over pairs: a second,
  labelled figure that grows with k.
"""

from __future__ import annotations

import numpy as np
from statsmodels.stats.proportion import proportion_confint

from analysis.core.coded import FloatArray, IntArray
from analysis.inference.crossed import (
    crossed_mean,
)
from analysis.inference.paired import DIFF_DECIMALS
from analysis.schema.report_types import AccuracyFigure, HumanAccuracy, Interval

REWARD_MODEL_REFERENCE = 0.7594
REWARD_MODEL_SOURCE = (
    "best reward model on Personalized RewardBench (Ma et al., 2026, arXiv 2604.07343)"
)
TIES_COUNT_AS = 0.5
HEADLINE_LABEL = (
    "Single annotator puts chosen above rejected (ties as half; comparable to a reward model)"
)
STRICT_LABEL = "Single annotator, strict (ties as losses)"
TIES_LABEL = "Single annotator rates both equally (tie share)"
MAJORITY_LABEL = "Panel majority of the pair's annotators prefers chosen (tied majority as half)"
DEFINITION = (
    "Headline: the probability that a single annotator's rubric_alignment score is higher for "
    "chosen than for rejected, ties counted as half; interval over pairs and annotators "
    "(crossed random effects, Satterthwaite df). Panel majority: share of pairs whose "
    "annotators' majority vote is chosen, a tied majority as half, at the study's annotators "
    "per pair (grows with k; Wilson interval over pairs)."
)


def wilson_interval(successes: float, n: int) -> Interval | None:
    """95% Wilson score interval without continuity correction (``statsmodels``
    ``proportion_confint(method="wilson")``; R ``prop.test(x, n, correct=FALSE)$conf.int``)."""
    if n == 0:
        return None
    low, high = proportion_confint(successes, n, alpha=0.05, method="wilson")
    return [float(low), float(high)]


def _crossed(values: FloatArray, pair: IntArray, annotator: IntArray, label: str) -> AccuracyFigure:
    fit = crossed_mean(values, pair, annotator)
    ci = fit.ci
    if ci is not None:
        ci = [max(0.0, ci[0]), min(1.0, ci[1])]
    return {"value": fit.estimate, "ci95": ci, "n": fit.n, "label": label, "method": fit.method}


def credit(diff: FloatArray) -> FloatArray:
    """1 when chosen is higher, 0.5 for a tie, 0 when rejected is higher."""
    d = np.round(np.asarray(diff, float), DIFF_DECIMALS)
    return np.asarray(np.where(d > 0, 1.0, np.where(d == 0, TIES_COUNT_AS, 0.0)), dtype=np.float64)


def panel_majority(diff: FloatArray, pair: IntArray) -> AccuracyFigure:
    """Share of pairs whose plurality vote (chosen / tie / rejected, by the sign of each
    annotator's difference) is chosen; no single plurality, or a plurality of ties, is half."""
    d = np.round(np.asarray(diff, float), DIFF_DECIMALS)
    codes = np.unique(pair, return_inverse=True)[1].ravel()
    n_pairs = int(codes.max()) + 1 if len(codes) else 0
    votes = np.zeros((n_pairs, 3))
    np.add.at(votes, (codes, np.where(d > 0, 0, np.where(d == 0, 1, 2))), 1)
    top = votes.max(axis=1, keepdims=True)
    leaders = votes == top
    chosen_wins = leaders[:, 0] & (leaders.sum(axis=1) == 1)
    rejected_wins = leaders[:, 2] & (leaders.sum(axis=1) == 1)
    score = np.where(chosen_wins, 1.0, np.where(rejected_wins, 0.0, TIES_COUNT_AS))
    total = float(score.sum())
    per_pair = votes.sum(axis=1)
    k = float(np.median(per_pair)) if n_pairs else 0.0
    return {
        "value": total / n_pairs if n_pairs else None,
        "ci95": wilson_interval(total, n_pairs),
        "n": n_pairs,
        "label": f"{MAJORITY_LABEL}, {_panel_words(per_pair)}",
        "method": "wilson",
        "k": k,
        "strict": float(np.mean(chosen_wins)) if n_pairs else None,
    }


def _panel_words(per_pair: FloatArray) -> str:
    """The panels as rated (issue 34.5: "k = 2", the median, read as the study's k of 3)."""
    if not len(per_pair):
        return "no pairs"
    low, high = float(per_pair.min()), float(per_pair.max())
    if low == high:
        return f"{low:g} annotators per pair"
    return f"{low:g} to {high:g} annotators per pair (median {float(np.median(per_pair)):g})"


def human_accuracy(diff: FloatArray, pair: IntArray, annotator: IntArray) -> HumanAccuracy:
    """Human accuracy from each annotator's rubric chosen - rejected difference per pair."""
    d = np.round(np.asarray(diff, float), DIFF_DECIMALS)
    headline = _crossed(credit(d), pair, annotator, HEADLINE_LABEL)
    strict = _crossed((d > 0).astype(float), pair, annotator, STRICT_LABEL)
    ties = _crossed((d == 0).astype(float), pair, annotator, TIES_LABEL)
    n_pairs = len(np.unique(pair))
    n_ties = int(np.sum(d == 0))
    wins = int(np.sum(d > 0))
    return {
        "headline": "single_annotator",
        "single_annotator": headline,
        "strict": strict,
        "ties": {"count": n_ties, "share": ties["value"], "ci95": ties["ci95"]},
        "ties_as_half": headline,
        "panel_majority": panel_majority(d, pair),
        "accuracy": headline["value"],
        "ties_count_as": TIES_COUNT_AS,
        "strict_accuracy": strict["value"],
        "ci95": headline["ci95"],
        "ci95_of": "accuracy",
        "ci_method": "crossed random pair and annotator effects, Satterthwaite df",
        "ci95_ties_half": headline["ci95"],
        "definition": DEFINITION,
        "n_pairs": n_pairs,
        "n_ratings": len(d),
        "n_chosen_higher": wins,
        "n_ties": n_ties,
        "n_rejected_higher": len(d) - wins - n_ties,
        "reward_model_reference": REWARD_MODEL_REFERENCE,
        "reward_model_reference_source": REWARD_MODEL_SOURCE,
    }
