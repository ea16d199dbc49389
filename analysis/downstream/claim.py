"""The correlation claim: does a reward model's accuracy on the benchmark predict its
downstream gain? Kendall's tau and Spearman's rho between the models' benchmark accuracies and
their human gains (and, beside them, the judge's gains), with exact permutation p-values and
intervals from resampling questions and annotators, the models fixed.

- The exact permutation p-value is two-sided: the share of the n! orderings of the gains whose
  statistic is at least as far from 0 as the observed one. Both statistics are symmetric about
  0 under the null, so for untied data this is R's `cor.test(..., exact = TRUE)` p-value (the
  tests check it against R). Above `EXACT_UP_TO` models it is estimated from `N_RANDOM`
  random orderings.
- The interval: each resample draws the questions of every comparison (identical questions
  among them, at zero) and the annotators (one draw across all comparisons, each annotator's
  differences weighted by how often they were drawn), recomputes each model's gain and the
  statistic with the accuracies fixed; the 2.5 and 97.5 percentiles.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

EXACT_UP_TO = 8
N_RANDOM = 20000


def rank_statistics(x: np.ndarray[Any, Any], y: np.ndarray[Any, Any]) -> tuple[float, float]:
    """(Kendall's tau-b, Spearman's rho) of two vectors; NaN when undefined."""
    tau, rho = _many(np.asarray(x, float), np.asarray(y, float)[None, :])
    return float(tau[0]), float(rho[0])


def _many(x: np.ndarray[Any, Any], ys: np.ndarray[Any, Any]) -> tuple[Any, Any]:
    """Kendall's tau-b and Spearman's rho of `x` with each row of `ys`, vectorised (the same
    values as scipy's kendalltau and spearmanr; NaN where a vector is constant)."""
    n = len(x)
    if n < 2:
        nan = np.full(len(ys), np.nan)
        return nan, nan
    i, j = np.triu_indices(n, 1)
    sx = np.sign(x[i] - x[j])
    sy = np.sign(ys[:, i] - ys[:, j])
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = (sy @ sx) / np.sqrt(np.sum(sx**2) * np.sum(sy**2, axis=1))
        rx = stats.rankdata(x)
        ry = stats.rankdata(ys, axis=1)
        cx = rx - rx.mean()
        cy = ry - ry.mean(axis=1, keepdims=True)
        rho = (cy @ cx) / np.sqrt(np.sum(cx**2) * np.sum(cy**2, axis=1))
    return tau, rho


def permutation_p(
    x: np.ndarray[Any, Any], y: np.ndarray[Any, Any], seed: int = 0
) -> tuple[float | None, float | None, bool]:
    """Two-sided permutation p-values of (tau, rho), and whether they are exact."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    tau, rho = rank_statistics(x, y)
    if math.isnan(tau) or math.isnan(rho):
        return None, None, True
    n = len(y)
    exact = n <= EXACT_UP_TO
    if exact:
        orders = np.array(list(itertools.permutations(range(n))))
    else:
        rng = np.random.default_rng(seed)
        orders = np.array([rng.permutation(n) for _ in range(N_RANDOM)])
    taus, rhos = _many(x, y[orders])
    p_tau = float(np.mean(np.abs(taus) >= abs(tau) - 1e-12))
    p_rho = float(np.mean(np.abs(rhos) >= abs(rho) - 1e-12))
    return p_tau, p_rho, exact


class GainData:
    """One comparison's (question x annotator) rubric-alignment differences, for resampling;
    `n_identical` questions at zero."""

    def __init__(self, diffs: pd.DataFrame, annotators: list[str], n_identical: int) -> None:
        wide = diffs.pivot_table(index="pair_id", columns="annotator", values="diff")
        self.matrix = wide.reindex(columns=annotators).to_numpy(float)
        self.n_identical = n_identical

    def gain(self, rng: np.random.Generator, weights: np.ndarray[Any, Any]) -> float:
        n_rated = self.matrix.shape[0]
        n = n_rated + self.n_identical
        drawn = rng.integers(0, n, n)
        rated = drawn[drawn < n_rated]
        present = ~np.isnan(self.matrix[rated])
        w = present * weights
        total = w.sum(axis=1)
        values = np.nansum(np.nan_to_num(self.matrix[rated]) * w, axis=1)
        keep = total > 0
        means = values[keep] / total[keep]
        n_used = len(means) + int(np.sum(drawn >= n_rated))
        return float(means.sum() / n_used) if n_used else math.nan


def correlation_claim(
    accuracy: dict[str, float],
    human: dict[str, GainData],
    human_gain: dict[str, float],
    judge_gain: dict[str, float],
    judge_diffs: dict[str, np.ndarray[Any, Any]],
    annotators: list[str],
    n_boot: int = 1000,
    seed: int = 0,
) -> dict[str, Any] | None:
    """The claim's figures over the models with an accuracy and both gains (None under 3)."""
    models = sorted(m for m in accuracy if m in human_gain and m in judge_gain)
    if len(models) < 3:
        return None
    x = np.array([accuracy[m] for m in models])
    result: dict[str, Any] = {"models": models, "accuracy": x.tolist()}
    rng = np.random.default_rng(seed)
    for label, gains in (("human", human_gain), ("judge", judge_gain)):
        y = np.array([gains[m] for m in models])
        tau, rho = rank_statistics(x, y)
        p_tau, p_rho, exact = permutation_p(x, y, seed)
        result[label] = {
            "gains": y.tolist(),
            "kendall_tau": None if math.isnan(tau) else tau,
            "spearman_rho": None if math.isnan(rho) else rho,
            "p_tau": p_tau,
            "p_rho": p_rho,
            "exact": exact,
        }
    draws = _resampled(models, x, human, judge_diffs, annotators, n_boot, rng)
    for label in ("human", "judge"):
        for name, column in (("kendall_tau", 0), ("spearman_rho", 1)):
            values = draws[label][:, column]
            values = values[~np.isnan(values)]
            result[label][f"{name}_ci"] = attainable_interval(values) if len(values) else None
    result["sentence"] = sentence(result)
    return result


def attainable_interval(draws: np.ndarray[Any, Any]) -> list[float]:
    """The 95% percentile interval of resampled rank statistics, each end a value the draws
    took (the 2.5% order statistic rounded down, the 97.5% one up): interpolating between two
    attainable taus gave ends no ranking can have (-0.0017 between -0.2 and 0 with 5 models)."""
    low = float(np.quantile(draws, 0.025, method="lower"))
    high = float(np.quantile(draws, 0.975, method="higher"))
    return [low, high]


def _resampled(
    models: list[str],
    x: np.ndarray[Any, Any],
    human: dict[str, GainData],
    judge_diffs: dict[str, np.ndarray[Any, Any]],
    annotators: list[str],
    n_boot: int,
    rng: np.random.Generator,
) -> dict[str, np.ndarray[Any, Any]]:
    ys, zs = np.empty((n_boot, len(models))), np.empty((n_boot, len(models)))
    share = np.full(len(annotators), 1 / len(annotators))
    for b in range(n_boot):
        weights = rng.multinomial(len(annotators), share)
        ys[b] = [human[m].gain(rng, weights) for m in models]
        zs[b] = [float(np.mean(rng.choice(judge_diffs[m], len(judge_diffs[m])))) for m in models]
    return {"human": np.column_stack(_many(x, ys)), "judge": np.column_stack(_many(x, zs))}


def sentence(result: dict[str, Any]) -> str:
    """What the humans confirm or contradict, in one plain sentence, each correlation with its
    interval: a claim is confirmed (or contradicted) only when the exact p-value is below 0.05
    AND the tau interval over questions and annotators lies on the same side of 0. The exact
    p-value takes the gains as known; the interval carries their uncertainty."""
    human, judge = result["human"], result["judge"]
    n = len(result["models"])
    text = (
        f"Over {n} reward models, the humans {_verdict(human)} the benchmark's correlation "
        f"claim: benchmark accuracy and the human downstream gain show {_said(human)}; "
        f"with the judge's gain, {_said(judge)}."
    )
    if _ordered_but_uncertain(human):
        text += (
            " The models' order is significant, but the human tau interval covers 0: the gains "
            "are too uncertain over questions and annotators to confirm it."
        )
    if n <= EXACT_UP_TO and 2 / math.factorial(n) >= 0.05:
        text += f" With {n} models no exact p-value below {2 / math.factorial(n):.3g} is possible."
    return text


def _said(part: dict[str, Any]) -> str:
    tau, p, ci = part["kendall_tau"], part["p_tau"], part.get("kendall_tau_ci")
    if tau is None or p is None:
        return "no rank correlation could be computed"
    direction = "positive" if tau > 0 else "negative" if tau < 0 else "no"
    strength = "significant" if p < 0.05 else "not significant"
    interval = "" if ci is None else f", 95% interval [{ci[0]:.2f}, {ci[1]:.2f}]"
    return (
        f"a {direction} rank correlation "
        f"(Kendall's tau {tau:.2f}{interval}, exact p = {p:.3g}, {strength})"
    )


def _excludes_0(part: dict[str, Any]) -> bool:
    ci = part.get("kendall_tau_ci")
    return ci is not None and (ci[0] > 0 or ci[1] < 0)


def _ordered_but_uncertain(part: dict[str, Any]) -> bool:
    p = part["p_tau"]
    return part["kendall_tau"] is not None and p is not None and p < 0.05 and not _excludes_0(part)


def _verdict(part: dict[str, Any]) -> str:
    tau, p = part["kendall_tau"], part["p_tau"]
    if tau is None or p is None:
        return "cannot test"
    if p < 0.05 and _excludes_0(part):
        return "confirm" if tau > 0 else "contradict"
    return "point the same way as, but do not confirm," if tau > 0 else "do not confirm"
