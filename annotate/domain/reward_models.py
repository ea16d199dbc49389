"""Reward models' results on a study's pairs: reading the benchmark's two output shapes, checking
them, and storing them all or nothing.

The benchmark's evaluation code (`Martin-qyma/Personalized-RewardBench`) keeps, per model:

* **pointwise** (`evaluation/pointwise.py`): one entry per response,
  `{id, query, answer, label: "chosen"|"rejected", score}`;
* **pairwise** (`evaluation/pairwise.py`): one entry per pair,
  `{id, query, pos_in_a, prediction: "A"|"B", correct_answer, correct, parse_failed, raw_output}`.

Either is read as JSONL, a JSON array or Parquet (`annotate.domain.readers`). A malformed record
is an error located by file, line and field, and nothing is written. A record that is well formed
but unusable (a pair with one of its two scores, a non-finite score, a judge output that could
not be parsed) is stored with its `status` and counted, never dropped. `stage_model_files` reads
and checks (no database); `store_model` writes in the caller's transaction.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
from sqlalchemy import delete, insert
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
from annotate.domain.readers import DatasetError, Problem, ProblemLog, describe_type, read_raw
from annotate.domain.studies import get_study
from annotate.errors import Conflict, Invalid, NotFound
from annotate.vocabulary import (
    MODEL_KINDS,
    RESPONSES,
    SIDES,
    AssignmentStatus,
    ModelKind,
    PredictionStatus,
    Response,
    Side,
)

INSERT_BATCH = 1000
MAX_NAME_CHARS = 100
POINTWISE_FIELDS = ("label", "score")
PAIRWISE_FIELDS = ("prediction", "pos_in_a")


@dataclass
class StagedPrediction:
    """One pair's result, checked, waiting for the write transaction."""

    record_id: str
    file: str
    location: str
    score_chosen: float | None = None
    score_rejected: float | None = None
    prediction: str | None = None
    pos_in_a: bool | None = None
    correct: bool | None = None
    parse_failed: bool = False
    raw_output: str | None = None
    status: str = PredictionStatus.OK


