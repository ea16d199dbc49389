"""Downstream outputs and comparison studies (issue 25): import a condition's files (admin,
audited), build a comparison study from two conditions (admin, audited), and the inputs of the
downstream analysis (results roles). Files are read and checked before the write transaction, so
a long read never holds the write lock. Outputs, judge scores and which condition is expected to
win are never part of anything an annotator is sent.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
from sqlalchemy.engine import Engine

from annotate.db import read_session
from annotate.db.tables import DownstreamCondition
from annotate.domain.downstream import comparison, outputs
from annotate.domain.downstream.comparison import ComparisonSummary
from annotate.domain.downstream.conditions import parse_condition
from annotate.domain.downstream.files import stage_condition
from annotate.domain.downstream.outputs import ConditionSummary
from annotate.domain.study.permissions import RESULTS_ROLES, Actor, require_admin, require_role
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
