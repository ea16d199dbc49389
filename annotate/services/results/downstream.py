"""Downstream outputs and comparison studies (issue 25): import a condition's files (admin,
audited), build a comparison study from two conditions (admin, audited), and the inputs of the
downstream analysis (results roles). Files are read and checked before the write transaction, so
a long read never holds the write lock. Outputs, judge scores and which condition is expected to
win are never part of anything an annotator is sent.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pandas as pd
from sqlalchemy.engine import Engine

from analysis.downstream.bundle import FILES
from analysis.downstream.summary import downstream_summary
from analysis.models.reward_models import model_preferences
from analysis.schema.jsonable import to_jsonable
from analysis.schema.report_types import Report
from annotate.db import read_session
from annotate.db.tables import DownstreamCondition
from annotate.domain.downstream import comparison, outputs
from annotate.domain.downstream.comparison import ComparisonSummary, is_comparison
from annotate.domain.downstream.conditions import parse_condition
from annotate.domain.downstream.files import stage_condition
from annotate.domain.downstream.outputs import ConditionSummary
from annotate.domain.exports.aspect_export import aspects_dataframe
from annotate.domain.exports.export import ratings_dataframe
from annotate.domain.models import reward_models
from annotate.domain.study.permissions import RESULTS_ROLES, Actor, require_admin, require_role
from annotate.domain.study.studies import get_study, list_studies
from annotate.errors import Conflict
from annotate.services.audited import admin_change


def import_condition(
    engine: Engine,
    actor: Actor,
    *,
    study: str,
    condition: str,
    outputs_file: Path | None = None,
    eval_file: Path | None = None,
    skip_unknown: bool = False,
    replace: bool = False,
) -> ConditionSummary:
    """Import one condition's outputs and/or judge answers into `study`: all or nothing.

    Raises Invalid for a bad condition name, DatasetError listing every problem (file, line,
    field), Conflict when the condition has other content and `replace` is not set,
    PermissionDenied unless admin.
    """
    with read_session(engine) as session:
        require_admin(session, actor)
    staged = stage_condition(parse_condition(condition), outputs_file, eval_file)
    with admin_change(engine, actor, "downstream.import", study) as change:
        summary = outputs.store_condition(
            change.session, staged, study=study, skip_unknown=skip_unknown, replace=replace
        )
        change.after = {
            "condition": summary.condition,
            "outcome": summary.outcome,
            "outputs": summary.n_records - summary.n_unknown,
            "unparsed": summary.n_unparsed,
        }
        change.changed = summary.outcome != "unchanged"
        return summary


def list_conditions(engine: Engine, actor: Actor, study: str) -> list[DownstreamCondition]:
    with read_session(engine) as session:
        require_role(session, actor, *RESULTS_ROLES)
        return outputs.study_conditions(session, study)


def create_comparison(
    engine: Engine,
    actor: Actor,
    *,
    source_study: str,
    name: str,
    expected: str,
    baseline: str,
    **settings: Any,
) -> ComparisonSummary:
    """A new study comparing two conditions of `source_study` (see
    `annotate.domain.downstream.comparison`)."""
    with admin_change(engine, actor, "downstream.compare") as change:
        summary = comparison.create_comparison(
            change.session,
            source_study=source_study,
            name=name,
            expected=expected,
            baseline=baseline,
            **settings,
        )
        change.after = {
            "study": summary.study,
            "expected": summary.expected,
            "baseline": summary.baseline,
            "pairs": summary.n_pairs,
            "identical": summary.n_identical,
        }
        return summary


@dataclass(frozen=True)
class DownstreamInputs:
    """What the downstream analysis reads of one benchmark study (`analysis.downstream`)."""

    study: str
    outputs: pd.DataFrame  # annotate.domain.downstream.outputs.OUTPUT_COLUMNS
    comparisons: list[dict[str, Any]]  # each comparison study's `comparison` with its name
    ratings: pd.DataFrame  # the comparison studies' ratings exports
    marks: pd.DataFrame  # the comparison studies' aspect tables
    predictions: pd.DataFrame  # the reward models' results on the benchmark study


def downstream_inputs(engine: Engine, actor: Actor, study: str) -> DownstreamInputs:
    """What the downstream analysis reads of benchmark study `study`: its conditions' outputs,
    the comparison studies built from them with their ratings and aspect tables, and the
    reward models' results on its pairs (for their benchmark accuracy)."""
    with read_session(engine) as session:
        require_role(session, actor, *RESULTS_ROLES)
        frame = outputs.outputs_frame(session, study)
        found = [
            {"study": s.name, **s.comparison}
            for s in list_studies(session)
            if is_comparison(s.comparison) and s.comparison.get("source_study") == study
        ]
        predictions = reward_models.prediction_frame(session, study)
    names = [c["study"] for c in found]
    ratings = _concat([ratings_dataframe(engine, name) for name in names])
    marks = _concat([aspects_dataframe(engine, name) for name in names])
    return DownstreamInputs(study, frame, found, ratings, marks, predictions)


