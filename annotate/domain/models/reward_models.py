"""Reward models' results on a study's pairs, stored all or nothing and read back.

`annotate.domain.models.model_files` reads and checks the benchmark's result files (no database);
`store_model` writes what it staged in the caller's transaction, counting the unusable records
(one of two scores, a non-finite score, a judge output that could not be parsed), never
dropping them. The rest reads the results back for the comparison with humans.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
from sqlalchemy import and_, delete, insert, or_
from sqlalchemy import select as sql_select
from sqlmodel import Session, col, select

from annotate.db.tables import (
    Annotator,
    Assignment,
    ModelPrediction,
    Pair,
    RewardModel,
    Study,
    stored_id,
    utcnow,
)
from annotate.domain.dataset.problems import DatasetError, Problem
from annotate.domain.models.model_files import StagedModel, StagedPrediction, check_model_name
from annotate.domain.study.studies import get_study
from annotate.errors import Conflict, NotFound
from annotate.vocabulary import (
    AssignmentStatus,
    PredictionStatus,
)

INSERT_BATCH = 1000


@dataclass(frozen=True)
class ModelImportSummary:
    study: str
    model: str
    kind: str
    outcome: str  # "added", "unchanged" or "replaced"
    n_records: int
    n_pairs: int
    n_unknown: int
    n_missing_score: int
    n_non_finite: int
    n_parse_failed: int


# ---------------------------------------------------------------- writing


def _prediction_row(model_id: int, pair_id: int, item: StagedPrediction) -> dict[str, Any]:
    return {
        "model_id": model_id,
        "pair_id": pair_id,
        "score_chosen": item.score_chosen,
        "score_rejected": item.score_rejected,
        "prediction": item.prediction,
        "pos_in_a": item.pos_in_a,
        "correct": item.correct,
        "parse_failed": item.parse_failed,
        "raw_output": item.raw_output,
        "status": item.status,
    }


def store_model(
    session: Session,
    staged: StagedModel,
    *,
    study: str,
    name: str,
    allow_unknown: bool = False,
    replace: bool = False,
) -> ModelImportSummary:
    """Write a model's staged results into `study` in the caller's transaction.

    Ids that are not pairs of the study: DatasetError (located), or skipped and counted with
    `allow_unknown`. The same results again: nothing changes. Other results under a name already
    imported: Conflict, unless `replace` (the old ones are deleted).
    """
    name = check_model_name(name)
    target = get_study(session, study)
    study_id = stored_id(target)
    pair_ids: dict[str, int] = {
        record_id: pair_id
        for record_id, pair_id in session.exec(
            select(Pair.record_id, Pair.id).where(col(Pair.study_id) == study_id)
        )
        if pair_id is not None
    }
    unknown = [p for p in staged.predictions if p.record_id not in pair_ids]
    if unknown and not allow_unknown:
        raise DatasetError(
            [
                Problem(
                    p.file,
                    p.location,
                    f"id {p.record_id!r} is not a pair of study {study!r}; "
                    "use --allow-unknown to skip such records",
                    field="id",
                )
                for p in unknown
            ]
        )
    known = [p for p in staged.predictions if p.record_id in pair_ids]
    digest = staged.content_hash()
    existing = _model_named(session, study_id, name)
    outcome = "added"
    if existing is not None:
        if existing.content_hash == digest:
            return _summary(target, existing, "unchanged", len(known))
        if not replace:
            raise Conflict(
                f"model {name!r} already has other results in study {study!r} (imported "
                f"{existing.imported_at:%Y-%m-%d %H:%M}); pass --replace to swap them"
            )
        _delete_model(session, existing)
        outcome = "replaced"
    model = RewardModel(
        study_id=study_id,
        name=name,
        kind=staged.kind,
        source_files=[Path(f).name for f in staged.files],
        content_hash=digest,
        n_records=staged.n_records,
        n_unknown=len(unknown),
        n_missing_score=_count(known, PredictionStatus.MISSING_SCORE),
        n_non_finite=_count(known, PredictionStatus.NON_FINITE),
        n_parse_failed=_count(known, PredictionStatus.PARSE_FAILED),
        imported_at=utcnow(),
    )
    session.add(model)
    session.flush()
    model_id = stored_id(model)
    for offset in range(0, len(known), INSERT_BATCH):
        batch = known[offset : offset + INSERT_BATCH]
        session.execute(
            insert(ModelPrediction),
            [_prediction_row(model_id, pair_ids[p.record_id], p) for p in batch],
        )
    return _summary(target, model, outcome, len(known))


def _count(items: list[StagedPrediction], status: str) -> int:
    return sum(1 for p in items if p.status == status)


def _summary(study: Study, model: RewardModel, outcome: str, n_pairs: int) -> ModelImportSummary:
    return ModelImportSummary(
        study=study.name,
        model=model.name,
        kind=model.kind,
        outcome=outcome,
        n_records=model.n_records,
        n_pairs=n_pairs,
        n_unknown=model.n_unknown,
        n_missing_score=model.n_missing_score,
        n_non_finite=model.n_non_finite,
        n_parse_failed=model.n_parse_failed,
    )


def _model_named(session: Session, study_id: int, name: str) -> RewardModel | None:
    return session.exec(
        select(RewardModel).where(
            col(RewardModel.study_id) == study_id, col(RewardModel.name) == name
        )
    ).first()


def _delete_model(session: Session, model: RewardModel) -> None:
    session.execute(delete(ModelPrediction).where(col(ModelPrediction.model_id) == model.id))
    session.delete(model)
    session.flush()


def delete_model(session: Session, study: str, name: str) -> None:
    """Remove a model and its results from the study."""
    model = _model_named(session, stored_id(get_study(session, study)), name)
    if model is None:
        raise NotFound(f"no model {name!r} in study {study!r}")
    _delete_model(session, model)


# ---------------------------------------------------------------- reading back


def study_models(session: Session, study: str) -> list[RewardModel]:
    """The study's models, by name."""
    study_id = stored_id(get_study(session, study))
    return list(
        session.exec(
            select(RewardModel)
            .where(col(RewardModel.study_id) == study_id)
            .order_by(col(RewardModel.name))
        ).all()
    )


