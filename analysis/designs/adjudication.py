"""The study before and after adjudication (issue 15.3): the report's `adjudication` key.

An export's rows with ``purpose`` 'adjudication' are the ratings of adjudicators, given blind on
disputed pairs; every other figure of the report leaves them out ("before"). After adjudication,
**the adjudicators decide each pair they rated**: its verdict is their majority verdict (one
adjudicator: their vote; adjudicators who split: tie) and its rubric-alignment difference is
their mean chosen - rejected difference. Pairs nobody adjudicated keep their annotators'
figures. Before and after, the headline figures are computed the same way as the report's
(human accuracy: the strict share of pairs whose rubric difference is above 0, with its Wilson
interval; rubric divergence: the one-sided paired t-test of chosen > rejected at the report's
margin and alpha); the pairs whose majority verdict changed are listed.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import cast

import numpy as np
import pandas as pd

from analysis.core.human_verdicts import annotator_votes, human_verdicts
from analysis.core.ratings import ADJUDICATION_PURPOSE, purpose_mask, validate_ratings
from analysis.inference.accuracy import wilson_interval
from analysis.inference.paired import compare_dimension
from analysis.schema.adjudication_types import AdjudicationSummary, ChangedPair, Stage
from analysis.schema.jsonable import to_jsonable
from analysis.schema.questions import report_questionnaire, target_key
from analysis.schema.report_types import Report
from analysis.schema.tables import DASH, Table, num, p_value, pct, pct_interval
from annotate.questionnaire import DEFAULT_QUESTIONNAIRE, Questionnaire
from annotate.vocabulary import SCALE_MAX, SCALE_MIN, VERDICTS

RULE = (
    "the adjudicators' majority verdict (a split: tie) and mean rubric difference replace "
    "those of the pairs they rated; other pairs keep their annotators' figures"
)


def has_adjudications(export: pd.DataFrame) -> bool:
    return bool(purpose_mask(export, ADJUDICATION_PURPOSE).any())


def _verdicts(ratings: pd.DataFrame, questionnaire: Questionnaire) -> pd.DataFrame:
    """Per pair: domain, n_annotators, verdict, mean_rubric_diff (from validated ratings)."""
    columns = ["domain", "n_annotators", "verdict", "mean_rubric_diff"]
    votes = annotator_votes(ratings, questionnaire)
    if votes.empty:
        return pd.DataFrame(columns=columns, index=pd.Index([], name="pair_id"))
    return human_verdicts(votes, questionnaire)[columns]


def _stage(table: pd.DataFrame, margin: float, alpha: float) -> Stage:
    diff = table["mean_rubric_diff"].to_numpy(float)
    zeros = np.zeros(len(diff))
    wins = int(np.sum(np.round(diff, 9) > 0))  # strict share of pairs whose mean favours chosen
    test = compare_dimension(diff, zeros, margin, alpha, rubric=True)
    counts = table["verdict"].value_counts()
    return {
        "n_pairs": len(table),
        "strict_accuracy": wins / len(diff) if len(diff) else None,
        "accuracy_ci95": wilson_interval(wins, len(diff)),
        "mean_rubric_diff": test["mean_diff"],
        "rubric_ci95": test["ci95"],
        "superiority_p": test["superiority_p"],
        "rubric_verdict": test["verdict"],
        "verdicts": {v: int(counts.get(v, 0)) for v in VERDICTS},
    }


def adjudication_summary(
    export: pd.DataFrame,
    *,
    margin: float,
    alpha: float = 0.05,
    excluded: Collection[str] = (),
    scale_min: int = SCALE_MIN,
    scale_max: int = SCALE_MAX,
    questionnaire: Questionnaire = DEFAULT_QUESTIONNAIRE,
) -> AdjudicationSummary | None:
    """Before and after adjudication (None when the export holds no adjudication). `margin`
    is the target question's margin in scale points; `excluded` pair ids are left out."""
    if not has_adjudications(export):
        return None
    before_rows = validate_ratings(export, scale_min, scale_max, questionnaire=questionnaire)
    adjudicated_rows = validate_ratings(
        export, scale_min, scale_max, ADJUDICATION_PURPOSE, questionnaire=questionnaire
    )
    left_out = {str(p) for p in excluded}
    before = _verdicts(before_rows[~before_rows["pair_id"].isin(left_out)], questionnaire)
    decided = _verdicts(
        adjudicated_rows[~adjudicated_rows["pair_id"].isin(left_out)], questionnaire
    )
    after = before.copy()
    for pair_id, row in decided.iterrows():
        after.loc[pair_id, ["domain", "verdict", "mean_rubric_diff"]] = [
            row["domain"],
            row["verdict"],
            row["mean_rubric_diff"],
        ]
    after = after.sort_index()
    changed: list[ChangedPair] = []
    for pair_id, row in decided.sort_index().iterrows():
        earlier = before["verdict"].get(pair_id, DASH)
        if earlier == row["verdict"]:
            continue
        diff_before = before["mean_rubric_diff"].get(pair_id)
        changed.append(
            {
                "pair_id": str(pair_id),
                "domain": str(row["domain"]),
                "before": str(earlier),
                "after": str(row["verdict"]),
                "rubric_diff_before": None if diff_before is None else float(diff_before),
                "rubric_diff_after": float(row["mean_rubric_diff"]),
                "n_annotators": int(before["n_annotators"].get(pair_id, 0)),
                "n_adjudicators": int(row["n_annotators"]),
            }
        )
    adjudicators = adjudicated_rows["annotator"][~adjudicated_rows["pair_id"].isin(left_out)]
    return {
        "rule": RULE,
        "n_adjudicated_pairs": len(decided),
        "n_adjudicators": int(adjudicators.nunique()),
        "before": _stage(before, margin, alpha),
        "after": _stage(after, margin, alpha),
        "changed": changed,
    }


