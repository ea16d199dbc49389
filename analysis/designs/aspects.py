"""The aspect checklist (issue 14, item 1): the manipulation check, aspect by aspect.

Input: the aspect table (`prb-annotate export --table aspects`: one row per annotator, pair,
response and rubric aspect, coverage 0 not covered / 1 partly / 2 well, the scale of the
benchmark's judge prompt), the ratings export (for the rubric-alignment scores) and, optionally,
imported LLM judges' scores (`judge`, `pair_id`, `response`, `aspect_index`, `coverage`).

- Chosen against rejected, over all aspects and at each place of the rubric ("Aspect k" is each
  pair's k-th aspect; the aspects' words differ from pair to pair): per pair, the annotators'
  mean coverage of chosen and of rejected; their paired difference with its t interval
  (`analysis.inference.paired.t_interval`) and the two-sided Wilcoxon signed-rank test
  (`analysis.inference.paired.wilcoxon_test`, R's rule); the share of (pair, aspect) units where the
  chosen response covers the aspect more (annotators averaged), and of ties. The chosen response
  should cover the aspects and the rejected one avoid them.
- Which aspects drive the divergence: the places ranked by their difference, each with the
  Spearman correlation of its per-pair difference with the per-pair rubric-alignment score
  difference; and the (pair, aspect) units where chosen does not cover more, worst first.
- Agreement: Krippendorff's ordinal alpha (`analysis.core.alpha`) over (pair, response, aspect).
- Human against judge: the annotators' median per (pair, response, aspect), a half rounded
  toward 1 ("partly"), against the judge's score; exact agreement and quadratic-weighted Cohen's
  kappa (`statsmodels.stats.inter_rater.cohens_kappa(table, wt="quadratic")`).
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import cast

import numpy as np
import pandas as pd

from analysis.core.alpha import alpha_from_long
from analysis.core.ratings import (
    PURPOSE_COLUMN,
    RatingsError,
    check_allowed,
    checked_integers,
    purpose_mask,
    read_raw,
)
from analysis.inference.paired import t_interval, wilcoxon_test
from analysis.models.reward_models import spearman
from analysis.schema.aspect_types import (
    AspectComparison,
    AspectSummary,
    JudgeAgreement,
    WeakAspect,
)
from analysis.schema.jsonable import to_jsonable
from analysis.schema.questions import DEFAULT_TARGET, target_key_of
from analysis.schema.report_types import Report
from annotate.vocabulary import (
    ASPECT_EXPORT_COLUMNS,
    COVERAGE_POINTS,
    RESPONSES,
)

UNIT = ["pair_id", "aspect_index"]
WEAKEST_SHOWN = 10
MAX_ASPECTS = 1000


def load_aspects(path: Path) -> pd.DataFrame:
    """Read and check an aspect table (`prb-annotate export --table aspects`, or the published
    aspects.parquet): csv, jsonl or parquet; RatingsError at the first bad value, located."""
    if not path.is_file():
        raise RatingsError(f"{path}: no such file")
    raw, locate = read_raw(path)
    # `purpose` may be missing (a table from before adjudication): every mark is a rating's.
    columns = [c for c in ASPECT_EXPORT_COLUMNS if c != PURPOSE_COLUMN or c in raw.columns]
    missing = [c for c in columns if c not in raw.columns]
    if missing:
        raise RatingsError(f"{path.name}: missing column(s) {', '.join(missing)}")
    table = raw[columns].copy()
    check_allowed(table, "response", RESPONSES, locate)
    low, high = COVERAGE_POINTS[0], COVERAGE_POINTS[-1]
    table["coverage"] = checked_integers(raw["coverage"], low, high, locate, "coverage")
    index = checked_integers(raw["aspect_index"], 0, MAX_ASPECTS, locate, "aspect_index")
    table["aspect_index"] = index
    for column in ("pair_id", "annotator", "aspect"):
        table[column] = table[column].fillna("").astype(str)
    return table


def unit_means(marks: pd.DataFrame) -> pd.DataFrame:
    """One row per (pair, aspect): the annotators' mean coverage of `chosen` and `rejected`
    (pairs where both were marked), the `aspect` words and `n_annotators`."""
    means = marks.pivot_table(index=UNIT, columns="response", values="coverage", aggfunc="mean")
    means = means.reindex(columns=["chosen", "rejected"]).dropna()
    words = marks.groupby(UNIT)["aspect"].first()
    coders = marks.groupby(UNIT)["annotator"].nunique()
    table = means.join(words).join(coders.rename("n_annotators"))
    return table.reset_index()


def rubric_differences(ratings: pd.DataFrame, target: str = DEFAULT_TARGET) -> pd.Series:
    """Per pair: the annotators' mean rubric-alignment score of chosen minus rejected."""
    personal = ratings[ratings["dimension"] == target]
    means = personal.pivot_table(index="pair_id", columns="response", values="score")
    means = means.reindex(columns=["chosen", "rejected"])
    return (means["chosen"] - means["rejected"]).dropna()


