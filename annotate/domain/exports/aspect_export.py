"""The aspect table: one row per assignment, response and rubric aspect (the marks of the aspect
checklist), and an LLM judge's aspect scores in the same long shape. A separate table, so the
ratings export keeps its columns; the side the response was shown on is mapped here, on the
server. Gold pairs are left out, as from the ratings export.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
from sqlalchemy import select
from sqlmodel import col

from annotate.db.queries import Source, connection_of, export_rows, side_shown
from annotate.db.tables import (
    Annotator,
    AspectJudge,
    AspectJudgeScore,
    AspectMark,
    Assignment,
    Pair,
    Study,
)
from annotate.domain.rating.aspects import aspect_text
from annotate.vocabulary import ASPECT_EXPORT_COLUMNS

JUDGE_COLUMNS: tuple[str, ...] = (
    "study",
    "judge",
    "pair_id",
    "domain",
    "response",
    "aspect_index",
    "aspect",
    "coverage",
)
"""An imported judge's aspect scores (`analysis.designs.aspects` compares them with the humans')."""


def aspects_dataframe(
    source: Source, study: str | None = None, *, simulated: bool = True
) -> pd.DataFrame:
    """Every current aspect mark of one study, or of every study (ASPECT_EXPORT_COLUMNS)."""
    side = side_shown(col(AspectMark.response))
    columns: tuple[Any, ...] = (
        col(Study.name),
        col(Pair.record_id),
        col(Pair.domain),
        col(Annotator.name),
        col(AspectMark.response),
        side,
        col(AspectMark.aspect_index),
        col(Pair.rubric_aspects),
        col(AspectMark.coverage),
        col(Assignment.purpose),
    )
    then_by = (col(AspectMark.response), col(AspectMark.aspect_index))
    rows = export_rows(source, columns, AspectMark, then_by, study, simulated=simulated)
    frame = pd.DataFrame(rows, columns=list(ASPECT_EXPORT_COLUMNS))
    return _typed(frame)


def judge_dataframe(source: Source, study: str) -> pd.DataFrame:
    """The aspect scores of every judge imported for `study` (JUDGE_COLUMNS)."""
    query = (
        select(
            col(Study.name),
            col(AspectJudge.name),
            col(Pair.record_id),
            col(Pair.domain),
            col(AspectJudgeScore.response),
            col(AspectJudgeScore.aspect_index),
            col(Pair.rubric_aspects),
            col(AspectJudgeScore.coverage),
        )
        .select_from(AspectJudgeScore)
        .join(AspectJudge, col(AspectJudge.id) == col(AspectJudgeScore.judge_id))
        .join(Study, col(Study.id) == col(AspectJudge.study_id))
        .join(Pair, col(Pair.id) == col(AspectJudgeScore.pair_id))
        .where(col(Study.name) == study, col(Pair.gold_preference).is_(None))
        .order_by(
            col(AspectJudge.name),
            col(Pair.record_id),
            col(AspectJudgeScore.response),
            col(AspectJudgeScore.aspect_index),
        )
    )
    with connection_of(source) as connection:
        rows = connection.execute(query).all()
    frame = pd.DataFrame(rows, columns=list(JUDGE_COLUMNS))
    return _typed(frame)


def _aspect(rubric: object, index: int) -> str:
    """The aspect's words from the pair's rubric."""
    aspects = rubric if isinstance(rubric, list) else []
    return aspect_text(aspects[index]) if 0 <= index < len(aspects) else ""


def _typed(frame: pd.DataFrame) -> pd.DataFrame:
    """The rubric column replaced by the aspect's words; integer columns as int64."""
    pairs = zip(frame["aspect"], frame["aspect_index"], strict=True)
    frame["aspect"] = pd.Series([_aspect(r, i) for r, i in pairs], index=frame.index, dtype=object)
    frame["aspect_index"] = frame["aspect_index"].astype("int64")
    frame["coverage"] = frame["coverage"].astype("int64")
    return frame
