"""Queries several domain modules share.

`joined_assignments` is the one place that writes the join of an assignment with its pair, its
annotator and (optionally) its scores: the export, the quality figures, the progress dashboard
and the assignment package all select their columns over it, so a change to how these tables
relate is made once.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import case
from sqlmodel import col
from sqlmodel.sql.expression import Select

from annotate.db.tables import Annotator, Assignment, Pair, Rating
from annotate.vocabulary import Response, Side

Rows = Select[*tuple[Any, ...]]
"""A select whose rows are tuples of any columns."""


def joined_assignments(*columns: Any, ratings: bool = False) -> Rows:
    """SELECT `columns` FROM assignment JOIN pair JOIN annotator: one row per assignment; with
    `ratings` also JOIN rating: one row per current score of a scored assignment.

    Rows are tuples, even of one column. Add filters and order to the returned select.
    """
    query: Rows = Select(*columns)
    joined = (
        query.select_from(Assignment)
        .join(Pair, col(Pair.id) == col(Assignment.pair_id))
        .join(Annotator, col(Annotator.id) == col(Assignment.annotator_id))
    )
    if ratings:
        joined = joined.join(Rating, col(Rating.assignment_id) == col(Assignment.id))
    return joined


def side_shown(response: Any) -> Any:
    """SQL: the side ('A' or 'B') the `response` column's response was shown on, from the
    assignment's `chosen_side` (server-side only)."""
    other_side = case((col(Assignment.chosen_side) == Side.A, Side.B.value), else_=Side.A.value)
    return case((response == Response.CHOSEN, col(Assignment.chosen_side)), else_=other_side)
