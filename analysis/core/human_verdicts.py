"""The humans' side of the comparison with reward models: each annotator's vote on a pair, the
majority verdict per pair, the annotators' position bias, and the label audit (the pairs whose
majority prefers the rejected response or sees no difference).

An annotator's **vote**: chosen, rejected or tie, by the sign of their rubric-alignment score of
chosen minus rejected; the **human verdict**: the vote most annotators cast, and ``tie`` when no
vote has more annotators than every other.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.core.coded import scale_keys
from analysis.core.ratings import ordinary_rows
from analysis.schema.model_types import AuditRow
from analysis.schema.questions import target_key
from annotate.questionnaire import DEFAULT_QUESTIONNAIRE, Questionnaire
from annotate.vocabulary import VERDICTS, Verdict


def annotator_votes(
    ratings: pd.DataFrame, questionnaire: Questionnaire = DEFAULT_QUESTIONNAIRE
) -> pd.DataFrame:
    """One row per (pair_id, annotator) with both scores of the target question: the domain,
    the side chosen was shown on, each scale question's chosen - rejected difference
    (``diff_<key>``) and the vote (by the target's difference). Ordinary judgements only: skip
    rows and adjudications are left out."""
    target = target_key(questionnaire)
    ratings = ordinary_rows(ratings)
    scores = ratings.pivot_table(
        index=["pair_id", "annotator"],
        columns=["dimension", "response"],
        values="score",
        aggfunc="mean",
    )
    out = pd.DataFrame(index=scores.index)
    for dim in scale_keys(questionnaire):
        if (dim, "chosen") in scores and (dim, "rejected") in scores:
            out[f"diff_{dim}"] = scores[(dim, "chosen")] - scores[(dim, "rejected")]
        else:
            out[f"diff_{dim}"] = np.nan
    keys = ratings.drop_duplicates(["pair_id", "annotator"]).set_index(["pair_id", "annotator"])
    out["domain"] = keys["domain"].reindex(out.index)
    chosen_rows = ratings[ratings["response"] == "chosen"].drop_duplicates(["pair_id", "annotator"])
    out["chosen_side"] = chosen_rows.set_index(["pair_id", "annotator"])["side"].reindex(out.index)
    out = out[out[f"diff_{target}"].notna()].copy()
    out["vote"] = _sign_labels(out[f"diff_{target}"].to_numpy(float))
    return out


def _sign_labels(diff: np.ndarray) -> np.ndarray:
    rounded = np.round(diff, 9)
    return np.where(
        rounded > 0, Verdict.CHOSEN.value, np.where(rounded < 0, Verdict.REJECTED.value, "tie")
    )


def human_verdicts(
    votes: pd.DataFrame, questionnaire: Questionnaire = DEFAULT_QUESTIONNAIRE
) -> pd.DataFrame:
    """One row per rated pair (index pair_id): domain, n_annotators, votes per verdict, the
    verdict, mean_rubric_diff and the mean margin of every dimension (``margin_<dim>``)."""
    grouped = votes.groupby(level="pair_id", sort=True)
    pair_ids = votes.index.get_level_values("pair_id")
    counts = (  # votes per pair and verdict (pd.crosstab aggregated in Python: 1 s on 3k pairs)
        votes.groupby([pair_ids, votes["vote"]])
        .size()
        .unstack("vote", fill_value=0)
        .reindex(columns=list(VERDICTS), fill_value=0)
    )
    counts.index.name = "pair_id"
    out = pd.DataFrame(
        {
            "domain": grouped["domain"].first(),
            "n_annotators": grouped.size(),
        }
    )
    for verdict in VERDICTS:
        out[f"n_{verdict}"] = counts[verdict].reindex(out.index).to_numpy()
    out["verdict"] = [_majority(row) for row in counts.reindex(out.index).to_numpy()]
    for dim in scale_keys(questionnaire):
        out[f"margin_{dim}"] = grouped[f"diff_{dim}"].mean()
    out["mean_rubric_diff"] = out[f"margin_{target_key(questionnaire)}"]
    return out


def _majority(counts: np.ndarray) -> str:
    top = counts.max()
    leaders = np.flatnonzero(counts == top)
    return VERDICTS[int(leaders[0])] if len(leaders) == 1 else Verdict.TIE.value


def audited_pairs(verdicts: pd.DataFrame) -> pd.DataFrame:
    """The pairs whose human verdict is rejected or tie, strongest evidence first."""
    flagged = verdicts[verdicts["verdict"] != Verdict.CHOSEN.value].copy()
    flagged["evidence"] = flagged["mean_rubric_diff"] * np.sqrt(flagged["n_annotators"])
    flagged = flagged.reset_index()
    return flagged.sort_values(
        ["evidence", "n_annotators", "pair_id"], ascending=[True, False, True], kind="stable"
    )


def label_audit(verdicts: pd.DataFrame) -> list[AuditRow]:
    return [
        {
            "pair_id": str(row.pair_id),
            "domain": str(row.domain),
            "human_majority": str(row.verdict),
            "n_annotators": int(row.n_annotators),
            "mean_rubric_diff": float(row.mean_rubric_diff),
        }
        for row in audited_pairs(verdicts).itertuples(index=False)
    ]
