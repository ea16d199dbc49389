"""Reward models' results in a study: import (admin), and the comparison with the humans
(admin or researcher). Model results are never part of anything an annotator is sent.

`import_model` reads and checks the files before its write transaction (a long read never holds
the write lock), then checks the actor again and writes everything or nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from sqlalchemy.engine import Engine

from analysis.models.reward_models import attach_reward_models, label_audit_frame
from analysis.schema.report_types import Report
from annotate.db import read_session
from annotate.db.tables import Pair, RewardModel
from annotate.domain.exports.export import ratings_dataframe
from annotate.domain.models import model_files, reward_models
from annotate.domain.models.reward_models import ModelImportSummary, PairPrediction
from annotate.domain.study.permissions import RESULTS_ROLES, Actor, require_admin, require_role
from annotate.domain.study.questionnaire import questionnaire_of
from annotate.domain.study.studies import get_study
from annotate.questionnaire import DEFAULT_QUESTIONNAIRE, Questionnaire
from annotate.services.audited import admin_change
from annotate.services.results.reporting import pseudonymous


def import_model(
    engine: Engine,
    actor: Actor,
    paths: Sequence[Path | str],
    *,
    study: str,
    model: str,
    kind: str | None = None,
    allow_unknown: bool = False,
    replace: bool = False,
) -> ModelImportSummary:
    """Import one model's result files into `study`: all of them, or nothing.

    Raises DatasetError listing every problem (file, line, field), Conflict when the model
    already has other results and `replace` is not set, PermissionDenied unless admin.
    """
    with read_session(engine) as session:
        require_admin(session, actor)
    model_files.check_model_name(model)
    staged = model_files.stage_model_files(paths, kind=kind)
    with admin_change(engine, actor, "models.import", study) as change:
        summary = reward_models.store_model(
            change.session,
            staged,
            study=study,
            name=model,
            allow_unknown=allow_unknown,
            replace=replace,
        )
        change.after = {"model": model, "kind": summary.kind, "outcome": summary.outcome}
        change.changed = summary.outcome != "unchanged"
        return summary


def delete_model(engine: Engine, actor: Actor, *, study: str, model: str) -> None:
    with admin_change(engine, actor, "models.delete", study) as change:
        change.before = {"model": model}
        reward_models.delete_model(change.session, study, model)


def list_models(engine: Engine, actor: Actor, study: str) -> list[RewardModel]:
    """The study's models (rows detached from the session), by name."""
    with read_session(engine) as session:
        require_role(session, actor, *RESULTS_ROLES)
        return reward_models.study_models(session, study)


@dataclass(frozen=True)
class ModelInputs:
    """What the comparison reads: the ratings export, the models' results, the comments."""

    study: str
    ratings: pd.DataFrame
    predictions: pd.DataFrame
    comments: pd.DataFrame
    questionnaire: Questionnaire = DEFAULT_QUESTIONNAIRE  # the study's: votes on its target


def model_inputs(
    engine: Engine, actor: Actor, study: str, ratings: pd.DataFrame | None = None
) -> ModelInputs:
    """The comparison's inputs; `ratings`: the study's ratings export when the caller has it
    already (else it is read here)."""
    with read_session(engine) as session:
        require_role(session, actor, *RESULTS_ROLES)
        predictions = reward_models.prediction_frame(session, study)
        comments = reward_models.pair_comments(session, study)
        asked = questionnaire_of(get_study(session, study))
    if ratings is None:
        ratings = pseudonymous(engine, ratings_dataframe(engine, study))
    comments = pseudonymous(engine, comments, study)
    return ModelInputs(study, ratings, predictions, comments, asked)


def with_reward_models(report: Report, inputs: ModelInputs) -> Report:
    """The validation report with its reward-model keys (`reward_models`, `label_audit`).

    The pairs an admin excluded from the analysis (the report's exclusions) are left out of
    the comparison too, as from every other figure, and so are the annotators the study's
    pre-registered exclusion rules exclude.
    """
    left_out = {e["pair_id"] for e in report["exclusions"]["excluded_pairs"]}
    people = set(report["exclusion_rules"]["excluded"]) if "exclusion_rules" in report else set()
    ratings = inputs.ratings[
        ~inputs.ratings["pair_id"].isin(left_out) & ~inputs.ratings["annotator"].isin(people)
    ]
    predictions = inputs.predictions[~inputs.predictions["pair_id"].isin(left_out)]
    return attach_reward_models(report, ratings, predictions)


def audit_table(inputs: ModelInputs) -> pd.DataFrame:
    """The label audit with scores, comments and models wrong, for CSV."""
    return label_audit_frame(
        inputs.ratings, inputs.predictions, inputs.comments, inputs.questionnaire
    )


@dataclass(frozen=True)
class AuditedPair:
    """A pair of the label audit: its texts, every model's result and the comments."""

    pair: Pair
    predictions: list[PairPrediction]
    comments: list[tuple[str, str]]  # (annotator, comment)


def audited_pair_detail(engine: Engine, actor: Actor, study: str, record_id: str) -> AuditedPair:
    """One pair's drill-down (texts and model outputs are untrusted: render inert)."""
    with read_session(engine) as session:
        require_role(session, actor, *RESULTS_ROLES)
        predictions = reward_models.pair_predictions(session, study, record_id)
        comments = reward_models.pair_comments(session, study)
        pair = reward_models.pair_texts(session, study, record_id)
    mine = pseudonymous(engine, comments[comments["pair_id"] == record_id], study)
    return AuditedPair(
        pair, predictions, list(zip(mine["annotator"], mine["comment"], strict=True))
    )
