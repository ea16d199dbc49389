"""A study's ratings and settings, ready for the validation report (CLI and results page)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd
from sqlalchemy.engine import Engine
from sqlmodel import col, select

from analysis.aspects import attach_aspects
from analysis.attributes import attach_attributes
from analysis.preference import attach_preference
from analysis.report import build_report
from analysis.report_types import ExcludedPair, Report
from annotate.db import read_session
from annotate.db.tables import Study, stored_id
from annotate.domain.aspect_export import aspects_dataframe, judge_dataframe
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
    margin_unit: str = "points"
    margin_record: dict[str, object] | None = None  # when set, and its earlier values
    excluded: list[ExcludedPair] = field(default_factory=list)  # left out by an admin
    aspects: pd.DataFrame | None = None  # the aspect table, for a study with the checklist
    judges: pd.DataFrame | None = None  # LLM judges' aspect scores imported for it

    def margin_settings(
        self, override: float | None = None
    ) -> tuple[float, str, dict[str, object] | None]:
        """(margin, unit, record) for the report: the study's own, or an override given in
        scale points, which has no record."""
        if override is None:
            return self.margin, self.margin_unit, self.margin_record
        return override, "points", None


def study_names(engine: Engine) -> list[str]:
    with read_session(engine) as session:
        return list(session.exec(select(Study.name).order_by(col(Study.id))).all())


def study_ratings(engine: Engine, study: str) -> StudyRatings:
    """The study's current ratings (export format) and the settings the report needs."""
    with read_session(engine) as session:
        target = get_study(session, study)
        settings = (target.equivalence_margin, target.scale_min, target.scale_max)
        unit, record = target.margin_unit, margin_record(target)
        excluded = [
            ExcludedPair(pair_id=e.record_id, reason=e.reason, by=e.by, at=e.at.isoformat())
            for e in exclusions(session, stored_id(target))
        ]
        checklist = target.aspect_checklist
    ratings = ratings_dataframe(engine, study)
    aspects = aspects_dataframe(engine, study) if checklist else None
    judges = judge_dataframe(engine, study) if checklist else None
    return StudyRatings(study, ratings, *settings, unit, record, excluded, aspects, judges)


def margin_record(study: Study) -> dict[str, object]:
    """The study's margin record in the shape `analysis.margins.margin_record` checks."""
    set_at = study.margin_set_at.isoformat() if study.margin_set_at else None
    return {"set_at": set_at, "history": list(study.margin_history)}


def study_report(
    data: StudyRatings,
    *,
    margin: float | None = None,
    alpha: float = 0.05,
    holm: bool = False,
    n_boot: int = 0,
    seed: int = 0,
) -> Report:
    """The validation report of a study (with the direct preference's figures when the study
    asks for it, the aspect checklist's when it uses it, and figures by survey answer when it
    has a survey); the margin defaults to
    the study's setting (in its unit, with its record: a margin given here is in scale points
    and has no record)."""
    margin, unit, record = data.margin_settings(margin)
    report = build_report(
        data.ratings,
        margin=margin,
        margin_unit=unit,
        margin_history=record,
        alpha=alpha,
        n_boot=n_boot,
        holm=holm,
        seed=seed,
        scale_min=data.scale_min,
        scale_max=data.scale_max,
        excluded_pairs=data.excluded,
    )
    return with_study_options(report, data)


def with_study_options(report: Report, data: StudyRatings) -> Report:
    """The report with the keys of the study's design options: the direct preference, the
    aspect checklist and the figures by survey answer (each only when the study uses it)."""
    report = attach_preference(report, data.ratings)
    left_out = [e["pair_id"] for e in data.excluded]
    report = attach_aspects(report, data.aspects, data.ratings, data.judges, left_out)
    return attach_attributes(report, data.ratings)