def _concat(frames: list[pd.DataFrame]) -> pd.DataFrame:
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def benchmark_accuracy(predictions: pd.DataFrame) -> dict[str, float]:
    """Each reward model's accuracy on the benchmark: the share of its usable predictions that
    prefer the chosen response (`analysis.models.reward_models.model_preferences`)."""
    if predictions.empty:
        return {}
    usable = model_preferences(predictions)
    usable = usable[usable["usable"]]
    return {str(m): float(g["model_correct"].mean()) for m, g in usable.groupby("model")}


def downstream_report(
    engine: Engine, actor: Actor, study: str, *, n_boot: int = 1000, seed: int = 0
) -> dict[str, Any] | None:
    """The downstream section's figures for benchmark study `study` (None without downstream
    outputs), JSON-ready."""
    inputs = downstream_inputs(engine, actor, study)
    if inputs.outputs.empty:
        return None
    ratings = inputs.ratings if not inputs.ratings.empty else _empty(RATING_COLUMNS)
    marks = inputs.marks if not inputs.marks.empty else _empty(MARK_COLUMNS)
    summary = downstream_summary(
        inputs.outputs,
        inputs.comparisons,
        ratings,
        marks,
        benchmark_accuracy(inputs.predictions),
        n_boot=n_boot,
        seed=seed,
    )
    return None if summary is None else cast(dict[str, Any], to_jsonable(summary))


RATING_COLUMNS = ("study", "pair_id", "annotator", "response", "dimension", "score")
MARK_COLUMNS = ("study", "pair_id", "annotator", "response", "aspect_index", "coverage")


def _empty(columns: tuple[str, ...]) -> pd.DataFrame:
    return pd.DataFrame(columns=list(columns))


def _columns(frame: pd.DataFrame, columns: tuple[str, ...]) -> pd.DataFrame:
    """`frame`'s `columns` that it has (all of them, empty, for an empty frame)."""
    if frame.empty:
        return _empty(columns)
    return frame[[c for c in columns if c in frame.columns]]


def comparison_of(engine: Engine, actor: Actor, study: str) -> dict[str, Any] | None:
    """A comparison study's record (expected and baseline conditions, identical questions), or
    None for any other study (which keeps its tie/divergence verdict)."""
    with read_session(engine) as session:
        require_role(session, actor, *RESULTS_ROLES)
        found = get_study(session, study).comparison
    return dict(found) if is_comparison(found) else None


def with_downstream(
    engine: Engine, actor: Actor, study: str, report: Report, *, n_boot: int = 200, seed: int = 0
) -> Report:
    """The report with its `downstream` key, when the study has downstream outputs (the
    renderers and the card then carry the section)."""
    found = downstream_report(engine, actor, study, n_boot=n_boot, seed=seed)
    return report if found is None else cast(Report, {**report, "downstream": found})


def export_bundle(engine: Engine, actor: Actor, study: str, folder: Path) -> list[Path]:
    """The downstream analysis's inputs as files (`analysis.downstream.bundle`), so it can be
    run without the database; `folder` is created (it must not hold these files already)."""
    inputs = downstream_inputs(engine, actor, study)
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / name for name in FILES]
    taken = [p.name for p in paths if p.exists()]
    if taken:
        raise Conflict(f"{folder} already holds {', '.join(taken)}")
    outputs_frame = inputs.outputs.copy()
    outputs_frame["judge_scores"] = [
        None if v is None else json.dumps(v) for v in outputs_frame["judge_scores"]
    ]
    # only what the analysis reads: no comment, rationale or other free text
    ratings = _columns(inputs.ratings, (*RATING_COLUMNS, "purpose", "pair_excluded"))
    marks = _columns(inputs.marks, (*MARK_COLUMNS, "purpose"))
    outputs_frame.to_csv(paths[0], index=False)
    paths[1].write_text(json.dumps(inputs.comparisons, indent=1), encoding="utf-8")
    ratings.to_csv(paths[2], index=False)
    marks.to_csv(paths[3], index=False)
    accuracy = benchmark_accuracy(inputs.predictions)
    paths[4].write_text(json.dumps(accuracy, indent=1), encoding="utf-8")
    return paths
