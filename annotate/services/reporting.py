"""A study's ratings and settings, ready for the validation report (CLI and results page)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd
from sqlalchemy.engine import Engine
from sqlmodel import col, select

from analysis.report import build_report
from analysis.report_types import ExcludedPair, Report
from annotate.db import read_session
from annotate.db.tables import Study, stored_id
from annotate.domain.export import ratings_dataframe
from annotate.domain.flags import exclusions
from annotate.domain.studies import get_study


@dataclass(frozen=True)
class StudyRatings:
    study: str
    ratings: pd.DataFrame
    margin: float
    scale_min: int
    scale_max: int
    excluded: list[ExcludedPair] = field(default_factory=list)


def study_names(engine: Engine) -> list[str]:
    with read_session(engine) as session:
        return list(session.exec(select(Study.name).order_by(col(Study.id))).all())


def study_ratings(engine: Engine, study: str) -> StudyRatings:
    """The study's current ratings (export format) and the settings the report needs."""
    with read_session(engine) as session:
        target = get_study(session, study)
        settings = (target.equivalence_margin, target.scale_min, target.scale_max)
        excluded = [
            ExcludedPair(pair_id=e.record_id, reason=e.reason, by=e.by, at=e.at.isoformat())
            for e in exclusions(session, stored_id(target))
        ]
    return StudyRatings(study, ratings_dataframe(engine, study), *settings, excluded)


def study_report(
    data: StudyRatings,
    *,
    margin: float | None = None,
    alpha: float = 0.05,
    holm: bool = False,
    n_boot: int = 0,
    seed: int = 0,
) -> Report:
    """The validation report of a study; the margin defaults to the study's setting."""
    return build_report(
        data.ratings,
        margin=data.margin if margin is None else margin,
        alpha=alpha,
        n_boot=n_boot,
        holm=holm,
        seed=seed,
        scale_min=data.scale_min,
        scale_max=data.scale_max,
        excluded_pairs=data.excluded,
    )
