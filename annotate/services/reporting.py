"""A study's ratings and settings, ready for the validation report (CLI and results page)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any, cast

import pandas as pd
from sqlalchemy import distinct, func
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from analysis.designs.adjudication import attach_adjudication
from analysis.designs.aspects import attach_aspects
from analysis.designs.attributes import attach_attributes
from analysis.designs.erasures import attach_erasures
from analysis.designs.exclusion_rules import (
    EXCLUDED_COLUMN,
    attach_exclusion_rules,
    check_rules,
    excluded_by,
    mark_excluded,
    primary_ratings,
    without,
)
from analysis.designs.preference import attach_preference
from analysis.report import build_report
from analysis.schema.exclusion_types import AnnotatorFacts
from analysis.schema.report_types import ExcludedPair, Report, SimulatedRatings
from annotate.db import read_session, write_session
from annotate.db.tables import Annotator, Assignment, Erasure, Rating, Study, stored_id
from annotate.domain.exports.aspect_export import aspects_dataframe, judge_dataframe
from annotate.domain.exports.export import ratings_dataframe
from annotate.domain.exports.pseudonyms import pseudonymised
from annotate.domain.exports.published import free_text_fields, free_text_table
from annotate.domain.operations.exclusion_rules import rules_record
from annotate.domain.operations.flags import exclusions
from annotate.domain.study import audit
from annotate.domain.study.permissions import RESULTS_ROLES, Actor, require_role
from annotate.domain.study.plan import plan_document
from annotate.domain.study.questionnaire import questionnaire_of
from annotate.domain.study.studies import get_study
from annotate.errors import Invalid
from annotate.questionnaire import DEFAULT_QUESTIONNAIRE, Questionnaire
from annotate.services.study_annotators import annotator_facts, study_pseudonyms
from annotate.vocabulary import DEFAULT_HOLM


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
    rules: dict[str, object] | None = None  # pre-registered exclusion rules and their record
    annotator_facts: list[AnnotatorFacts] = field(default_factory=list)  # what the rules read
    alpha: float = 0.05  # the pre-registered alpha
    smallest_effect: float | None = None  # the pre-registered smallest effect (None: margin)
    plan: dict[str, Any] | None = None  # the plan document (annotate.domain.study.plan)
    free_text: dict[str, str] = field(default_factory=dict)  # free-text column -> what it holds
    erasures: list[dict[str, object]] = field(default_factory=list)  # participants erased
    simulated: SimulatedRatings | None = None  # a study holding simulated ratings
    questionnaire: Questionnaire = DEFAULT_QUESTIONNAIRE  # the questions the study asks

    def rule_values(self) -> Mapping[str, object]:
        """The study's exclusion rules, name -> threshold (empty without rules)."""
        return cast(Mapping[str, object], (self.rules or {}).get("rules") or {})

    def primary(self) -> pd.DataFrame:
        """The ratings the primary analysis uses: without the annotators a pre-registered
        exclusion rule excludes (all of them without rules)."""
        try:
            return primary_ratings(self.ratings, self.rule_values(), self.annotator_facts)
        except ValueError as error:
            raise Invalid(f"study {self.study!r}: {error}") from None

    def excluded_annotators(self) -> set[str]:
        """The annotators a pre-registered exclusion rule excludes."""
        return set(excluded_by(check_rules(self.rule_values()), self.annotator_facts))

    def primary_aspects(self) -> pd.DataFrame | None:
        """The aspect marks of the annotators the primary analysis uses (as `primary`)."""
        if self.aspects is None:
            return None
        return without(self.aspects, self.excluded_annotators())

    def margin_settings(
        self, override: float | None = None, unit: str = "points"
    ) -> tuple[float, str, dict[str, object] | None]:
        """(margin, unit, record) for the report: the study's own, or an override given in
        `unit` (scale points unless said), which has no record (the report's plan section
        says it departs from the plan)."""
        if override is None or (override == self.margin and unit == self.margin_unit):
            return self.margin, self.margin_unit, self.margin_record
        return override, unit, None

    def plan_options(self) -> dict[str, Any]:
        """The report's keyword options from the study's pre-registered plan."""
        return {"smallest_effect": self.smallest_effect, "plan": self.plan}


def study_names(engine: Engine) -> list[str]:
    with read_session(engine) as session:
        return list(session.exec(select(Study.name).order_by(col(Study.id))).all())


