"""The ratings export: one row per score, in the column order researchers rely on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
from sqlalchemy import case
from sqlalchemy.engine import Engine
from sqlmodel import col

from annotate.db.queries import joined_assignments
from annotate.db.tables import Annotator, Assignment, Pair, Rating, Study
from annotate.vocabulary import EXPORT_COLUMNS, Response, Side

EXPORT_FORMATS = ("csv", "jsonl", "parquet")


def ratings_dataframe(engine: Engine, study: str | None = None) -> pd.DataFrame:
    """All current scores (revisions excluded) of one study, or of every study.

    Gold pairs are left out: they are quality-control items with a known answer, given to
    every annotator outside the plan's k, and would weigh too much in the validation (their
    scores feed the annotators' gold accuracy on the progress page instead).
    """
    other_side = case((col(Assignment.chosen_side) == Side.A, Side.B.value), else_=Side.A.value)
    side = case(
        (col(Rating.response) == Response.CHOSEN, col(Assignment.chosen_side)), else_=other_side
    )
    columns: tuple[Any, ...] = (
        col(Study.name).label("study"),
        col(Pair.record_id).label("pair_id"),
        col(Pair.domain),
        col(Annotator.name).label("annotator"),
        col(Rating.response),
        side.label("side"),
        col(Rating.dimension),
        col(Rating.score),
        col(Rating.seconds),
        col(Rating.created_at),
    )
    query = (
        joined_assignments(*columns, ratings=True)
        .join(Study, col(Pair.study_id) == col(Study.id))
        .where(col(Pair.gold_preference).is_(None))
        .order_by(
            col(Study.name),
            col(Pair.record_id),
            col(Annotator.name),
            col(Rating.response),
            col(Rating.dimension),
        )
    )
    if study is not None:
        query = query.where(col(Study.name) == study)
    with engine.connect() as connection:
        frame = pd.DataFrame(connection.execute(query).all(), columns=list(EXPORT_COLUMNS))
    frame["score"] = frame["score"].astype("int64")
    frame["seconds"] = frame["seconds"].astype("float64")
    # PostgreSQL returns aware times in the session's time zone, SQLite naive UTC: both to UTC.
    created = pd.to_datetime(frame["created_at"], utc=True)
    frame["created_at"] = created.dt.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return frame


def write_ratings(frame: pd.DataFrame, path: Path, fmt: str) -> None:
    """Write the export to `path` (written to a temporary name, then moved into place)."""
    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(EXPORT_FORMATS)}")
    tmp = path.with_name(path.name + ".part")
    if fmt == "csv":
        frame.to_csv(tmp, index=False)
    elif fmt == "jsonl":
        frame.to_json(tmp, orient="records", lines=True, force_ascii=False)
    else:
        frame.to_parquet(tmp, index=False)
    tmp.replace(path)


def ratings_bytes(frame: pd.DataFrame, fmt: str) -> bytes:
    """The export as bytes, for a download button."""
    if fmt == "csv":
        text: str = frame.to_csv(index=False)
        return text.encode("utf-8")
    if fmt == "jsonl":
        text = frame.to_json(orient="records", lines=True, force_ascii=False)
        return text.encode("utf-8")
    if fmt == "parquet":
        data: bytes = frame.to_parquet(index=False)
        return data
    raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(EXPORT_FORMATS)}")