def compare(
    label: str, units: pd.DataFrame, marks: pd.DataFrame, rubric: pd.Series
) -> AspectComparison:
    """Chosen against rejected over these (pair, aspect) units (see the module's docstring)."""
    pairs = units.groupby("pair_id")[["chosen", "rejected"]].mean()
    chosen, rejected = pairs["chosen"].to_numpy(float), pairs["rejected"].to_numpy(float)
    diff = chosen - rejected
    n = len(pairs)
    unit_diff = (units["chosen"] - units["rejected"]).to_numpy(float)
    aligned = rubric.reindex(pairs.index).to_numpy(float)
    return {
        "label": label,
        "n_pairs": n,
        "mean_chosen": float(chosen.mean()) if n else None,
        "mean_rejected": float(rejected.mean()) if n else None,
        "mean_diff": float(diff.mean()) if n else None,
        "ci95": t_interval(diff),
        "wilcoxon_p": wilcoxon_test(chosen, rejected).pvalue,
        "share_chosen_higher": float(np.mean(unit_diff > 0)) if len(units) else None,
        "share_tied": float(np.mean(unit_diff == 0)) if len(units) else None,
        "n_units": len(units),
        "with_rubric": spearman(diff, aligned),
        "alpha_ordinal": alpha_from_long(
            marks, ["pair_id", "response", "aspect_index"], "coverage", "ordinal", COVERAGE_POINTS
        ),
    }


def weakest(units: pd.DataFrame) -> list[WeakAspect]:
    """The (pair, aspect) units where chosen does not cover the aspect more, worst first."""
    weak = units[units["chosen"] <= units["rejected"]].copy()
    weak["gap"] = weak["chosen"] - weak["rejected"]
    weak = weak.sort_values(["gap", "pair_id", "aspect_index"], kind="stable")
    return [
        {
            "pair_id": str(row.pair_id),
            "aspect_index": int(row.aspect_index),
            "aspect": str(row.aspect),
            "mean_chosen": float(row.chosen),
            "mean_rejected": float(row.rejected),
            "n_annotators": int(row.n_annotators),
        }
        for row in weak.itertuples()
    ]


def consensus(medians: pd.Series) -> pd.Series:
    """The annotators' median coverage per unit as 0/1/2: a half (two annotators apart) is
    rounded toward 1 ("partly")."""
    return medians.where(~medians.isin([0.5, 1.5]), 1.0).astype("int64")


def quadratic_kappa(first: np.ndarray, second: np.ndarray) -> float | None:
    """Quadratic-weighted Cohen's kappa of two raters on the 0/1/2 scale (None if undefined)."""
    from statsmodels.stats.inter_rater import cohens_kappa

    if len(first) == 0:
        return None
    points = list(COVERAGE_POINTS)
    table = pd.crosstab(pd.Categorical(first, points), pd.Categorical(second, points),
                        dropna=False).to_numpy(float)  # fmt: skip
    rows, cols = table.sum(axis=1), table.sum(axis=0)
    weights = np.subtract.outer(points, points) ** 2
    if float(np.sum(weights * np.outer(rows, cols))) == 0:  # no expected disagreement
        return None
    return float(cohens_kappa(table, wt="quadratic", return_results=False))


def judge_agreement(marks: pd.DataFrame, judge: pd.DataFrame) -> list[JudgeAgreement]:
    """One judge against the human consensus: all aspects, then at each place of the rubric."""
    keys = ["pair_id", "response", "aspect_index"]
    human = consensus(marks.groupby(keys)["coverage"].median()).rename("human")
    joined = judge.set_index(keys)[["coverage"]].join(human, how="inner").reset_index()

    def row(label: str, part: pd.DataFrame) -> JudgeAgreement:
        first, second = part["human"].to_numpy(int), part["coverage"].to_numpy(int)
        return {
            "label": label,
            "n": len(part),
            "exact_agreement": float(np.mean(first == second)) if len(part) else None,
            "kappa_quadratic": quadratic_kappa(first, second),
        }

    places = sorted(joined["aspect_index"].unique())
    return [row("All aspects", joined)] + [
        row(f"Aspect {k + 1}", joined[joined["aspect_index"] == k]) for k in places
    ]


def aspect_summary(
    marks: pd.DataFrame,
    ratings: pd.DataFrame,
    judges: pd.DataFrame | None = None,
    excluded: Collection[str] = (),
    target: str = DEFAULT_TARGET,
) -> AspectSummary | None:
    """Every figure of the aspect checklist (None when the table holds no marks)."""
    marks = marks[~marks["pair_id"].isin(list(excluded))]
    if marks.empty:
        return None
    units = unit_means(marks)
    rubric = rubric_differences(ratings, target)
    by_aspect = [
        compare(f"Aspect {k + 1}", units[units["aspect_index"] == k],
                marks[marks["aspect_index"] == k], rubric)
        for k in sorted(units["aspect_index"].unique())
    ]  # fmt: skip
    by_aspect.sort(key=lambda c: -(c["mean_diff"] if c["mean_diff"] is not None else -np.inf))
    weak = weakest(units)
    by_judge: dict[str, list[JudgeAgreement]] = {}
    if judges is not None and not judges.empty:
        kept = judges[~judges["pair_id"].isin(list(excluded))]
        for name, scores in kept.groupby("judge", sort=True):
            by_judge[str(name)] = judge_agreement(marks, scores)
    return {
        "overall": compare("All aspects", units, marks, rubric),
        "by_aspect": by_aspect,
        "weakest": weak[:WEAKEST_SHOWN],
        "n_weak": len(weak),
        "judges": by_judge,
        "n_marks": len(marks),
        "n_pairs": int(marks["pair_id"].nunique()),
        "n_annotators": int(marks["annotator"].nunique()),
    }


def attach_aspects(
    report: Report,
    marks: pd.DataFrame | None,
    ratings: pd.DataFrame,
    judges: pd.DataFrame | None = None,
    excluded: Collection[str] = (),
) -> Report:
    """The report with its `aspects` key, when the study's aspect table holds marks."""
    if marks is None:
        return report
    marks = marks[purpose_mask(marks)]  # an adjudicator's marks are not among the figures
    summary = aspect_summary(marks, ratings, judges, excluded, target_key_of(report))
    if summary is None:
        return report
    return cast(Report, {**report, "aspects": to_jsonable(summary)})