def attach_adjudication(report: Report, export: pd.DataFrame) -> Report:
    """The report with its `adjudication` key, when the export holds adjudications (at the
    report's rubric margin, alpha, scale and exclusions)."""
    settings = report["settings"]
    questionnaire = report_questionnaire(report)
    margin = settings["margins_points"].get(target_key(questionnaire)) or settings["margin"]
    excluded = [e["pair_id"] for e in report["exclusions"]["excluded_pairs"]]
    summary = adjudication_summary(
        export,
        margin=margin,
        alpha=settings["alpha"],
        excluded=excluded,
        scale_min=settings["scale_min"],
        scale_max=settings["scale_max"],
        questionnaire=questionnaire,
    )
    if summary is None:
        return report
    return cast(Report, {**report, "adjudication": to_jsonable(summary)})


def signed(value: float | None) -> str:
    return num(value, 2, signed=True)


def adjudication_table(report: Report) -> Table:
    """Before and after adjudication, then the pairs whose verdict changed."""
    summary = report.get("adjudication")
    headers = ["Figure", "Before adjudication", "After adjudication"]
    if summary is None:
        return Table(headers, [], [False, True, True], "No pair was adjudicated.")
    before, after = summary["before"], summary["after"]

    def both(cell: Callable[[Stage], str]) -> list[str]:
        return [cell(before), cell(after)]

    rows = [
        ["Pairs", *both(lambda s: str(s["n_pairs"]))],
        ["Human accuracy, strict", *both(lambda s: pct(s["strict_accuracy"]))],
        ["  95% CI (Wilson)", *both(lambda s: pct_interval(s["accuracy_ci95"]))],
        ["Rubric alignment, chosen − rejected", *both(lambda s: signed(s["mean_rubric_diff"]))],
        ["  one-sided p (chosen > rejected)", *both(lambda s: p_value(s["superiority_p"]))],
        ["  verdict", *both(lambda s: s["rubric_verdict"])],
    ]
    for verdict in VERDICTS:
        counts = [str(before["verdicts"][verdict]), str(after["verdicts"][verdict])]
        rows.append([f"Pairs with majority {verdict}", *counts])
    for pair in summary["changed"]:
        rows.append(
            [f"Changed: {pair['pair_id']} ({pair['domain']})", pair["before"], pair["after"]]
        )
    note = (
        f"{summary['n_adjudicated_pairs']} pairs adjudicated by {summary['n_adjudicators']} "
        f"adjudicators, blind; {len(summary['changed'])} changed verdict. Rule: {summary['rule']}."
    )
    return Table(headers, rows, [False, True, True], note)
