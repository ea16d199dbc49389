"""Importing reward models' results (issue 13): both shapes of the benchmark's evaluation code,
every bad input located and nothing written, counted problems, idempotent re-import, --replace.

Runs on SQLite, and on PostgreSQL with PRB_TEST_DATABASE_URL (conftest)."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from sqlmodel import select

from annotate.db import read_session, write_session
from annotate.db.tables import ModelPrediction, RewardModel, stored_id
from annotate.domain.dataset.problems import DatasetError
from annotate.domain.models.model_files import detect_kind
from annotate.domain.study import accounts
from annotate.domain.study.permissions import SYSTEM
from annotate.errors import Conflict, Forbidden, Invalid, NotFound
from annotate.services.admin import data
from annotate.services.results import reward_models
from annotate.vocabulary import Role

STUDY = "s"
IDS = ("p1", "p2", "p3")


@pytest.fixture
def study(engine, tmp_path, make_record, write_records):
    path = write_records(tmp_path / "Art_test.jsonl", [make_record(i) for i in IDS])
    data.import_files(engine, SYSTEM, [path], study=STUDY)
    return engine


def pointwise(scores: dict[str, tuple[Any, Any]]) -> list[dict[str, Any]]:
    """The benchmark's pointwise entries: two per pair (None: that entry is left out)."""
    rows = []
    for record_id, (chosen, rejected) in scores.items():
        for label, score in (("chosen", chosen), ("rejected", rejected)):
            if score is not None:
                rows.append(
                    {"id": record_id, "query": "q", "answer": "a", "label": label, "score": score}
                )
    return rows


def pairwise(record_id: str, pos_in_a: bool, prediction: str, **extra: Any) -> dict[str, Any]:
    correct_answer = "A" if pos_in_a else "B"
    row = {
        "id": record_id,
        "query": "q",
        "pos_in_a": pos_in_a,
        "prediction": prediction,
        "correct_answer": correct_answer,
        "correct": prediction == correct_answer,
        "parse_failed": False,
        "raw_output": f"Result: {prediction}",
    }
    row.update(extra)
    return row


def write(path: Path, rows: list[dict[str, Any]]) -> Path:
    if path.suffix == ".jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    elif path.suffix == ".json":
        path.write_text("[\n" + ",\n".join(json.dumps(r) for r in rows) + "\n]", encoding="utf-8")
    else:
        pd.DataFrame(rows).to_parquet(path)
    return path


def predictions(engine) -> list[tuple[Any, ...]]:
    with read_session(engine) as session:
        rows = session.exec(select(ModelPrediction).order_by(ModelPrediction.id)).all()
        return [
            (r.score_chosen, r.score_rejected, r.prediction, r.pos_in_a, r.correct, r.status)
            for r in rows
        ]


def account(engine, name: str, role: str) -> int:
    with write_session(engine) as session:
        created, _ = accounts.create_account(session, name, role=role)
        return stored_id(created)


def problems(error: pytest.ExceptionInfo[DatasetError]) -> list[str]:
    return [str(p) for p in error.value.problems]


# ---------------------------------------------------------------- good input


@pytest.mark.parametrize("suffix", [".jsonl", ".json", ".parquet"])
def test_pointwise_results_import_in_every_format(study, tmp_path, suffix):
    rows = pointwise({"p1": (2.5, 1.0), "p2": (0.1, 0.7), "p3": (3, 3)})
    path = write(tmp_path / f"rm{suffix}", rows)
    summary = reward_models.import_model(study, SYSTEM, [path], study=STUDY, model="rm")
    assert (summary.kind, summary.outcome, summary.n_records, summary.n_pairs) == (
        "pointwise",
        "added",
        6,
        3,
    )
    assert predictions(study) == [
        (2.5, 1.0, None, None, None, "ok"),
        (0.1, 0.7, None, None, None, "ok"),
        (3.0, 3.0, None, None, None, "ok"),
    ]


@pytest.mark.parametrize("suffix", [".jsonl", ".json", ".parquet"])
def test_pairwise_results_import_in_every_format(study, tmp_path, suffix):
    rows = [pairwise("p1", True, "A"), pairwise("p2", False, "A"), pairwise("p3", False, "B")]
    path = write(tmp_path / f"judge{suffix}", rows)
    summary = reward_models.import_model(study, SYSTEM, [path], study=STUDY, model="judge")
    assert (summary.kind, summary.n_pairs) == ("pairwise", 3)
    assert predictions(study) == [
        (None, None, "A", True, True, "ok"),
        (None, None, "A", False, False, "ok"),
        (None, None, "B", False, True, "ok"),
    ]


