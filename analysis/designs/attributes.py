"""Figures by annotator attribute (issue 14, item 4): the survey's answers, joined to the export
as ``survey_<id>`` columns, split the annotators into groups, and each group gets its rubric
accuracy (and, when the study asks for it, its forced-choice accuracy from the direct
preference).

A judgement is one annotator on one pair. Rubric accuracy here is per judgement: the share in
which the annotator scored chosen above rejected on rubric alignment (strict: equal scores are
not a win), with a Wilson interval. Attributes with more than ``MAX_GROUPS`` distinct answers
(free text, mostly) are left out: a group per answer would say nothing.
"""

from __future__ import annotations

from typing import cast

import numpy as np
import pandas as pd

from analysis.core.ratings import ordinary_rows
from analysis.designs.preference import PREFERENCE_COLUMN, forced_choice, judgements
from analysis.inference.accuracy import wilson_interval
from analysis.schema.jsonable import to_jsonable
from analysis.schema.preference_types import AttributeGroup, Share
from analysis.schema.questions import DEFAULT_TARGET, target_key_of
from analysis.schema.report_types import Report
from analysis.schema.tables import DASH, Table, pct, pct_interval
from annotate.vocabulary import SURVEY_COLUMN_PREFIX

MAX_GROUPS = 20


def attribute_columns(export: pd.DataFrame) -> list[str]:
    return [c for c in export.columns if str(c).startswith(SURVEY_COLUMN_PREFIX)]


def rubric_wins(export: pd.DataFrame, target: str = DEFAULT_TARGET) -> pd.Series:
    """Per judgement (pair, annotator): did the annotator score chosen above rejected on
    rubric alignment? (Judgements missing either score are left out.)"""
    personal = export[export["dimension"] == target]
    scores = personal.pivot_table(
        index=["pair_id", "annotator"], columns="response", values="score", aggfunc="first"
    ).dropna()
    return scores["chosen"] > scores["rejected"]


def _share(wins: np.ndarray) -> Share:
    n, won = len(wins), int(np.sum(wins))
    return {"value": won / n if n else None, "ci95": wilson_interval(won, n), "n": n}


def _group(rows: pd.DataFrame, target: str) -> AttributeGroup:
    group: AttributeGroup = {
        "n_annotators": int(rows["annotator"].nunique()),
        "rubric_accuracy": _share(rubric_wins(rows, target).to_numpy()),
        "forced_choice": None,
    }
    if PREFERENCE_COLUMN in rows and rows[PREFERENCE_COLUMN].notna().any():
        group["forced_choice"] = forced_choice(judgements(rows, target)["preference"].to_numpy())
    return group


def by_attribute(
    export: pd.DataFrame, target: str = DEFAULT_TARGET
) -> dict[str, dict[str, AttributeGroup]]:
    """attribute (the question id) -> answer -> the group's figures."""
    found: dict[str, dict[str, AttributeGroup]] = {}
    for column in attribute_columns(export):
        answers = export[column].dropna().astype(str)
        answers = answers[answers.str.strip() != ""]
        values = sorted(answers.unique())
        if not values or len(values) > MAX_GROUPS:
            continue
        name = str(column)[len(SURVEY_COLUMN_PREFIX) :]
        found[name] = {v: _group(export[export[column] == v], target) for v in values}
    return found


def attach_attributes(report: Report, export: pd.DataFrame) -> Report:
    """The report with its `by_attribute` key, when the export holds survey answers (of
    ordinary judgements: no skip rows, no adjudications)."""
    found = by_attribute(ordinary_rows(export), target_key_of(report))
    if not found:
        return report
    return cast(Report, {**report, "by_attribute": to_jsonable(found)})


def attribute_table(report: Report) -> Table | None:
    """The report's `by_attribute` figures as a table (None without a survey)."""
    found = report.get("by_attribute")
    if not found:
        return None
    rows = []
    for name, groups in found.items():
        for answer, group in groups.items():
            rubric, choice = group["rubric_accuracy"], group["forced_choice"]
            rows.append(
                [
                    name,
                    answer,
                    str(group["n_annotators"]),
                    f"{pct(rubric['value'])} {pct_interval(rubric['ci95'])} (n={rubric['n']})",
                    DASH if choice is None else pct(choice["strict"]["value"]),
                ]
            )
    headers = ["Question", "Answer", "Annotators", "Rubric accuracy", "Forced choice"]
    note = "Per judgement (one annotator on one pair); strict: ties are not wins; 95% Wilson CIs."
    return Table(headers, rows, [False, False, True, False, True], note)
