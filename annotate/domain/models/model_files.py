"""Reward models' result files: the benchmark's two output shapes, read and checked (no database).

The benchmark's evaluation code (`Martin-qyma/Personalized-RewardBench`) keeps, per model:

* **pointwise** (`evaluation/pointwise.py`): one entry per response,
  `{id, query, answer, label: "chosen"|"rejected", score}`;
* **pairwise** (`evaluation/pairwise.py`): one entry per pair,
  `{id, query, pos_in_a, prediction: "A"|"B", correct_answer, correct, parse_failed, raw_output}`.

Either is read as JSONL, a JSON array or Parquet (`annotate.domain.dataset.readers`). A malformed
record is an error located by file, line and field (`stage_model_files` raises DatasetError listing
them). A record that is well formed but unusable (a pair with one of its two scores, a
non-finite score, a judge output that could not be parsed) is staged with its `status`, to be
stored and counted, never dropped. `annotate.domain.models.reward_models` writes what is staged.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from annotate.domain.dataset.problems import DatasetError, Problem, ProblemLog
from annotate.domain.dataset.readers import RecordLimit, read_raw
from annotate.domain.dataset.strict_json import describe_type
from annotate.errors import Invalid
from annotate.vocabulary import (
    MODEL_KINDS,
    RESPONSES,
    SIDES,
    ModelKind,
    PredictionStatus,
    Response,
    Side,
)

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
    reader, limit = _Reader(kind), RecordLimit()
    for raw_path in paths:
        path = Path(raw_path)
        if not path.is_file():
            reader.problem(str(path), "file", "no such file")
            continue
        try:
            # A NaN score is a result to count (never dropped), not an unreadable file.
            for location, value in read_raw(path, finite_only=False, limit=limit):
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