def test_kind_is_detected_from_the_fields():
    assert detect_kind({"id": "x", "label": "chosen", "score": 1}) == "pointwise"
    assert detect_kind({"id": "x", "prediction": "A", "pos_in_a": True}) == "pairwise"
    assert detect_kind({"id": "x"}) is None


def test_several_files_make_one_model(study, tmp_path):
    first = write(tmp_path / "a.jsonl", pointwise({"p1": (1, 0)}))
    second = write(tmp_path / "b.json", pointwise({"p2": (0, 1), "p3": (1, 0)}))
    summary = reward_models.import_model(study, SYSTEM, [first, second], study=STUDY, model="m")
    assert summary.n_pairs == 3
    (model,) = reward_models.list_models(study, SYSTEM, STUDY)
    assert model.source_files == ["a.jsonl", "b.json"]


def test_counted_problems_are_stored_and_counted_never_dropped(study, tmp_path):
    rows = pointwise({"p1": (1.0, None), "p2": (float("nan"), 0.5), "p3": (None, 2.0)})
    rows.append({"id": "p3", "label": "chosen", "score": None})  # pandas writes NaN as null
    path = tmp_path / "rm.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")  # NaN literal
    summary = reward_models.import_model(study, SYSTEM, [path], study=STUDY, model="rm")
    assert (summary.n_pairs, summary.n_missing_score, summary.n_non_finite) == (3, 1, 2)
    assert predictions(study) == [
        (1.0, None, None, None, None, "missing_score"),
        (None, 0.5, None, None, None, "non_finite"),
        (None, 2.0, None, None, None, "non_finite"),
    ]


def test_infinite_scores_in_parquet_are_counted(study, tmp_path):
    path = write(tmp_path / "rm.parquet", pointwise({"p1": (math.inf, 0.0), "p2": (1.0, 0.0)}))
    summary = reward_models.import_model(study, SYSTEM, [path], study=STUDY, model="rm")
    assert (summary.n_pairs, summary.n_non_finite) == (2, 1)


def test_parse_failures_are_counted(study, tmp_path):
    failed = pairwise("p2", False, "A", parse_failed=True, raw_output="I cannot <b>decide</b>")
    path = write(tmp_path / "j.jsonl", [pairwise("p1", True, "A"), failed])
    summary = reward_models.import_model(study, SYSTEM, [path], study=STUDY, model="j")
    assert summary.n_parse_failed == 1
    assert predictions(study)[1] == (None, None, "A", False, False, "parse_failed")


# ---------------------------------------------------------------- bad input, nothing written


BAD_POINTWISE = [
    ({"id": "p1", "label": "best", "score": 1}, "line 1, field 'label': expected 'chosen' or"),
    ({"id": "p1", "label": "chosen"}, "line 1, field 'score': missing"),
    ({"id": "p1", "label": "chosen", "score": "1.5"}, "field 'score': expected a number, got a s"),
    ({"id": "p1", "label": "chosen", "score": True}, "field 'score': expected a number, got true"),
    ({"id": 7, "label": "chosen", "score": 1}, "field 'id': expected the pair's id as a string"),
    ({"label": "chosen", "score": 1}, "field 'id': expected the pair's id as a string, got null"),
]


@pytest.mark.parametrize(("row", "expected"), BAD_POINTWISE)
def test_a_bad_pointwise_record_is_located_and_nothing_is_written(
    study, tmp_path, snapshot, row, expected
):
    before = snapshot(study)
    path = write(tmp_path / "rm.jsonl", [row, *pointwise({"p2": (1, 0)})])
    with pytest.raises(DatasetError) as error:
        reward_models.import_model(study, SYSTEM, [path], study=STUDY, model="rm")
    assert any(expected in p and p.startswith(str(path)) for p in problems(error)), problems(error)
    assert snapshot(study) == before