@dataclass
class StagedModel:
    """Every record of a model's files, checked and grouped by pair."""

    kind: str
    files: list[str]
    n_records: int
    predictions: list[StagedPrediction] = field(default_factory=list)

    def content_hash(self) -> str:
        """Hash of the kind and the predictions (locations left out): equal for equal results."""
        rows = sorted(
            (
                {k: v for k, v in asdict(p).items() if k not in ("file", "location")}
                for p in self.predictions
            ),
            key=lambda row: row["record_id"],
        )
        text = json.dumps([self.kind, rows], sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(text.encode()).hexdigest()


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


# ---------------------------------------------------------------- reading and checking


def detect_kind(value: dict[str, Any]) -> str | None:
    """`pointwise` or `pairwise` from a record's fields; None when it has neither's fields."""
    if any(name in value for name in POINTWISE_FIELDS):
        return ModelKind.POINTWISE.value
    if any(name in value for name in PAIRWISE_FIELDS):
        return ModelKind.PAIRWISE.value
    return None


def check_model_name(name: str) -> str:
    cleaned = name.strip()
    if not cleaned or len(cleaned) > MAX_NAME_CHARS:
        raise Invalid(f"a model name must have 1 to {MAX_NAME_CHARS} characters, got {name!r}")
    return cleaned


@dataclass
class _Reader:
    """What checking one model's files accumulates."""

    kind: str | None
    problems: ProblemLog = field(default_factory=ProblemLog)  # capped: memory stays bounded
    kind_from: str = "--kind"
    n_records: int = 0
    pointwise: dict[str, dict[str, tuple[float | None, str, str]]] = field(default_factory=dict)
    pairwise: dict[str, StagedPrediction] = field(default_factory=dict)

    def problem(self, file: str, location: str, message: str, name: str | None = None) -> None:
        self.problems.add(Problem(file, location, message, field=name))


def stage_model_files(paths: Sequence[Path | str], *, kind: str | None = None) -> StagedModel:
    """Read and check every record of a model's files (no database); raise DatasetError listing
    every problem. `kind` None: detected from the first record's fields."""
    if kind is not None and kind not in MODEL_KINDS:
        raise Invalid(f"unknown model kind {kind!r}; expected one of {', '.join(MODEL_KINDS)}")
    reader = _Reader(kind)
    for raw_path in paths:
        path = Path(raw_path)
        if not path.is_file():
            reader.problem(str(path), "file", "no such file")
            continue
        try:
            # A NaN score is a result to count (never dropped), not an unreadable file.
            for location, value in read_raw(path, finite_only=False):
                reader.n_records += 1
                _check_record(reader, str(path), location, value)
        except DatasetError as error:
            reader.problems.absorb(error)
    if reader.kind is None and not reader.problems:
        reader.problem(", ".join(str(p) for p in paths), "file", "no records")
    if reader.problems:
        raise reader.problems.error()
    assert reader.kind is not None
    predictions = (
        _pointwise_predictions(reader)
        if reader.kind == ModelKind.POINTWISE
        else list(reader.pairwise.values())
    )
    return StagedModel(reader.kind, [str(p) for p in paths], reader.n_records, predictions)


def _check_record(reader: _Reader, file: str, location: str, value: Any) -> None:
    if isinstance(value, Problem):  # decoded, but holds a value no record may hold
        reader.problems.add(value)
        return
    if not isinstance(value, dict):
        reader.problem(file, location, "expected a JSON object (one model result)")
        return
    found = detect_kind(value)
    if reader.kind is None:
        if found is None:
            reader.problem(
                file,
                location,
                "cannot tell the model kind: expected pointwise fields (label, score) or "
                "pairwise fields (prediction, pos_in_a); or pass --kind",
            )
            return
        reader.kind, reader.kind_from = found, f"{file}, {location}"
    elif found is not None and found != reader.kind:
        reader.problem(
            file,
            location,
            f"a {found} record, but this model's records are {reader.kind} "
            f"(from {reader.kind_from}); one model's files must all have one shape",
        )
        return
    record_id = value.get("id")
    if not isinstance(record_id, str) or not record_id:
        reader.problem(
            file,
            location,
            f"expected the pair's id as a string, got {describe_type(record_id)}",
            "id",
        )
        return
    if reader.kind == ModelKind.POINTWISE:
        _check_pointwise(reader, file, location, record_id, value)
    else:
        _check_pairwise(reader, file, location, record_id, value)


def _score(value: Any) -> float | str | None:
    """A finite float, None for NaN/inf/null, or the problem (a string) when not a number."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return f"expected a number, got {describe_type(value)}"
    number = float(value)
    return number if math.isfinite(number) else None


def _check_pointwise(
    reader: _Reader, file: str, location: str, record_id: str, value: dict[str, Any]
) -> None:
    label = value.get("label")
    if label not in RESPONSES:
        reader.problem(file, location, f"expected 'chosen' or 'rejected', got {label!r}", "label")
        return
    if "score" not in value:
        reader.problem(file, location, "missing; this field is required", "score")
        return
    score = _score(value["score"])
    if isinstance(score, str):
        reader.problem(file, location, score, "score")
        return
    seen = reader.pointwise.setdefault(record_id, {})
    if label in seen:
        first = seen[label]
        reader.problem(
            file,
            location,
            f"duplicate {label} score for id {record_id!r} (first at {first[1]}, {first[2]})",
            "id",
        )
        return
    seen[label] = (score, file, location)


def _pointwise_predictions(reader: _Reader) -> list[StagedPrediction]:
    out = []
    for record_id, scores in reader.pointwise.items():
        first = min(scores.values(), key=lambda s: (s[1], s[2]))
        chosen = scores.get(Response.CHOSEN)
        rejected = scores.get(Response.REJECTED)
        if chosen is None or rejected is None:
            status = PredictionStatus.MISSING_SCORE
        elif chosen[0] is None or rejected[0] is None:
            status = PredictionStatus.NON_FINITE
        else:
            status = PredictionStatus.OK
        out.append(
            StagedPrediction(
                record_id,
                first[1],
                first[2],
                score_chosen=None if chosen is None else chosen[0],
                score_rejected=None if rejected is None else rejected[0],
                status=status,
            )
        )
    return out


def _check_pairwise(
    reader: _Reader, file: str, location: str, record_id: str, value: dict[str, Any]
) -> None:
    before = reader.problems.total
    pos_in_a = value.get("pos_in_a")
    parse_failed = value.get("parse_failed", False)
    prediction = value.get("prediction")
    raw_output = value.get("raw_output")
    if not isinstance(pos_in_a, bool):
        reader.problem(
            file, location, f"expected true/false, got {describe_type(pos_in_a)}", "pos_in_a"
        )
    if not isinstance(parse_failed, bool):
        reader.problem(
            file,
            location,
            f"expected true/false, got {describe_type(parse_failed)}",
            "parse_failed",
        )
    elif prediction not in SIDES and not (parse_failed and prediction is None):
        reader.problem(file, location, f"expected 'A' or 'B', got {prediction!r}", "prediction")
    if raw_output is not None and not isinstance(raw_output, str):
        reader.problem(
            file, location, f"expected a string, got {describe_type(raw_output)}", "raw_output"
        )
    if reader.problems.total > before:
        return
    expected = Side.A.value if pos_in_a else Side.B.value
    correct = prediction == expected
    if not _consistent(reader, file, location, value, expected, correct):
        return
    if record_id in reader.pairwise:
        first = reader.pairwise[record_id]
        reader.problem(
            file,
            location,
            f"duplicate id {record_id!r} (first at {first.file}, {first.location})",
            "id",
        )
        return
    reader.pairwise[record_id] = StagedPrediction(
        record_id,
        file,
        location,
        prediction=prediction,
        pos_in_a=pos_in_a,
        correct=correct,
        parse_failed=parse_failed,
        raw_output=raw_output,
        status=PredictionStatus.PARSE_FAILED if parse_failed else PredictionStatus.OK,
    )


def _consistent(
    reader: _Reader,
    file: str,
    location: str,
    value: dict[str, Any],
    expected: str,
    correct: bool,
) -> bool:
    """The optional `correct_answer` and `correct` must agree with `pos_in_a` and `prediction`."""
    ok = True
    if "correct_answer" in value and value["correct_answer"] != expected:
        reader.problem(
            file,
            location,
            f"expected {expected!r} (pos_in_a is {value['pos_in_a']}), "
            f"got {value['correct_answer']!r}",
            "correct_answer",
        )
        ok = False
    if "correct" in value and value["correct"] is not correct:
        reader.problem(
            file,
            location,
            f"expected {str(correct).lower()} (prediction {value.get('prediction')!r}, "
            f"correct answer {expected!r}), got {value['correct']!r}",
            "correct",
        )
        ok = False
    return ok


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
"""Columns of `prediction_frame`, the plain table `analysis.reward_models` reads."""


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
    """The annotators' comments on the study's pairs (done assignments with a comment)."""
    study_id = stored_id(get_study(session, study))
    rows = session.exec(
        select(Pair.record_id, Annotator.name, Assignment.comment)
        .join(Pair, col(Pair.id) == col(Assignment.pair_id))
        .join(Annotator, col(Annotator.id) == col(Assignment.annotator_id))
        .where(
            col(Assignment.study_id) == study_id,
            col(Assignment.status) == AssignmentStatus.DONE,
            col(Assignment.comment).is_not(None),
            col(Assignment.comment) != "",
        )
        .order_by(col(Pair.record_id), col(Annotator.name))
    ).all()
    return pd.DataFrame([tuple(r) for r in rows], columns=["pair_id", "annotator", "comment"])


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
