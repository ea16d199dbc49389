"""Importing downstream outputs (issue 25, item 1): the benchmark's Best-of-N and PPO files as its
scripts write them (`BoN/score.py`, `BoN/evaluate.py`, `PPO/infer.py`, `PPO/evaluate.py`), joined
by id with the study's pairs, all or nothing with every problem located, unusable judge answers
stored and counted, re-import idempotent.

Runs on SQLite, and on PostgreSQL with PRB_TEST_DATABASE_URL (conftest)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from sqlmodel import select

from annotate.db import read_session
from annotate.db.tables import DownstreamCondition, DownstreamOutput
from annotate.domain.dataset.problems import DatasetError
from annotate.domain.downstream.conditions import parse_condition
from annotate.domain.study.permissions import SYSTEM
from annotate.errors import Conflict, Invalid
from annotate.services.admin import data
from annotate.services.results import downstream

STUDY = "bench"
IDS = ("p1", "p2", "p3", "p4")


@pytest.fixture
def study(engine, tmp_path, make_record, write_records):
    path = write_records(tmp_path / "Art_test.jsonl", [make_record(i) for i in IDS])
    data.import_files(engine, SYSTEM, [path], study=STUDY)
    return engine


def bon_rows(tag: str = "") -> list[dict[str, Any]]:
    """`BoN/score.py`'s select_best_of_k: {id, query, output, aspects, score}."""
    return [
        {"id": i, "query": f"q {i}", "output": f"best answer {i}{tag}", "aspects": "a, b",
         "score": 0.5 + n / 10}
        for n, i in enumerate(IDS)
    ]  # fmt: skip


def eval_rows(outputs: list[dict[str, Any]], key: str = "output") -> list[dict[str, Any]]:
    """`BoN/evaluate.py`'s evaluate_answers: {id, query, answer, aspects, scores,
    average_score}; p1 properly scored, p2 an empty list, p3 a stray 3, p4 three scores for the
    pair's two aspects."""
    scores = {"p1": [2.0, 1.0], "p2": [], "p3": [2.0, 3.0], "p4": [1.0, 1.0, 2.0]}
    return [
        {"id": r["id"], "query": "q", "answer": r[key], "aspects": "a, b",
         "scores": scores[r["id"]],
         "average_score": sum(scores[r["id"]]) / len(scores[r["id"]]) if scores[r["id"]] else 0.0}
        for r in outputs
    ]  # fmt: skip


def write(path: Path, rows: list[dict[str, Any]]) -> Path:
    if path.suffix == ".jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    elif path.suffix == ".json":
        path.write_text("[\n" + ",\n".join(json.dumps(r) for r in rows) + "\n]", encoding="utf-8")
    else:
        pd.DataFrame(rows).to_parquet(path)
    return path


def stored(engine) -> dict[str, tuple[Any, ...]]:
    with read_session(engine) as session:
        rows = session.exec(select(DownstreamOutput).order_by(DownstreamOutput.id)).all()
        return {
            str(r.pair_id): (r.output, r.rm_score, r.judge_scores, r.judge_status) for r in rows
        }


@pytest.mark.parametrize("suffix", [".jsonl", ".json", ".parquet"])
def test_bon_outputs_and_eval_import_with_every_unusable_answer_counted(study, tmp_path, suffix):
    outputs = write(tmp_path / f"Art_k16{suffix}", bon_rows())
    judged = write(tmp_path / f"Art_eval_k16{suffix}", eval_rows(bon_rows()))
    summary = downstream.import_condition(
        study, SYSTEM, study=STUDY, condition="bon:skywork-3b:k16",
        outputs_file=outputs, eval_file=judged,
    )  # fmt: skip
    assert (summary.outcome, summary.n_records, summary.n_judged, summary.n_unparsed) == (
        "added",
        4,
        4,
        3,
    )
    rows = sorted(stored(study).values())
    assert [r[3] for r in rows] == ["ok", "empty", "out_of_scale", "wrong_count"]
    assert rows[0] == ("best answer p1", 0.5, [2.0, 1.0], "ok")
    assert rows[3][2] == [1.0, 1.0, 2.0]  # kept as written, never cut to the rubric's length
    with read_session(study) as session:
        condition = session.exec(select(DownstreamCondition)).one()
    assert (condition.kind, condition.model, condition.k) == ("bon", "skywork-3b", 16)


def test_the_same_content_again_changes_nothing_and_other_content_needs_replace(
    study, tmp_path, snapshot
):
    outputs = write(tmp_path / "Art_k1.jsonl", bon_rows())
    args = {"study": STUDY, "condition": "bon:m:k1", "outputs_file": outputs}
    downstream.import_condition(study, SYSTEM, **args)
    before = snapshot(study)
    assert downstream.import_condition(study, SYSTEM, **args).outcome == "unchanged"
    assert snapshot(study) == before
    changed = write(tmp_path / "Art_k1b.jsonl", bon_rows(" (new)"))
    with pytest.raises(Conflict, match="--replace"):
        downstream.import_condition(study, SYSTEM, **{**args, "outputs_file": changed})
    assert snapshot(study) == before
    summary = downstream.import_condition(
        study, SYSTEM, **{**args, "outputs_file": changed}, replace=True
    )
    assert summary.outcome == "replaced"
    assert {r[0] for r in stored(study).values()} == {f"best answer {i} (new)" for i in IDS}


