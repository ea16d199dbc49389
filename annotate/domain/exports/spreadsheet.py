"""CSV files that people open in a spreadsheet (the drill-down's pairs with their texts, the
label audit). A cell whose text begins with =, +, -, @, a tab or a carriage return is a formula
to Excel, LibreOffice and Google Sheets, and a dataset's text may be written to be one (OWASP:
CSV injection). Such cells are written with a leading apostrophe, which spreadsheets show as
text. The ratings export, read by pandas and R, is written as stored.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from annotate.domain.exports.export import CSV_LINE_END

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def inert_cell(value: object) -> object:
    """The value, with an apostrophe before a text a spreadsheet would read as a formula."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def spreadsheet_csv(frame: pd.DataFrame, path: Path | None = None) -> str:
    """The frame as CSV text with every text cell inert (also written to `path` when given)."""
    safe = frame.copy()
    for column in safe.columns:
        if safe[column].dtype == object or pd.api.types.is_string_dtype(safe[column]):
            safe[column] = safe[column].map(inert_cell)
    text: str = safe.to_csv(index=False, lineterminator=CSV_LINE_END)
    if path is not None:
        path.write_bytes(text.encode("utf-8"))
    return text
