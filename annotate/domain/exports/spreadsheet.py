"""CSV files that people open in a spreadsheet (the ratings export, the drill-down's pairs with
their texts, the label audit). A cell whose text begins with =, +, -, @, a tab or a carriage
return is a formula to Excel, LibreOffice and Google Sheets, and a dataset's text, a comment or a
survey answer may be written to be one (OWASP: CSV injection). Such cells are written with a
leading apostrophe, which spreadsheets show as text; numbers are written as they are. The raw
values are in the Parquet and JSONL exports.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

CSV_LINE_END = "\r\n"
"""CSV rows end in CRLF (RFC 4180), so that a text holding a lone carriage return (a comment, a
rationale) is quoted and stays in its cell; with pandas' default '\n' it would end the row."""
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def inert_cell(value: object) -> object:
    """The value, with an apostrophe before a text a spreadsheet would read as a formula."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def inert_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of the frame with every text cell inert (`inert_cell`)."""
    safe = frame.copy()
    for column in safe.columns:
        if safe[column].dtype == object or pd.api.types.is_string_dtype(safe[column]):
            safe[column] = safe[column].map(inert_cell)
    return safe


def spreadsheet_csv(frame: pd.DataFrame, path: Path | None = None) -> str:
    """The frame as CSV text with every text cell inert (also written to `path` when given)."""
    safe = inert_frame(frame)
    text: str = safe.to_csv(index=False, lineterminator=CSV_LINE_END)
    if path is not None:
        path.write_bytes(text.encode("utf-8"))
    return text