def test_unknown_ids_are_refused_located_unless_skipped(study, tmp_path, snapshot):
    rows = [*bon_rows(), {"id": "nope", "query": "q", "output": "x", "aspects": "", "score": 1}]
    outputs = write(tmp_path / "Art_k2.jsonl", rows)
    before = snapshot(study)
    with pytest.raises(DatasetError) as error:
        downstream.import_condition(
            study, SYSTEM, study=STUDY, condition="bon:m:k2", outputs_file=outputs
        )
    assert str(error.value) == (
        f"{outputs}, line 5, field 'id': id 'nope' is not a benchmark pair of the study"
    )
    assert snapshot(study) == before
    summary = downstream.import_condition(
        study, SYSTEM, study=STUDY, condition="bon:m:k2", outputs_file=outputs, skip_unknown=True
    )
    assert (summary.n_records, summary.n_unknown) == (5, 1)
    assert len(stored(study)) == 4


def test_every_problem_is_located_and_nothing_is_written(study, tmp_path, snapshot):
    rows = bon_rows()
    rows[0] = {**rows[0], "score": "high"}
    del rows[1]["output"]
    rows.append({**rows[2], "id": "p5"})  # no judge's answer
    outputs = write(tmp_path / "Art_k4.jsonl", rows)
    answers = eval_rows(bon_rows())
    answers[2] = {**answers[2], "answer": "another text"}
    answers[3] = {**answers[3], "scores": "[2, 1]"}
    stray = {**answers[0], "id": "p9"}
    judged = write(tmp_path / "Art_eval_k4.jsonl", [*answers, {**answers[0], "id": "p1"}, stray])
    before = snapshot(study)
    with pytest.raises(DatasetError) as error:
        downstream.import_condition(
            study, SYSTEM, study=STUDY, condition="bon:m:k4",
            outputs_file=outputs, eval_file=judged,
        )  # fmt: skip
    assert str(error.value).splitlines() == [
        f"{outputs}, line 1, field 'score': expected the reward model's score as a number, "
        "got a string",
        f"{outputs}, line 2, field 'output': expected the response as a string, got no such field",
        f"{judged}, line 4, field 'scores': expected the judge's list of scores, got a string",
        f"{judged}, line 5, field 'id': id 'p1' again (first at line 1)",
        f"{judged}, line 3, field 'answer': the answer differs from the output at {outputs}, "
        "line 3",
        f"{judged}, line 6, field 'id': id 'p9' is not in the outputs file",
        f"{outputs}, line 5, field 'id': id 'p5' has no judge's answer in {judged}",
    ]
    assert snapshot(study) == before


def test_ppo_inference_and_evaluation_as_ppo_scripts_write_them(study, tmp_path):
    # PPO/infer.py: {id, question, profile, evaluation, aspects: the rubric_aspects list}
    inference = [
        {"id": i, "question": "q", "profile": "Post 1 (Category: x):\nt",
         "evaluation": f"policy answer {i}", "aspects": [{"aspect": "a", "evidence": "e",
                                                           "reason": "r"}]}
        for i in IDS
    ]  # fmt: skip
    outputs = write(tmp_path / "Art_step300_inference.jsonl", inference)
    judged = write(tmp_path / "Art_step300_evaluation.jsonl", eval_rows(inference, "evaluation"))
    summary = downstream.import_condition(
        study, SYSTEM, study=STUDY, condition="ppo:qwen-0.5b:step300",
        outputs_file=outputs, eval_file=judged,
    )  # fmt: skip
    assert (summary.n_records, summary.n_unparsed) == (4, 3)
    assert {r[1] for r in stored(study).values()} == {None}  # a policy has no reward score


def test_an_eval_file_alone_brings_its_answers_as_the_outputs(study, tmp_path):
    judged = write(tmp_path / "Art_eval_k8.jsonl", eval_rows(bon_rows()))
    summary = downstream.import_condition(
        study, SYSTEM, study=STUDY, condition="bon:m:k8", eval_file=judged
    )
    assert summary.n_judged == 4
    assert {r[0] for r in stored(study).values()} == {f"best answer {i}" for i in IDS}


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("bon:m", "kind:model:variant"),
        ("dpo:m:k1", "'bon' or 'ppo'"),
        ("bon:m:16", "k<number>"),
        ("bon::k1", "model is 1 to"),
        ("ppo:m:a b", "variant is 1 to"),
    ],
)
def test_a_bad_condition_name_says_what_is_expected(name, message):
    with pytest.raises(Invalid, match=message):
        parse_condition(name)


def test_conditions_know_their_baseline():
    assert parse_condition("bon:m:k16").baseline().name == "bon:m:k1"
    assert parse_condition("ppo:p:step300").baseline().name == "ppo:p:base"
