"""The downstream section's figures from the exports: each comparison's human and judge gains,
the judge against the humans, the scaling curve and the correlation claim (`downstream_summary`).

Inputs:
- `outputs`: the downstream outputs table (`prb-annotate downstream export`: condition, kind,
  model, variant, k, pair_id, n_aspects, rm_score, judge_scores, judge_average, judge_status);
- `comparisons`: each comparison study's record (study, expected, baseline, identical,
  n_questions);
- `ratings`, `marks`: the comparison studies' ratings export and aspect table;
- `accuracy`: each reward model's accuracy on the benchmark (from `models import`).

An adjudicator's ratings and marks are left out, and so are the pairs an admin excluded.
A reward model's gain for the correlation claim comes from its comparison of best-of-k against
its own best-of-1 with the largest k.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from analysis.core.ratings import purpose_mask
from analysis.downstream.claim import GainData, correlation_claim
from analysis.downstream.gains import human_gain, judge_gain, rubric_differences
from analysis.downstream.judge_human import (
    agreement,
    average_correlation,
    judge_long,
    marks_by_condition,
    scaling_curve,
)

EXCLUDED = "pair_excluded"


def _parts(condition: str) -> tuple[str, str, str]:
    kind, model, variant = [*condition.split(":"), "", "", ""][:3]
    return kind, model, variant


def _k(variant: str) -> int | None:
    return int(variant[1:]) if variant.startswith("k") and variant[1:].isdigit() else None


def _bon_model(comparison: dict[str, Any]) -> tuple[str, int] | None:
    """(reward model, k) when the comparison is best-of-k against the same model's best-of-1."""
    kind, model, variant = _parts(comparison["expected"])
    base_kind, base_model, base_variant = _parts(comparison["baseline"])
    k = _k(variant)
    if kind == base_kind == "bon" and model == base_model and base_variant == "k1" and k:
        return model, k
    return None


def downstream_summary(
    outputs: pd.DataFrame,
    comparisons: list[dict[str, Any]],
    ratings: pd.DataFrame,
    marks: pd.DataFrame,
    accuracy: dict[str, float],
    *,
    n_boot: int = 1000,
    seed: int = 0,
) -> dict[str, Any] | None:
    """Every figure of the downstream section (None without outputs or comparisons)."""
    if outputs.empty and not comparisons:
        return None
    ratings, marks = ordinary(ratings, marks)
    rows = []
    chosen: dict[str, tuple[int, dict[str, Any], dict[str, Any], dict[str, Any]]] = {}
    for comparison in comparisons:
        own = ratings[ratings["study"] == comparison["study"]]
        n_identical = len(comparison.get("identical", []))
        human = human_gain(own, n_identical)
        judge = judge_gain(outputs, comparison["expected"], comparison["baseline"])
        rows.append({**_meta(comparison), "human": human, "judge": judge})
        found = _bon_model(comparison)
        if found is not None and found[1] > chosen.get(found[0], (0,))[0]:
            chosen[found[0]] = (found[1], comparison, human, judge)
    labelled = marks_by_condition(marks, comparisons)
    compared = {c[k] for c in comparisons for k in ("expected", "baseline")}
    judge = judge_long(outputs[outputs["condition"].isin(list(compared))])  # the rated ones
    correlation, drill = average_correlation(labelled, outputs)
    claim = _claim(chosen, ratings, outputs, accuracy, n_boot, seed)
    return {
        "comparisons": rows,
        "judge_agreement": agreement(labelled, judge),
        "judge_average_vs_humans": correlation,
        "largest_gaps": drill,
        "scaling": scaling_curve(labelled, outputs),
        "claim": claim,
        "judge_unusable": _unusable(outputs),
    }


def ordinary(ratings: pd.DataFrame, marks: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The ordinary ratings and marks: an adjudicator's (`purpose`) are left out, and so are
    the pairs an admin excluded from the analysis (`pair_excluded`), as from every figure."""
    ratings, marks = ratings[purpose_mask(ratings)], marks[purpose_mask(marks)]
    if EXCLUDED in ratings.columns:
        flagged = ratings[ratings[EXCLUDED].fillna(False).astype(bool)]
        left_out = set(zip(flagged["study"], flagged["pair_id"], strict=True))
        if left_out:
            keys = list(zip(ratings["study"], ratings["pair_id"], strict=True))
            ratings = ratings[np.array([k not in left_out for k in keys], dtype=bool)]
            mark_keys = list(zip(marks["study"], marks["pair_id"], strict=True))
            marks = marks[np.array([k not in left_out for k in mark_keys], dtype=bool)]
    return ratings, marks


def _meta(comparison: dict[str, Any]) -> dict[str, Any]:
    return {key: comparison.get(key) for key in ("study", "expected", "baseline")}


def _unusable(outputs: pd.DataFrame) -> dict[str, int]:
    statuses = outputs["judge_status"].dropna()
    return {str(k): int(v) for k, v in statuses[statuses != "ok"].value_counts().items()}


def _claim(
    chosen: dict[str, tuple[int, dict[str, Any], dict[str, Any], dict[str, Any]]],
    ratings: pd.DataFrame,
    outputs: pd.DataFrame,
    accuracy: dict[str, float],
    n_boot: int,
    seed: int,
) -> dict[str, Any] | None:
    human_gains, judge_gains, data, judge_diffs = {}, {}, {}, {}
    studies = [c[1]["study"] for c in chosen.values()]
    people = sorted(ratings[ratings["study"].isin(studies)]["annotator"].unique())
    for model, (_, comparison, human, judge) in chosen.items():
        estimate, judged = human["gain"]["estimate"], judge["gain"]["estimate"]
        if estimate is None or judged is None:
            continue
        human_gains[model], judge_gains[model] = estimate, judged
        own = ratings[ratings["study"] == comparison["study"]]
        data[model] = GainData(rubric_differences(own), people, human["n_identical"])
        judge_diffs[model] = _judge_diffs(outputs, comparison)
    return correlation_claim(
        accuracy, data, human_gains, judge_gains, judge_diffs, people, n_boot, seed
    )


def _judge_diffs(outputs: pd.DataFrame, comparison: dict[str, Any]) -> np.ndarray[Any, Any]:
    usable = outputs[outputs["judge_status"] == "ok"]
    by = {
        name: usable[usable["condition"] == name].set_index("pair_id")["judge_average"]
        for name in (comparison["expected"], comparison["baseline"])
    }
    diff = by[comparison["expected"]] - by[comparison["baseline"]]
    values: np.ndarray[Any, Any] = diff.dropna().to_numpy(float)
    return values
