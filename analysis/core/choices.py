"""Choice questions (``describe`` questions answered by picking one of a list): counted by
response, never averaged (a choice's position is a name, not a score)."""

from __future__ import annotations

import pandas as pd

from analysis.schema.report_types import ChoiceCounts
from annotate.questionnaire import Questionnaire
from annotate.vocabulary import RESPONSES


def choice_counts(ratings: pd.DataFrame, questionnaire: Questionnaire) -> dict[str, ChoiceCounts]:
    """For each choice question of ``questionnaire``: how often each choice was picked for the
    chosen and for the rejected response (``ratings`` validated: the score is the choice's
    position, 1-based). Empty when the questionnaire has no choice question."""
    out: dict[str, ChoiceCounts] = {}
    for question in questionnaire.questions:
        if question.is_scale:
            continue
        rows = ratings[ratings["dimension"] == question.key]
        by_response = {
            response: [int((picked == i).sum()) for i in question.values]
            for response, picked in (
                (r, rows.loc[rows["response"] == r, "score"]) for r in RESPONSES
            )
        }
        out[question.key] = {
            "label": question.label,
            "choices": list(question.choices),
            "counts": by_response,
            "n_pairs": int(rows["pair_id"].nunique()),
        }
    return out