def study_ratings(engine: Engine, study: str) -> StudyRatings:
    """The study's current ratings (export format, annotators by pseudonym) and the settings
    the report needs."""
    with read_session(engine) as session:
        target = get_study(session, study)
        questionnaire = questionnaire_of(target)
        settings = (target.equivalence_margin, *questionnaire.scale)
        unit, record = target.margin_unit, margin_record(target)
        excluded = [
            ExcludedPair(pair_id=e.record_id, reason=e.reason, by=e.by, at=e.at.isoformat())
            for e in exclusions(session, stored_id(target))
        ]
        checklist = target.aspect_checklist
        rules = rules_record(session, target)
        names = study_pseudonyms(session, stored_id(target))
        facts = annotator_facts(session, stored_id(target), names)
        free_text = free_text_fields(target.survey_questions)
        erased = erasure_log(session, stored_id(target))
        alpha, sesoi = target.alpha, target.smallest_effect
        plan = plan_document(session, target)
        counted = target.count_simulated
        simulated = simulated_summary(session, stored_id(target), counted)
    ratings = pseudonymised(ratings_dataframe(engine, study, simulated=counted), names)
    ratings = mark_excluded(ratings, rules["rules"], facts)
    aspects = aspects_dataframe(engine, study, simulated=counted) if checklist else None
    aspects = pseudonymised(aspects, names) if aspects is not None else None
    judges = judge_dataframe(engine, study) if checklist else None
    return StudyRatings(
        study,
        ratings,
        *settings,
        margin_unit=unit,
        margin_record=record,
        excluded=excluded,
        aspects=aspects,
        judges=judges,
        rules=rules,
        annotator_facts=facts,
        alpha=alpha,
        smallest_effect=sesoi,
        plan=plan,
        free_text=free_text,
        erasures=erased,
        simulated=simulated,
        questionnaire=questionnaire,
    )


FREE_TEXT_DOWNLOADED = "free text downloaded"


def free_text_download(engine: Engine, actor: Actor, data: StudyRatings) -> pd.DataFrame:
    """The free text of a study's ratings (pair, annotator's pseudonym, each free-text field),
    for a researcher or an admin; each download is an audit entry (who, which fields, how many
    rows), written before the text leaves the server (issue 32)."""
    table = free_text_table(data.ratings, data.free_text)
    with write_session(engine) as session:
        account = require_role(session, actor, *RESULTS_ROLES)
        fields = [f for f in data.free_text if f in table.columns]
        after = {"fields": fields, "rows": len(table)}
        audit.record(
            session, account, get_study(session, data.study), FREE_TEXT_DOWNLOADED, {}, after
        )
    return table


def pseudonymous(engine: Engine, frame: pd.DataFrame, study: str | None = None) -> pd.DataFrame:
    """An export of one study or several with each annotator named by their pseudonym in the
    row's study (a frame without a `study` column: of `study`)."""
    if frame.empty:
        return frame
    if "study" not in frame:
        return pseudonymous(engine, frame.assign(study=study)).drop(columns="study")
    parts = []
    with read_session(engine) as session:
        for name, rows in frame.groupby("study", sort=False):
            target = get_study(session, str(name))
            parts.append(pseudonymised(rows, study_pseudonyms(session, stored_id(target))))
    return pd.concat(parts).loc[frame.index]


def erasure_log(session: Session, study_id: int) -> list[dict[str, object]]:
    """The study's erasures, oldest first: {at, reason, n_scores, after_ratings}."""
    rows = session.exec(
        select(Erasure).where(col(Erasure.study_id) == study_id).order_by(col(Erasure.id))
    )
    return [
        {
            "at": e.at.date().isoformat(),
            "reason": e.reason,
            "n_scores": e.n_scores,
            "after_ratings": e.after_ratings,
        }
        for e in rows
    ]


def simulated_summary(session: Session, study_id: int, counted: bool) -> SimulatedRatings | None:
    """The study's simulated ratings (None: it has none), counted in its figures or not."""
    annotators, scores = session.exec(
        select(func.count(distinct(col(Annotator.id))), func.count(col(Rating.id)))
        .select_from(Rating)
        .join(Assignment, col(Rating.assignment_id) == col(Assignment.id))
        .join(Annotator, col(Assignment.annotator_id) == col(Annotator.id))
        .where(col(Assignment.study_id) == study_id, col(Annotator.simulated).is_(True))
    ).one()
    if not scores:
        return None
    what = f"{annotators} SIMULATED annotator(s) (made-up ratings, not people): {scores:,} scores"
    if counted:
        note = f"{what}, COUNTED in every figure (the study opts in)"
    else:
        note = f"{what}, left out of every figure (the study does not count simulated ratings)"
    return {"n_annotators": annotators, "n_scores": scores, "counted": counted, "note": note}