PREDICTION_COLUMNS = (
    "model",
    "kind",
    "pair_id",
    "domain",
    "score_chosen",
    "score_rejected",
    "prediction",
    "pos_in_a",
    "correct",
    "parse_failed",
    "status",
)
"""Columns of `prediction_frame`, the plain table `analysis.models.reward_models` reads."""


def prediction_frame(session: Session, study: str) -> pd.DataFrame:
    """Every model's results on the study's pairs, one row per (model, pair); `pair_id` is the
    benchmark record's id, as in the ratings export."""
    study_id = stored_id(get_study(session, study))
    rows = session.execute(
        sql_select(
            col(RewardModel.name),
            col(RewardModel.kind),
            col(Pair.record_id),
            col(Pair.domain),
            col(ModelPrediction.score_chosen),
            col(ModelPrediction.score_rejected),
            col(ModelPrediction.prediction),
            col(ModelPrediction.pos_in_a),
            col(ModelPrediction.correct),
            col(ModelPrediction.parse_failed),
            col(ModelPrediction.status),
        )
        .join(RewardModel, col(RewardModel.id) == col(ModelPrediction.model_id))
        .join(Pair, col(Pair.id) == col(ModelPrediction.pair_id))
        .where(col(RewardModel.study_id) == study_id)
        .order_by(col(RewardModel.name), col(Pair.id))
    ).all()
    return pd.DataFrame([tuple(r) for r in rows], columns=list(PREDICTION_COLUMNS))


def pair_comments(session: Session, study: str) -> pd.DataFrame:
    """The annotators' comments on the study's pairs (done assignments with a comment), and the
    rationales given with a direct preference ("rationale: ..."), for the label audit."""
    study_id = stored_id(get_study(session, study))
    said = or_(
        and_(col(Assignment.comment).is_not(None), col(Assignment.comment) != ""),
        col(Assignment.rationale).is_not(None),
    )
    rows = session.exec(
        select(Pair.record_id, Annotator.name, Assignment.comment, Assignment.rationale)
        .join(Pair, col(Pair.id) == col(Assignment.pair_id))
        .join(Annotator, col(Annotator.id) == col(Assignment.annotator_id))
        .where(
            col(Assignment.study_id) == study_id,
            col(Assignment.status) == AssignmentStatus.DONE,
            said,
        )
        .order_by(col(Pair.record_id), col(Annotator.name))
    ).all()
    texts = [
        (pair, name, " ".join(filter(None, [comment, f"rationale: {why}" if why else None])))
        for pair, name, comment, why in rows
    ]
    return pd.DataFrame(texts, columns=["pair_id", "annotator", "comment"])


def pair_texts(session: Session, study: str, record_id: str) -> Pair:
    """One pair of the study, for the audit's drill-down (texts as stored: untrusted)."""
    study_id = stored_id(get_study(session, study))
    pair = session.exec(
        select(Pair).where(col(Pair.study_id) == study_id, col(Pair.record_id) == record_id)
    ).first()
    if pair is None:
        raise NotFound(f"no pair {record_id!r} in study {study!r}")
    session.expunge(pair)
    return pair


@dataclass(frozen=True)
class PairPrediction:
    """One model's result on one pair, for the audit's drill-down (raw_output is untrusted)."""

    model: str
    kind: str
    score_chosen: float | None
    score_rejected: float | None
    prediction: str | None
    pos_in_a: bool | None
    correct: bool | None
    status: str
    raw_output: str | None


def pair_predictions(session: Session, study: str, record_id: str) -> list[PairPrediction]:
    """Every model's result on one pair of the study, by model name."""
    pair = pair_texts(session, study, record_id)
    rows = session.execute(
        sql_select(
            col(RewardModel.name),
            col(RewardModel.kind),
            col(ModelPrediction.score_chosen),
            col(ModelPrediction.score_rejected),
            col(ModelPrediction.prediction),
            col(ModelPrediction.pos_in_a),
            col(ModelPrediction.correct),
            col(ModelPrediction.status),
            col(ModelPrediction.raw_output),
        )
        .join(RewardModel, col(RewardModel.id) == col(ModelPrediction.model_id))
        .where(col(ModelPrediction.pair_id) == pair.id)
        .order_by(col(RewardModel.name))
    ).all()
    return [PairPrediction(*row) for row in rows]
