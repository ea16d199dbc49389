"""Human accuracy: how often the annotators' mean rubric-alignment scores put chosen above
rejected, the human counterpart of a reward model's accuracy on the benchmark."""

from __future__ import annotations

import numpy as np
from statsmodels.stats.proportion import proportion_confint

from .coded import FloatArray
from .paired import DIFF_DECIMALS
from .report_types import HumanAccuracy, Interval

REWARD_MODEL_REFERENCE = 0.7594
REWARD_MODEL_SOURCE = (
    "best reward model on Personalized RewardBench (Ma et al., 2026, arXiv 2604.07343)"
)
TIES_COUNT_AS = 0.5


def wilson_interval(successes: float, n: int) -> Interval | None:
    """95% Wilson score interval (``statsmodels`` ``proportion_confint(method="wilson")``)."""
    if n == 0:
        return None
    low, high = proportion_confint(successes, n, alpha=0.05, method="wilson")
    return [float(low), float(high)]


def human_accuracy(chosen: FloatArray, rejected: FloatArray) -> HumanAccuracy:
    """Share of pairs whose mean rubric-alignment score is higher for chosen.

    ``accuracy`` counts a tie (equal means) as half a correct pair; ``strict_accuracy`` counts
    only strict wins. ``ci95`` is the Wilson interval of ``strict_accuracy`` (a proper binomial
    count); ``ci95_ties_half`` is the Wilson formula applied to wins + ties/2, an approximation
    given for the headline figure.
    """
    diff = np.round(np.asarray(chosen, float) - np.asarray(rejected, float), DIFF_DECIMALS)
    n = len(diff)
    wins = int(np.sum(diff > 0))
    ties = int(np.sum(diff == 0))
    credit = wins + TIES_COUNT_AS * ties
    return {
        "accuracy": credit / n if n else None,
        "ties_count_as": TIES_COUNT_AS,
        "strict_accuracy": wins / n if n else None,
        "ci95": wilson_interval(wins, n),
        "ci95_of": "strict_accuracy",
        "ci_method": "wilson",
        "ci95_ties_half": wilson_interval(credit, n),
        "n_pairs": n,
        "n_chosen_higher": wins,
        "n_ties": ties,
        "n_rejected_higher": n - wins - ties,
        "reward_model_reference": REWARD_MODEL_REFERENCE,
        "reward_model_reference_source": REWARD_MODEL_SOURCE,
    }