BAD_PAIRWISE = [
    ({"pos_in_a": "yes"}, "field 'pos_in_a': expected true/false, got a string"),
    ({"prediction": "C"}, "field 'prediction': expected 'A' or 'B', got 'C'"),
    ({"parse_failed": 1}, "field 'parse_failed': expected true/false, got a number"),
    ({"raw_output": ["x"]}, "field 'raw_output': expected a string, got a list"),
    ({"correct_answer": "B"}, "field 'correct_answer': expected 'A' (pos_in_a is True)"),
    ({"correct": False}, "field 'correct': expected true"),
]


@pytest.mark.parametrize(("change", "expected"), BAD_PAIRWISE)
def test_a_bad_pairwise_record_is_located_and_nothing_is_written(
    study, tmp_path, snapshot, change, expected
):
    before = snapshot(study)
    rows = [pairwise("p1", False, "B"), {**pairwise("p2", True, "A"), **change}]
    path = write(tmp_path / "j.json", rows)
    with pytest.raises(DatasetError) as error:
        reward_models.import_model(study, SYSTEM, [path], study=STUDY, model="j")
    assert any(f"{path}, line 3, {expected}" in p for p in problems(error)), problems(error)
    assert snapshot(study) == before


def test_every_problem_of_every_file_is_listed(study, tmp_path, snapshot):
    before = snapshot(study)
    first = write(tmp_path / "a.jsonl", [{"id": "p1", "label": "x", "score": 1}])
    second = write(tmp_path / "b.jsonl", [{"id": "p2", "label": "chosen", "score": "no"}])
    with pytest.raises(DatasetError) as error:
        reward_models.import_model(
            study, SYSTEM, [first, second, tmp_path / "missing.jsonl"], study=STUDY, model="m"
        )
    found = problems(error)
    assert len(found) == 3
    assert found[2] == f"{tmp_path / 'missing.jsonl'}, file: no such file"
    assert snapshot(study) == before


def test_duplicates_are_errors(study, tmp_path):
    rows = [*pointwise({"p1": (1, 0)}), {"id": "p1", "label": "chosen", "score": 2}]
    path = write(tmp_path / "rm.jsonl", rows)
    with pytest.raises(DatasetError) as error:
        reward_models.import_model(study, SYSTEM, [path], study=STUDY, model="rm")
    assert problems(error) == [
        f"{path}, line 3, field 'id': duplicate chosen score for id 'p1' (first at {path}, line 1)"
    ]
    path = write(tmp_path / "j.jsonl", [pairwise("p1", True, "A"), pairwise("p1", True, "B")])
    with pytest.raises(DatasetError, match="line 2, field 'id': duplicate id 'p1'"):
        reward_models.import_model(study, SYSTEM, [path], study=STUDY, model="j")


def test_mixed_shapes_and_unknown_shapes_are_errors(study, tmp_path):
    path = write(tmp_path / "m.jsonl", [*pointwise({"p1": (1, 0)}), pairwise("p2", True, "A")])
    with pytest.raises(DatasetError, match="line 3: a pairwise record, but this model's"):
        reward_models.import_model(study, SYSTEM, [path], study=STUDY, model="m")
    path = write(tmp_path / "n.jsonl", [{"id": "p1", "verdict": "A"}])
    with pytest.raises(DatasetError, match="line 1: cannot tell the model kind"):
        reward_models.import_model(study, SYSTEM, [path], study=STUDY, model="n")
    path = write(tmp_path / "k.jsonl", pointwise({"p1": (1, 0)}))
    with pytest.raises(
        DatasetError,
        match="line 1: a pointwise record, but this model's records are pairwise \\(from --kind\\)",
    ):
        reward_models.import_model(study, SYSTEM, [path], study=STUDY, model="k", kind="pairwise")
    with pytest.raises(Invalid, match="unknown model kind"):
        reward_models.import_model(study, SYSTEM, [path], study=STUDY, model="k", kind="listwise")


def test_broken_files_are_located(study, tmp_path):
    path = tmp_path / "rm.jsonl"
    path.write_text(json.dumps(pointwise({"p1": (1, 0)})[0]) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=re.escape("rm.jsonl, line 2, column 2: invalid JSON")):
        reward_models.import_model(study, SYSTEM, [path], study=STUDY, model="rm")
    path = tmp_path / "rm.parquet"
    path.write_bytes(b"PAR1 not really")
    with pytest.raises(DatasetError, match="not a readable Parquet file"):
        reward_models.import_model(study, SYSTEM, [path], study=STUDY, model="rm")
    path = write(tmp_path / "rm.json", ["not an object"])  # type: ignore[list-item]
    with pytest.raises(DatasetError, match="line 2: expected a JSON object"):
        reward_models.import_model(study, SYSTEM, [path], study=STUDY, model="rm")


