"""The researcher's ratings download without its free text, and the free text on its own
(annotate/domain/exports/published.py, issue 32)."""

from __future__ import annotations

import json

import pandas as pd

from annotate.domain.exports.published import (
    FREE_TEXT_FIELDS,
    free_text_table,
    without_free_text,
)

HISTORY = json.dumps(
    [{"preference": 2, "rationale": "see jo@example.org", "at": "2026-12-05T10:11:12.5Z"}]
)


def _export() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "pair_id": ["p1", "p1", "p2", "p2"],
            "annotator": ["a-1", "a-1", "a-2", "a-2"],
            "dimension": ["helpfulness", "honesty"] * 2,
            "score": [4, 5, 2, 3],
            "comment": ["=1+1 nice", "=1+1 nice", "", ""],
            "rationale": ["", "", "longer", "longer"],
            "flag_reason": [None, None, None, None],
            "preference_history": [HISTORY, HISTORY, "", ""],
            "created_at": ["2026-12-05T10:11:12.123456Z"] * 4,
        }
    )


def test_the_ratings_download_holds_no_free_text_and_keeps_the_rest_exact():
    out = without_free_text(_export(), FREE_TEXT_FIELDS)
    assert list(out.columns) == [
        "pair_id", "annotator", "dimension", "score", "preference_history", "created_at"
    ]  # fmt: skip
    assert json.loads(out["preference_history"][0]) == [
        {"preference": 2, "at": "2026-12-05T10:11:12.5Z"}
    ]  # the earlier rationale left out, its time kept
    assert list(out["created_at"]) == ["2026-12-05T10:11:12.123456Z"] * 4
    assert "jo@example.org" not in out.to_csv()


def test_the_free_text_is_one_row_per_pair_and_annotator_that_wrote_some():
    table = free_text_table(_export(), FREE_TEXT_FIELDS)
    assert list(table.columns) == ["pair_id", "annotator", "comment", "rationale", "flag_reason"]
    assert table[["pair_id", "annotator", "comment", "rationale"]].to_dict("records") == [
        {"pair_id": "p1", "annotator": "a-1", "comment": "=1+1 nice", "rationale": ""},
        {"pair_id": "p2", "annotator": "a-2", "comment": "", "rationale": "longer"},
    ]
