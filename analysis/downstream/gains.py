"""The human preference for the expected condition of a comparison study, and its gain.

Input: the comparison study's ratings export (`chosen` is the expected condition's output,
`rejected` the baseline's; `annotate.domain.downstream.comparison`), and its identical
questions (not rated: both conditions gave the same output).

The gain is the mean rubric-alignment difference, expected minus baseline, over the questions,
on the scale's points. Each (question, annotator) gives one difference; the estimate and its
interval come from `_human_preference_interval`: the crossed model over pairs and annotators of
the main verdict (`analysis.inference.crossed.crossed_mean`). Identical questions
count as zero gain: with n_rated rated questions and n_identical identical ones, the gain is
n_rated / (n_rated + n_identical) times the rated questions' estimate, and so are its standard
error and interval (the identical questions are fixed zeros, they add no variance).
"""

from __future__ import annotations

from typing import Any, TypedDict

import numpy as np
import pandas as pd
from scipy import stats

from analysis.inference.crossed import (
    crossed_mean,
)
from analysis.schema.questions import DEFAULT_TARGET

T_METHOD = "t over questions"


class Estimate(TypedDict):
    estimate: float | None
    se: float | None
    df: float | None
    ci: list[float] | None
    method: str


def _human_preference_interval(
    values: np.ndarray[Any, Any],
    pairs: np.ndarray[Any, Any],
    annotators: np.ndarray[Any, Any],
    level: float = 0.95,
) -> Estimate:
    """The mean of `values` (one per question and annotator) with its interval, from the crossed
    model over pairs and annotators, as the main verdict (`analysis.inference.crossed.crossed_mean`:
    REML, Satterthwaite df, its fallbacks named in `method`)."""
    found = crossed_mean(values, list(pairs), list(annotators), level)
    return {
        "estimate": found.estimate,
        "se": found.se,
        "df": found.df,
        "ci": found.ci,
        "method": found.method,
    }


def _per_question(
    values: np.ndarray[Any, Any], pairs: np.ndarray[Any, Any], level: float = 0.95
) -> Estimate:
    """The mean of per-question means with a t interval over the questions."""
    frame = pd.DataFrame({"value": values, "pair": pairs})
    means = frame.groupby("pair")["value"].mean().to_numpy(float)
    n = len(means)
    if n == 0:
        return {"estimate": None, "se": None, "df": None, "ci": None, "method": T_METHOD}
    mean = float(means.mean())
    if n < 2:
        return {"estimate": mean, "se": None, "df": None, "ci": None, "method": T_METHOD}
    se = float(means.std(ddof=1) / np.sqrt(n))
    half = float(stats.t.ppf(0.5 + level / 2, n - 1)) * se
    return {
        "estimate": mean,
        "se": se,
        "df": float(n - 1),
        "ci": [mean - half, mean + half],
        "method": T_METHOD,
    }


def rubric_differences(ratings: pd.DataFrame, target: str = DEFAULT_TARGET) -> pd.DataFrame:
    """One row per (pair, annotator): `diff`, the target question's score of chosen (the
    expected condition) minus rejected (the baseline)."""
    personal = ratings[ratings["dimension"] == target]
    wide = personal.pivot_table(
        index=["pair_id", "annotator"], columns="response", values="score", aggfunc="mean"
    ).reindex(columns=["chosen", "rejected"])
    wide = wide.dropna()
    return (wide["chosen"] - wide["rejected"]).rename("diff").reset_index()


def scaled(estimate: Estimate, factor: float) -> Estimate:
    """The estimate with identical questions counted as zero gain (`factor` = share rated)."""

    def times(x: float | None) -> float | None:
        return None if x is None else x * factor

    ci = estimate["ci"]
    return {
        "estimate": times(estimate["estimate"]),
        "se": times(estimate["se"]),
        "df": estimate["df"],
        "ci": None if ci is None else [ci[0] * factor, ci[1] * factor],
        "method": estimate["method"],
    }


def human_gain(ratings: pd.DataFrame, n_identical: int, level: float = 0.95) -> dict[str, Any]:
    """The comparison's human gain (see the module's docstring) and its parts."""
    diffs = rubric_differences(ratings)
    n_rated = int(diffs["pair_id"].nunique())
    n_total = n_rated + n_identical
    raw = _human_preference_interval(
        diffs["diff"].to_numpy(float),
        diffs["pair_id"].to_numpy(),
        diffs["annotator"].to_numpy(),
        level,
    )
    factor = n_rated / n_total if n_total else 0.0
    return {
        "n_questions": n_total,
        "n_rated": n_rated,
        "n_identical": n_identical,
        "share_identical": n_identical / n_total if n_total else None,
        "n_annotators": int(diffs["annotator"].nunique()),
        "share_expected_higher": float(np.mean(diffs["diff"] > 0)) if len(diffs) else None,
        "gain_rated": raw,
        "gain": scaled(raw, factor),
    }


def judge_gain(
    outputs: pd.DataFrame, expected: str, baseline: str, level: float = 0.95
) -> dict[str, Any]:
    """The judge's gain on its 0-2 mean: per question with a usable answer for both
    conditions, `judge_average` of the expected condition minus the baseline's; a t interval
    over the questions."""
    usable = outputs[outputs["judge_status"] == "ok"]
    first = usable[usable["condition"] == expected].set_index("pair_id")["judge_average"]
    second = usable[usable["condition"] == baseline].set_index("pair_id")["judge_average"]
    diff = (first - second).dropna().to_numpy(float)
    pairs = np.arange(len(diff))
    estimate = _per_question(diff, pairs, level)
    return {"n_questions": len(diff), "gain": estimate}
