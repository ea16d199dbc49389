"""The benchmark's LLM judge against the humans, per response and rubric aspect, and the
scaling curve.

Inputs: the comparison studies' aspect tables (the humans' 0/1/2 coverage per annotator, pair,
response and aspect; `chosen` is the expected condition's output) and the downstream outputs
table (the judge's scores per condition, question and aspect, as its eval files give them; only
usable answers, `judge_status` 'ok').

- Agreement on the 0/1/2 scale: the annotators' consensus per (response, aspect) (their median,
  a half rounded toward 1, `analysis.designs.aspects.consensus`) against the judge: exact
  agreement and quadratic-weighted Cohen's kappa (`analysis.designs.aspects.quadratic_kappa`);
  Krippendorff's ordinal alpha over (response, aspect) units with the judge as one more coder.
- The judge's average against the humans' mean coverage per response (annotators and aspects
  averaged): Spearman's rho; the responses where they differ most first (the drill-down).
- The scaling curve: per condition, the humans' mean coverage over the questions (each
  question's annotators and aspects averaged) and the judge's mean of its averages over the
  questions it answered properly, each with a t interval over the questions.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from analysis.core.alpha import alpha_from_long
from analysis.designs.aspects import consensus, quadratic_kappa
from analysis.inference.paired import t_interval
from analysis.models.reward_models import spearman
from annotate.vocabulary import COVERAGE_POINTS

UNIT = ["condition", "pair_id", "aspect_index"]
DRILLDOWN_SHOWN = 20
POINTS_KEPT = 2000  # responses kept for the judge-human chart


def marks_by_condition(marks: pd.DataFrame, comparisons: list[dict[str, Any]]) -> pd.DataFrame:
    """The comparison studies' aspect marks with the `condition` each response stands for."""
    parts = []
    for comparison in comparisons:
        own = marks[marks["study"] == comparison["study"]].copy()
        names = {"chosen": comparison["expected"], "rejected": comparison["baseline"]}
        own["condition"] = own["response"].map(names)
        parts.append(own)
    columns = [*marks.columns, "condition"]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=columns)


def judge_long(outputs: pd.DataFrame) -> pd.DataFrame:
    """The judge's usable scores, one row per (condition, question, aspect)."""
    usable = outputs[outputs["judge_status"] == "ok"]
    rows = [
        (condition, pair_id, index, int(value))
        for condition, pair_id, scores in zip(
            usable["condition"], usable["pair_id"], usable["judge_scores"], strict=True
        )
        for index, value in enumerate(scores)
    ]
    return pd.DataFrame(rows, columns=[*UNIT, "coverage"])


def agreement(labelled: pd.DataFrame, judge: pd.DataFrame) -> dict[str, Any]:
    """Judge against the humans' consensus, on the (condition, question, aspect) units both
    scored (see the module's docstring)."""
    human = consensus(labelled.groupby(UNIT)["coverage"].median()).rename("human")
    joined = judge.set_index(UNIT)[["coverage"]].join(human, how="inner").reset_index()
    first, second = joined["human"].to_numpy(int), joined["coverage"].to_numpy(int)
    units = joined[UNIT]
    coders = pd.concat(
        [
            labelled.merge(units, on=UNIT)[[*UNIT, "coverage"]],
            joined[[*UNIT, "coverage"]],
        ],
        ignore_index=True,
    )
    alpha = (
        alpha_from_long(coders, UNIT, "coverage", "ordinal", COVERAGE_POINTS)
        if len(units)
        else None
    )
    return {
        "n_units": len(joined),
        "exact_agreement": float(np.mean(first == second)) if len(joined) else None,
        "kappa_quadratic": quadratic_kappa(first, second),
        "alpha_ordinal_with_judge": alpha,
    }


def average_correlation(
    labelled: pd.DataFrame, outputs: pd.DataFrame
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Spearman's rho of the judge's average with the humans' mean coverage per response (and
    the first POINTS_KEPT responses' two values, `points`, for the chart), and the responses
    where they differ most, first."""
    human = labelled.groupby(["condition", "pair_id"])["coverage"].mean().rename("human_mean")
    usable = outputs[outputs["judge_status"] == "ok"].set_index(["condition", "pair_id"])
    joined = usable[["judge_average"]].join(human, how="inner").reset_index()
    joined["gap"] = joined["judge_average"] - joined["human_mean"]
    joined = joined.reindex(joined["gap"].abs().sort_values(ascending=False, kind="stable").index)
    correlation = spearman(
        joined["judge_average"].to_numpy(float), joined["human_mean"].to_numpy(float)
    )
    drill = [
        {
            "condition": str(r.condition),
            "pair_id": str(r.pair_id),
            "judge_average": float(r.judge_average),
            "human_mean": float(r.human_mean),
            "gap": float(r.gap),
        }
        for r in joined.head(DRILLDOWN_SHOWN).itertuples()
    ]
    points = [
        [float(h), float(j)]
        for h, j in zip(joined["human_mean"], joined["judge_average"], strict=True)
    ][:POINTS_KEPT]
    return {**correlation, "points": points}, drill


def scaling_curve(labelled: pd.DataFrame, outputs: pd.DataFrame) -> list[dict[str, Any]]:
    """One point per best-of-n condition: its reward model, k, the humans' mean coverage and
    the judge's mean, each with its interval and number of questions."""
    points = []
    bon = outputs[outputs["kind"] == "bon"]
    for (condition, model, k), own in bon.groupby(["condition", "model", "k"], sort=True):
        human = labelled[labelled["condition"] == condition].groupby("pair_id")["coverage"].mean()
        judged = own[own["judge_status"] == "ok"]["judge_average"].to_numpy(float)
        values = human.to_numpy(float)
        points.append(
            {
                "condition": str(condition),
                "model": str(model),
                "k": int(k),
                "human_mean": float(values.mean()) if len(values) else None,
                "human_ci": t_interval(values),
                "n_human": len(values),
                "judge_mean": float(judged.mean()) if len(judged) else None,
                "judge_ci": t_interval(judged),
                "n_judge": len(judged),
                "n_unusable": int(
                    np.sum(own["judge_status"].notna() & (own["judge_status"] != "ok"))
                ),
            }
        )
    return sorted(points, key=lambda p: (p["model"], p["k"]))
