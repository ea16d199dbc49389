"""A study's ratings and settings, read in one snapshot and handed to the analysis.

`study_ratings` loads everything a study's report reads in one transaction and returns an
`analysis.study_report.StudyData` (the snapshot and the settings); `study_report` is a call to
`analysis.study_report.report_of`, which builds the whole report. The CLI, the results page, the
monitor and publishing read the same `StudyData`. Also here: the ratings export by pseudonym and
the audited free-text download.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
from sqlalchemy import distinct, func
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from analysis.designs.exclusion_rules import EXCLUDED_COLUMN, mark_excluded
from analysis.schema.report_types import ExcludedPair, Report, SimulatedRatings
from analysis.study_report import Margin, StudyData, StudySettings, StudySnapshot, report_of
from annotate.db import read_session, snapshot_session, write_session
from annotate.db.tables import Annotator, Assignment, Erasure, Pair, Rating, Study, stored_id
from annotate.domain.exports.aspect_export import aspects_dataframe, judge_dataframe
from annotate.domain.exports.export import ratings_dataframe
from annotate.domain.exports.pseudonyms import pseudonymised
from annotate.domain.exports.published import free_text_fields, free_text_table
from annotate.domain.exports.span_export import spans_dataframe
from annotate.domain.operations.exclusion_rules import rules_record
from annotate.domain.operations.flags import exclusions
from annotate.domain.study import audit
from annotate.domain.study.permissions import RESULTS_ROLES, Actor, require_role
from annotate.domain.study.plan import plan_document
from annotate.domain.study.questionnaire import questionnaire_of
from annotate.domain.study.studies import get_study
from annotate.services.results.study_annotators import annotator_facts, study_pseudonyms


def study_names(engine: Engine) -> list[str]:
    with read_session(engine) as session:
        return list(session.exec(select(Study.name).order_by(col(Study.id))).all())


def study_ratings(engine: Engine, study: str) -> StudyData:
    """The study's current ratings (export format, annotators by pseudonym) and the settings
    the report needs, all read in one snapshot (`snapshot_session`): a rating saved meanwhile
    is in all of its tables or in none."""
    with snapshot_session(engine) as session:
        target = get_study(session, study)
        study_id, counted = stored_id(target), target.count_simulated
        names = study_pseudonyms(session, study_id)
        facts = annotator_facts(session, study_id, names)
        rules = rules_record(session, target)
        ratings = pseudonymised(ratings_dataframe(session, study, simulated=counted), names)
        checklist = target.aspect_checklist
        aspects = aspects_dataframe(session, study, simulated=counted) if checklist else None
        labelled = bool(questionnaire_of(target).span_labels)
        spans = spans_dataframe(session, study, simulated=counted) if labelled else None
        snapshot = StudySnapshot(
            study,
            mark_excluded(ratings, rules["rules"], facts),
            excluded=[
                ExcludedPair(pair_id=e.record_id, reason=e.reason, by=e.by, at=e.at.isoformat())
                for e in exclusions(session, study_id)
            ],
            aspects=pseudonymised(aspects, names) if aspects is not None else None,
            spans=pseudonymised(spans, names) if spans is not None else None,
            span_texts=span_texts(session, study_id, spans),
            judges=judge_dataframe(session, study) if checklist else None,
            rules=rules,
            annotator_facts=facts,
            free_text=free_text_fields(target.survey_questions),
            erasures=erasure_log(session, study_id),
            simulated=simulated_summary(session, study_id, counted),
        )
        return StudyData(snapshot, study_settings(session, target))


def span_texts(
    session: Session, study_id: int, spans: pd.DataFrame | None
) -> dict[tuple[str, str], str]:
    """The stored texts of the responses of the pairs with spans, by (pair id, response)."""
    if spans is None or spans.empty:
        return {}
    ids = sorted(set(spans["pair_id"].astype(str)))
    query = select(Pair.record_id, Pair.chosen, Pair.rejected).where(
        col(Pair.study_id) == study_id, col(Pair.record_id).in_(ids)
    )
    texts: dict[tuple[str, str], str] = {}
    for record_id, chosen, rejected in session.exec(query):
        texts[(record_id, "chosen")], texts[(record_id, "rejected")] = chosen, rejected
    return texts


def study_settings(session: Session, target: Study) -> StudySettings:
    """What the study planned for its analysis: the margin with its unit and record, the
    scale, alpha, the smallest effect, the plan document and the questionnaire."""
    questionnaire = questionnaire_of(target)
    return StudySettings(
        Margin(target.equivalence_margin, target.margin_unit, margin_record(target)),
        *questionnaire.scale,
        alpha=target.alpha,
        smallest_effect=target.smallest_effect,
        plan=plan_document(session, target),
        questionnaire=questionnaire,
    )


FREE_TEXT_DOWNLOADED = "free text downloaded"


def free_text_download(engine: Engine, actor: Actor, data: StudyData) -> pd.DataFrame:
    """The free text of a study's ratings (pair, annotator's pseudonym, each free-text field),
    for a researcher or an admin; each download is an audit entry (who, which fields, how many
    rows), written before the text leaves the server (issue 32)."""
    snapshot = data.snapshot
    table = free_text_table(snapshot.ratings, snapshot.free_text)
    with write_session(engine) as session:
        account = require_role(session, actor, *RESULTS_ROLES)
        fields = [f for f in snapshot.free_text if f in table.columns]
        after = {"fields": fields, "rows": len(table)}
        audit.record(
            session, account, get_study(session, snapshot.study), FREE_TEXT_DOWNLOADED, {}, after
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


def study_report(data: StudyData, **overrides: Any) -> Report:
    """The study's validation report (`analysis.study_report.report_of`: `overrides` are its
    keyword options, a margin given as a `Margin` with its unit)."""
    return report_of(data.snapshot, data.settings, **overrides)
