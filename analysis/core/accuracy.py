"""Human accuracy: how often the annotators' mean rubric-alignment scores put chosen above
rejected, the human counterpart of a reward model's accuracy on the benchmark.

A reward model's accuracy is a strict win rate (a tie is not a win), so the headline is the
strict share with its own Wilson interval; ties are reported beside it, and the two other ways
of counting them (as half a win, or dropped) are given as labelled alternatives.
"""

from __future__ import annotations

import numpy as np
from statsmodels.stats.proportion import proportion_confint

from analysis.core.coded import FloatArray
from analysis.core.paired import DIFF_DECIMALS
from analysis.schema.report_types import AccuracyFigure, HumanAccuracy, Interval

REWARD_MODEL_REFERENCE = 0.7594
REWARD_MODEL_SOURCE = (
    "best reward model on Personalized RewardBench (Ma et al., 2026, arXiv 2604.07343)"
)
TIES_COUNT_AS = 0.5
STRICT_LABEL = "Strict win rate (chosen higher; ties count as losses)"
HALF_LABEL = "Ties count as half a win (Wilson formula on wins + ties/2, approximate)"
DROPPED_LABEL = "Ties dropped (chosen higher among pairs without a tie)"


def wilson_interval(successes: float, n: int) -> Interval | None:
    """95% Wilson score interval without continuity correction (``statsmodels``
    ``proportion_confint(method="wilson")``; R ``prop.test(x, n, correct=FALSE)$conf.int``)."""
    if n == 0:
        return None
    low, high = proportion_confint(successes, n, alpha=0.05, method="wilson")
    return [float(low), float(high)]


def _figure(successes: float, n: int, label: str) -> AccuracyFigure:
    return {
        "value": successes / n if n else None,
        "ci95": wilson_interval(successes, n),
        "n": n,
        "label": label,
    }


def human_accuracy(chosen: FloatArray, rejected: FloatArray) -> HumanAccuracy:
    """Share of pairs whose mean rubric-alignment score is higher for chosen, three ways.

    The older flat keys stay: ``accuracy`` (ties as half), ``strict_accuracy`` and ``ci95``
    (Wilson interval of the strict share), ``ci95_ties_half``.
    """
    diff = np.round(np.asarray(chosen, float) - np.asarray(rejected, float), DIFF_DECIMALS)
    n = len(diff)
    wins = int(np.sum(diff > 0))
    ties = int(np.sum(diff == 0))
    credit = wins + TIES_COUNT_AS * ties
    strict = _figure(wins, n, STRICT_LABEL)
    half = _figure(credit, n, HALF_LABEL)
    return {
        "strict": strict,
        "ties": {"count": ties, "share": ties / n if n else None, "ci95": wilson_interval(ties, n)},
        "ties_as_half": half,
        "ties_dropped": _figure(wins, n - ties, DROPPED_LABEL),
        "accuracy": half["value"],
        "ties_count_as": TIES_COUNT_AS,
        "strict_accuracy": strict["value"],
        "ci95": strict["ci95"],
        "ci95_of": "strict_accuracy",
        "ci_method": "wilson",
        "ci95_ties_half": half["ci95"],
        "n_pairs": n,
        "n_chosen_higher": wins,
        "n_ties": ties,
        "n_rejected_higher": n - wins - ties,
        "reward_model_reference": REWARD_MODEL_REFERENCE,
        "reward_model_reference_source": REWARD_MODEL_SOURCE,
    }
