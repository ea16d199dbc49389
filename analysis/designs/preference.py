"""The direct preference (issue 14, item 2): forced-choice human accuracy, its agreement with
the preference the scores imply, and the annotators' agreement on it.

Input: the ratings export of a study that asks for the preference. Its ``preference`` column is
already in terms of the responses (+2 chosen much better .. 0 tie .. -2 rejected much better;
the server mapped the annotator's side answer), repeated on the annotator's eight rows of a
pair. One (pair, annotator) is one judgement.

- Forced-choice accuracy: the share of judgements preferring chosen. Strict: a tie is not a
  win; with ties: a tie counts as half a win (as `analysis.inference.accuracy` does for the
  scores). Both with Wilson intervals (R ``prop.test(x, n, correct=FALSE)``).
- Agreement with the scores: the same annotator's rubric-alignment scores imply a preference
  (chosen higher, equal, or rejected higher); the share of judgements whose direct preference
  points the same way, and Cohen's kappa over those three categories.
- Alpha: Krippendorff's ordinal alpha of the preference over pairs (annotators as coders).
"""

from __future__ import annotations

from typing import cast

import numpy as np
import pandas as pd

from analysis.core.alpha import alpha_from_long
from analysis.core.coded import FloatArray, IntArray
from analysis.core.ratings import ordinary_rows
from analysis.inference.accuracy import TIES_COUNT_AS, wilson_interval
from analysis.models.reward_models import cohen_kappa
from analysis.schema.jsonable import to_jsonable
from analysis.schema.preference_types import ForcedChoice, PreferenceSummary, ScoreAgreement, Share
from analysis.schema.questions import DEFAULT_TARGET, target_key_of
from analysis.schema.report_types import Report
from analysis.schema.tables import DASH, Table, num, pct, pct_interval
from annotate.vocabulary import PREFERENCE_POINTS

PREFERENCE_COLUMN = "preference"
DIRECTIONS = ("chosen", "tie", "rejected")


def judgements(export: pd.DataFrame, target: str = DEFAULT_TARGET) -> pd.DataFrame:
    """One row per (pair, annotator) with a preference: ``preference`` and ``score_diff`` (the
    annotator's rubric-alignment score of chosen minus rejected; NaN if not both given)."""
    keys = ["pair_id", "annotator"]
    given = export[export[PREFERENCE_COLUMN].notna()]
    preference = given.groupby(keys)[PREFERENCE_COLUMN].first().astype("int64")
    personal = given[given["dimension"] == target]
    scores = personal.pivot_table(index=keys, columns="response", values="score", aggfunc="first")
    diff = scores.get("chosen", np.nan) - scores.get("rejected", np.nan)
    table = pd.DataFrame({"preference": preference})
    table["score_diff"] = pd.Series(diff, dtype="float64").reindex(table.index)
    return table.reset_index()


def _share(successes: float, n: int) -> Share:
    return {"value": successes / n if n else None, "ci95": wilson_interval(successes, n), "n": n}


def forced_choice(preference: IntArray) -> ForcedChoice:
    """Human accuracy from the direct preference, strict and with ties as half a win."""
    values = np.asarray(preference)
    n = len(values)
    wins, ties = int(np.sum(values > 0)), int(np.sum(values == 0))
    return {
        "strict": _share(wins, n),
        "with_ties": _share(wins + TIES_COUNT_AS * ties, n),
        "n_judgements": n,
        "n_chosen": wins,
        "n_ties": ties,
        "n_rejected": n - wins - ties,
    }


def _direction(values: FloatArray) -> np.ndarray:
    return np.select([values > 0, values < 0], ["chosen", "rejected"], default="tie")


def score_agreement(preference: IntArray, score_diff: FloatArray) -> ScoreAgreement:
    """How often the direct preference points the way the same annotator's scores do."""
    keep = ~np.isnan(np.asarray(score_diff, float))
    direct = _direction(np.asarray(preference, float)[keep])
    implied = _direction(np.asarray(score_diff, float)[keep])
    n = int(keep.sum())
    table = {
        d: {i: int(np.sum((direct == d) & (implied == i))) for i in DIRECTIONS} for d in DIRECTIONS
    }
    return {
        "agreement": float(np.mean(direct == implied)) if n else None,
        "kappa": cohen_kappa(direct, implied, DIRECTIONS),
        "n_judgements": n,
        "table": table,
    }


def preference_summary(
    export: pd.DataFrame, target: str = DEFAULT_TARGET
) -> PreferenceSummary | None:
    """The three figures for a study's export (None when it holds no preference)."""
    if PREFERENCE_COLUMN not in export or export[PREFERENCE_COLUMN].notna().sum() == 0:
        return None
    table = judgements(export, target)
    preference = table["preference"].to_numpy()
    return {
        "forced_choice": forced_choice(preference),
        "with_scores": score_agreement(preference, table["score_diff"].to_numpy()),
        "alpha_ordinal": alpha_from_long(
            table, ["pair_id"], "preference", "ordinal", PREFERENCE_POINTS
        ),
        "n_pairs": int(table["pair_id"].nunique()),
        "n_annotators": int(table["annotator"].nunique()),
    }


def attach_preference(report: Report, export: pd.DataFrame) -> Report:
    """The report with its `preference` key, when the export holds the direct preference (the
    report is built from the validated export, which keeps only the fixed columns); of
    ordinary judgements only (no skip rows, no adjudications)."""
    summary = preference_summary(ordinary_rows(export), target_key_of(report))
    if summary is None:
        return report
    return cast(Report, {**report, "preference": to_jsonable(summary)})


def preference_table(report: Report) -> Table | None:
    """The report's `preference` figures as a table (None when the study does not ask)."""
    summary = report.get("preference")
    if summary is None:
        return None
    choice, scores = summary["forced_choice"], summary["with_scores"]
    rows = [
        [
            "Forced-choice accuracy, strict (ties are not wins)",
            pct(choice["strict"]["value"]),
            pct_interval(choice["strict"]["ci95"]),
            str(choice["n_judgements"]),
        ],
        [
            "Forced-choice accuracy, ties as half a win",
            pct(choice["with_ties"]["value"]),
            pct_interval(choice["with_ties"]["ci95"]),
            str(choice["n_judgements"]),
        ],
        ["Agreement with the score-implied preference", pct(scores["agreement"]), DASH,
         str(scores["n_judgements"])],
        ["Cohen's kappa with the score-implied preference", num(scores["kappa"], 3), DASH,
         str(scores["n_judgements"])],
        ["Krippendorff's alpha (ordinal) over pairs", num(summary["alpha_ordinal"], 3), DASH,
         str(summary["n_pairs"])],
    ]  # fmt: skip
    note = (
        f"{choice['n_chosen']} judgements prefer chosen, {choice['n_ties']} are ties, "
        f"{choice['n_rejected']} prefer rejected; a judgement is one annotator on one pair."
    )
    return Table(["Figure", "Value", "95% CI", "n"], rows, [False, True, False, True], note)
