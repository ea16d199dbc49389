"""Queries several domain modules share.

`joined_assignments` is the one place that writes the join of an assignment with its pair, its
annotator and (optionally) its scores: the export, the quality figures, the progress dashboard
and the assignment package all select their columns over it, so a change to how these tables
relate is made once. `export_rows` is the one query of the exports (the ratings and the aspect
table): their join, their filter (no gold pairs, one study or all) and their order.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Connection, Row, case
from sqlalchemy.engine import Engine
from sqlmodel import Session, col
from sqlmodel.sql.expression import Select

from annotate.db.tables import Annotator, AspectMark, Assignment, Pair, Rating, Span, Study
from annotate.vocabulary import Response, Side

Rows = Select[*tuple[Any, ...]]
"""A select whose rows are tuples of any columns."""

Source = Engine | Session
"""Where a query reads: an engine (a connection of its own) or an open session (its snapshot)."""


@contextmanager
def connection_of(source: Source) -> Iterator[Connection]:
    """A connection reading `source`: a session's own (its transaction: the caller's snapshot),
    or a new one of the engine's, closed after the block."""
    if isinstance(source, Session):
        yield source.connection()
        return
    with source.connect() as connection:
        yield connection


@contextmanager
def session_of(source: Source) -> Iterator[Session]:
    """A session reading `source`: the session itself, or a new one of the engine's."""
    if isinstance(source, Session):
        yield source
        return
    with Session(source) as session:
        yield session


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


def export_rows(
    source: Source,
    columns: Sequence[Any],
    detail: type[Rating] | type[AspectMark] | type[Span],
    then_by: Sequence[Any],
    study: str | None = None,
    *,
    simulated: bool = True,
    where: Sequence[Any] = (),
) -> Sequence[Row[Any]]:
    """The rows of an export: `columns` over each assignment's `detail` rows (its current
    scores, or its aspect marks, or its spans; `where`: conditions on them) with the study,
    gold pairs left out, of one `study` or of every study, ordered by study, pair and
    annotator, then by `then_by`; without `simulated`, simulated annotators' rows are left out
    (a study that does not count them).

    Gold pairs are quality-control items with a known answer, given to every annotator outside
    the plan's k: they would weigh too much in the validation, so no export holds them."""
    query = (
        joined_assignments(*columns)
        .join(detail, col(detail.assignment_id) == col(Assignment.id))
        .join(Study, col(Pair.study_id) == col(Study.id))
        .where(col(Pair.gold_preference).is_(None), *where)
        .order_by(col(Study.name), col(Pair.record_id), col(Annotator.name), *then_by)
    )
    if study is not None:
        query = query.where(col(Study.name) == study)
    if not simulated:
        query = query.where(col(Annotator.simulated).is_(False))
    with connection_of(source) as connection:
        return connection.execute(query).all()
