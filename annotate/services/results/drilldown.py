"""The drill-down with the pairs' texts (researcher or admin): the pairs behind a figure of the
validation report (:mod:`analysis.inference.drilldown`), joined to their question, rubric aspects
and both responses labelled chosen and rejected, as a table or CSV.

This is the researchers' view, so the labels are shown; annotators never reach it (every
function checks the results roles). The texts are untrusted: the page renders them inert.
Pairs an admin excluded from the analysis, and annotators a pre-registered exclusion rule
excludes, are left out here as from every figure.
"""

from __future__ import annotations

from collections.abc import Collection

import pandas as pd
from sqlalchemy.engine import Engine
from sqlmodel import col, select

from analysis.inference import drilldown
from analysis.study_report import StudyData
from annotate.db import read_session
from annotate.db.tables import Pair, stored_id
from annotate.domain.exports.spreadsheet import spreadsheet_csv
from annotate.domain.study.permissions import RESULTS_ROLES, Actor, require_role
from annotate.domain.study.questionnaire import questionnaire_of
from annotate.domain.study.studies import get_study
from annotate.services.results.reporting import study_ratings

TEXT_COLUMNS = ("category", "question", "rubric_aspects", "chosen", "rejected")
"""The texts the CSV adds after the figure's columns (rubric aspects joined by " | ")."""
ASPECT_SEPARATOR = " | "


def included_ratings(data: StudyData) -> pd.DataFrame:
    """The ratings the figures use: without the pairs an admin excluded from the analysis and
    without the annotators a pre-registered exclusion rule excludes."""
    left_out = {e["pair_id"] for e in data.snapshot.excluded}
    ratings = data.snapshot.primary()
    return ratings[~ratings["pair_id"].isin(left_out)]


def figure_pairs(
    engine: Engine, actor: Actor, data: StudyData, figure: str, domain: str | None = None
) -> pd.DataFrame:
    """The pairs behind `figure` in the ratings already read (`data`), most telling first."""
    with read_session(engine) as session:
        require_role(session, actor, *RESULTS_ROLES)
    return drilldown.figure_pairs(
        included_ratings(data), figure, domain, data.settings.questionnaire
    )


def pair_texts(engine: Engine, actor: Actor, study: str, pair_ids: Collection[str]) -> pd.DataFrame:
    """The texts of the study's pairs `pair_ids` (index pair_id, columns TEXT_COLUMNS)."""
    wanted = set(pair_ids)
    with read_session(engine) as session:
        require_role(session, actor, *RESULTS_ROLES)
        study_id = stored_id(get_study(session, study))
        pairs = session.exec(select(Pair).where(col(Pair.study_id) == study_id)).all()
        records = [
            (p.record_id, p.category, p.question, _aspects(p.rubric_aspects), p.chosen, p.rejected)
            for p in pairs
            if p.record_id in wanted
        ]
    frame = pd.DataFrame(records, columns=["pair_id", *TEXT_COLUMNS])
    return frame.set_index("pair_id")


def _aspects(aspects: list[dict[str, object]]) -> str:
    return ASPECT_SEPARATOR.join(str(a.get("aspect", "")) for a in aspects)


def with_texts(engine: Engine, actor: Actor, study: str, table: pd.DataFrame) -> pd.DataFrame:
    """`table` (a figure's pairs) with each pair's texts after its own columns."""
    texts = pair_texts(engine, actor, study, table["pair_id"].tolist())
    return table.join(texts, on="pair_id")


def figure_csv(
    engine: Engine, actor: Actor, data: StudyData, figure: str, domain: str | None = None
) -> bytes:
    """The figure's pairs with their texts as UTF-8 CSV (the results page's download)."""
    table = figure_pairs(engine, actor, data, figure, domain)
    return spreadsheet_csv(with_texts(engine, actor, data.snapshot.study, table)).encode("utf-8")


def study_figure_pairs(
    engine: Engine, actor: Actor, study: str, figure: str, domain: str | None = None
) -> pd.DataFrame:
    """The pairs behind `figure` in a study, read from the database, with their texts (CLI)."""
    with read_session(engine) as session:
        require_role(session, actor, *RESULTS_ROLES)
    data = study_ratings(engine, study)
    return with_texts(engine, actor, study, figure_pairs(engine, actor, data, figure, domain))


def figure_words(engine: Engine, actor: Actor, study: str, figure: str) -> tuple[str, str]:
    """The figure's label and how its pairs are ordered, in the study's questions' words."""
    with read_session(engine) as session:
        require_role(session, actor, *RESULTS_ROLES)
        asked = questionnaire_of(get_study(session, study))
    return drilldown.figures(asked)[figure], drilldown.figure_note(figure, asked)
