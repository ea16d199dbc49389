"""CSV files that people open in a spreadsheet: every CSV the app and the command line offer
(the ratings export, the drill-down's pairs with their texts, the label audit, the payments,
the assignments, the grids' own CSV downloads; `annotate.app.downloads` lists them). A cell whose
text begins with =, +, -, @, a tab or a carriage return is a formula to Excel, LibreOffice and
Google Sheets, and a dataset's text, a comment, a survey answer or a platform id may be written to
be one (OWASP: CSV injection). Spreadsheets also drop leading blanks on import (LibreOffice's
"Trim spaces", Google Sheets), so a text such as "\t=1+1", " =1+1" or "\x00@SUM(A1)" becomes a live
formula once its leading whitespace or control characters are gone: a formula character after
any run of them counts too, full-width forms (＝ ＋ － ＠) included. Such cells are written with a
leading apostrophe, which spreadsheets show as text; numbers are written as they are. The raw
values are in the Parquet and JSONL exports. This module is the product's one escaping function.
"""

from __future__ import annotations

import csv
import io
import unicodedata
from collections.abc import Iterable, Sequence
from pathlib import Path

import pandas as pd

CSV_LINE_END = "\r\n"
"""CSV rows end in CRLF (RFC 4180), so that a text holding a lone carriage return (a comment, a
rationale) is quoted and stays in its cell; with pandas' default '\n' it would end the row."""
FORMULA_CHARACTERS = frozenset("=+-@\uff1d\uff0b\uff0d\uff20")  # ASCII and full-width forms
LEADING_BLANKS = frozenset({"Cc", "Cf", "Zs", "Zl", "Zp"})
"""Unicode categories a spreadsheet may drop before a cell's first character: control and
format characters (tab, CR, LF, NUL, zero-width space, BOM...) and every kind of space."""


def _blank(character: str) -> bool:
    return character.isspace() or unicodedata.category(character) in LEADING_BLANKS


def is_formula(text: str) -> bool:
    """Whether a spreadsheet could read `text` as a formula: it starts with a tab or carriage
    return, or its first character after any leading whitespace and control characters is one
    of = + - @ (or their full-width forms)."""
    if text.startswith(("\t", "\r")):
        return True
    for character in text:
        if not _blank(character):
            return character in FORMULA_CHARACTERS
    return False


def inert_cell(value: object) -> object:
    """The value, with an apostrophe before a text a spreadsheet would read as a formula."""
    if isinstance(value, str) and is_formula(value):
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


def inert_csv(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """Rows (plain values, not a frame) as CSV text with CRLF rows and every text cell inert."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator=CSV_LINE_END)
    writer.writerow([inert_cell(name) for name in header])
    writer.writerows([inert_cell(value) for value in row] for row in rows)
    return buffer.getvalue()