def ratings_export(engine: Engine, study: str | None = None) -> pd.DataFrame:
    """The ratings export of one study or all, annotators by their pseudonym in each study,
    each row marked with why a pre-registered exclusion rule of its study excludes its
    annotator (`annotator_excluded`, '' if none)."""
    frame = ratings_dataframe(engine, study)
    marked = []
    with read_session(engine) as session:
        for name, rows in frame.groupby("study", sort=False):
            target = get_study(session, str(name))
            names = study_pseudonyms(session, stored_id(target))
            facts = annotator_facts(session, stored_id(target), names)
            marked.append(mark_excluded(pseudonymised(rows, names), target.exclusion_rules, facts))
    if not marked:
        return frame.assign(**{EXCLUDED_COLUMN: pd.Series(dtype=str)})
    return pd.concat(marked).loc[frame.index]


def margin_record(study: Study) -> dict[str, object]:
    """The study's margin record in the shape `analysis.inference.margins.margin_record` checks."""
    set_at = study.margin_set_at.isoformat() if study.margin_set_at else None
    return {"set_at": set_at, "history": list(study.margin_history)}


def study_report(
    data: StudyRatings,
    *,
    margin: float | None = None,
    margin_unit: str = "points",
    alpha: float | None = None,
    holm: bool = DEFAULT_HOLM,
    n_boot: int = 0,
    seed: int = 0,
    mixed: bool = True,
    domains: bool = True,
    options: bool = True,
) -> Report:
    """The validation report of a study, without the annotators its exclusion rules exclude,
    with the figures of the design options it uses (`with_study_options`); the margin and alpha
    default to the study's pre-registered plan (the margin in its unit, with its record: a
    margin given here is in `margin_unit`, scale points unless said, and has no record; the
    report says where it departs from the plan). `mixed` False skips the mixed model (the
    results page shows none of its figures; its report downloads are built in full);
    `domains` False leaves the by-domain figures out (the results page builds them when a
    by-domain chart is opened); `options` False leaves the figures of the study's design
    options out (`with_study_options`: the monitor reads only the headline, the agreement and
    the plan's look)."""
    margin, unit, record = data.margin_settings(margin, margin_unit)
    ratings = data.primary()
    report = build_report(
        ratings,
        margin=margin,
        margin_unit=unit,
        margin_history=record,
        alpha=data.alpha if alpha is None else alpha,
        **data.plan_options(),
        n_boot=n_boot,
        holm=holm,
        seed=seed,
        scale_min=data.scale_min,
        scale_max=data.scale_max,
        excluded_pairs=data.excluded,
        mixed=mixed,
        domains=domains,
        questionnaire=data.questionnaire,
    )
    return with_study_options(report, data) if options else report


def with_study_options(report: Report, data: StudyRatings) -> Report:
    """The report (built on `data.primary()`) with the figures of what the study uses: the
    direct preference, the aspect checklist, a survey, adjudicated pairs, exclusion rules."""
    ratings = data.primary()
    report = attach_preference(report, ratings)
    left_out = [e["pair_id"] for e in data.excluded]
    report = attach_aspects(report, data.primary_aspects(), ratings, data.judges, left_out)
    # free-text answers would make a group of one: never tables by them
    report = attach_attributes(report, ratings.drop(columns=list(data.free_text), errors="ignore"))
    report = attach_adjudication(report, ratings)
    report = attach_erasures(report, data.erasures)
    if data.simulated is not None:
        report["simulated"] = data.simulated
    return with_exclusion_rules(report, data)


def with_exclusion_rules(report: Report, data: StudyRatings) -> Report:
    """The report (built on `data.primary()`) with the exclusion rules' section: each variant
    of its sensitivity table is built with the report's own settings, without bootstrap,
    the mixed model and the by-domain figures."""
    if data.rules is None:
        return report
    s = report["settings"]
    variant = partial(
        build_report,
        margin=s["margin"],
        margin_unit=s["margin_unit"],
        alpha=s["alpha"],
        n_boot=0,
        holm=s["holm"],
        seed=s["seed"],
        scale_min=s["scale_min"],
        scale_max=s["scale_max"],
        excluded_pairs=report["exclusions"]["excluded_pairs"],
        mixed=False,  # the sensitivity table reads no mixed-model figure
        domains=False,  # nor any by-domain figure
        smallest_effect=s.get("smallest_effect"),
        questionnaire=data.questionnaire,
    )
    return attach_exclusion_rules(report, data.ratings, data.rules, data.annotator_facts, variant)
