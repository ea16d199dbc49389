"""The spans table (issue 36.3): one row per span an annotator marked and kept (a span a
revision removed stays in the database's history, not in the table), with the slice of the
stored response it covers. A separate table, so the ratings export keeps its columns; the side
the response was shown on is mapped here, on the server. Gold pairs are left out, as from the
ratings export.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
from sqlmodel import col

from annotate.db.queries import Source, export_rows, side_shown
from annotate.db.tables import Annotator, Assignment, Pair, Span, Study
from annotate.vocabulary import SPAN_EXPORT_COLUMNS, Response


def spans_dataframe(
    source: Source, study: str | None = None, *, simulated: bool = True
) -> pd.DataFrame:
    """Every current span of one study, or of every study (SPAN_EXPORT_COLUMNS)."""
    columns: tuple[Any, ...] = (
        col(Study.name),
        col(Pair.record_id),
        col(Pair.domain),
        col(Annotator.name),
        col(Span.response),
        side_shown(col(Span.response)),
        col(Span.label),
        col(Span.start),
        col(Span.end),
        col(Pair.chosen),
        col(Pair.rejected),
        col(Assignment.purpose),
    )
    then_by = (col(Span.response), col(Span.start), col(Span.end), col(Span.label))
    current = (col(Span.removed_at).is_(None),)
    rows = export_rows(source, columns, Span, then_by, study, simulated=simulated, where=current)
    records = [_record(row) for row in rows]
    frame = pd.DataFrame(records, columns=list(SPAN_EXPORT_COLUMNS))
    for name in ("start", "end"):
        frame[name] = frame[name].astype("int64")
    return frame


def _record(row: Any) -> tuple[Any, ...]:
    """A row with the two responses' texts replaced by the span's slice of its own."""
    *head, chosen, rejected, purpose = row
    response, start, end = head[4], head[7], head[8]
    text = chosen if response == Response.CHOSEN else rejected
    return (*head, text[start:end], purpose)
