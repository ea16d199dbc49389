"""Queries several domain modules share.

`joined_assignments` is the one place that writes the join of an assignment with its pair, its
annotator and (optionally) its scores: the export, the quality figures, the progress dashboard
and the assignment package all select their columns over it, so a change to how these tables
relate is made once.
"""

from __future__ import annotations

from typing import Any

from sqlmodel import col
from sqlmodel.sql.expression import Select

from annotate.db.tables import Annotator, Assignment, Pair, Rating

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