def test_unknown_ids_are_errors_unless_allowed(study, tmp_path, snapshot):
    path = write(tmp_path / "rm.jsonl", pointwise({"p1": (1, 0), "zz": (1, 0)}))
    before = snapshot(study)
    with pytest.raises(DatasetError) as error:
        reward_models.import_model(study, SYSTEM, [path], study=STUDY, model="rm")
    assert problems(error) == [
        f"{path}, line 3, field 'id': id 'zz' is not a pair of study 's'; "
        "use --allow-unknown to skip such records"
    ]
    assert snapshot(study) == before
    summary = reward_models.import_model(
        study, SYSTEM, [path], study=STUDY, model="rm", allow_unknown=True
    )
    assert (summary.n_pairs, summary.n_unknown) == (1, 1)


def test_an_unknown_study_or_a_bad_name_is_refused(study, tmp_path):
    path = write(tmp_path / "rm.jsonl", pointwise({"p1": (1, 0)}))
    with pytest.raises(NotFound):
        reward_models.import_model(study, SYSTEM, [path], study="nope", model="rm")
    with pytest.raises(Invalid, match="model name"):
        reward_models.import_model(study, SYSTEM, [path], study=STUDY, model="  ")


# ---------------------------------------------------------------- re-import and replace


def test_reimport_is_idempotent_and_replace_swaps(study, tmp_path, snapshot):
    first = write(tmp_path / "rm.jsonl", pointwise({"p1": (1, 0), "p2": (0, 1)}))
    reward_models.import_model(study, SYSTEM, [first], study=STUDY, model="rm")
    before = snapshot(study)
    again = write(tmp_path / "again.json", list(reversed(pointwise({"p2": (0, 1), "p1": (1, 0)}))))
    summary = reward_models.import_model(study, SYSTEM, [again], study=STUDY, model="rm")
    assert summary.outcome == "unchanged"
    assert snapshot(study) == before
    other = write(tmp_path / "other.jsonl", pointwise({"p1": (0, 1), "p3": (2, 1)}))
    with pytest.raises(Conflict, match="pass --replace"):
        reward_models.import_model(study, SYSTEM, [other], study=STUDY, model="rm")
    assert snapshot(study) == before
    summary = reward_models.import_model(
        study, SYSTEM, [other], study=STUDY, model="rm", replace=True
    )
    assert summary.outcome == "replaced"
    assert predictions(study) == [
        (0.0, 1.0, None, None, None, "ok"),
        (2.0, 1.0, None, None, None, "ok"),
    ]
    with read_session(study) as session:
        assert len(session.exec(select(RewardModel)).all()) == 1


def test_only_admins_import_and_annotators_see_no_models(study, tmp_path):
    path = write(tmp_path / "rm.jsonl", pointwise({"p1": (1, 0)}))
    annotator = account(study, "ann", Role.ANNOTATOR)
    with pytest.raises(Forbidden):
        reward_models.import_model(study, annotator, [path], study=STUDY, model="rm")
    reward_models.import_model(study, SYSTEM, [path], study=STUDY, model="rm")
    with pytest.raises(Forbidden):
        reward_models.list_models(study, annotator, STUDY)
    with pytest.raises(Forbidden):
        reward_models.model_inputs(study, annotator, STUDY)
    researcher = account(study, "res", Role.RESEARCHER)
    assert [m.name for m in reward_models.list_models(study, researcher, STUDY)] == ["rm"]


def test_an_empty_file_or_an_unsupported_type_is_refused(study, tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=re.escape("empty.jsonl, file: no records")):
        reward_models.import_model(study, SYSTEM, [empty], study=STUDY, model="rm")
    csv = tmp_path / "rm.csv"
    csv.write_text("id,label,score\np1,chosen,1\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=re.escape("rm.csv, file: unsupported file type '.csv'")):
        reward_models.import_model(study, SYSTEM, [csv], study=STUDY, model="rm")
