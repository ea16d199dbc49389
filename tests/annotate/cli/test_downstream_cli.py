"""Downstream from the command line (issue 25): `downstream import`, `list`, `compare`, and
`judge import` reading the benchmark's eval shape (`BoN/evaluate.py`: {id, query, answer,
aspects, scores, average_score}) with `--response` or by the answer's text, unusable answers
stored and counted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlmodel import select

from annotate.db import make_engine, read_session
from annotate.db.tables import AspectJudge, AspectJudgeScore


@pytest.fixture
def run(cli):
    def invoke(*args: str, code: int = 0) -> str:
        result = cli(*args)
        assert result.exit_code == code, result.stdout + result.stderr
        return " ".join((result.stdout + result.stderr).split())

    return invoke


@pytest.fixture
def records(run, tmp_path, write_records, make_record) -> list[dict]:
    rows = [make_record(f"r{i}") for i in range(3)]
    run("import", str(write_records(tmp_path / "Books_test.jsonl", rows)), "--study", "b")
    return rows


def lines(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def answer(record_id: str, text: str, scores: list[float]) -> dict:
    average = sum(scores) / len(scores) if scores else 0.0
    return {"id": record_id, "query": "q", "answer": text, "aspects": "a, b",
            "scores": scores, "average_score": average}  # fmt: skip


def judge_state(db_url: str) -> tuple[list[tuple], list]:
    engine = make_engine(db_url)
    try:
        with read_session(engine) as session:
            scores = session.exec(select(AspectJudgeScore)).all()
            judge = session.exec(select(AspectJudge)).one()
            rows = sorted((s.pair_id, s.response, s.aspect_index, s.coverage) for s in scores)
            return rows, judge.unparsed
    finally:
        engine.dispose()


def test_judge_import_reads_eval_files_by_response_and_by_text(run, records, tmp_path, db_url):
    r0, r1, r2 = records
    chosen = lines(tmp_path / "eval_chosen.jsonl", [
        answer("r0", r0["chosen"], [2.0, 1.0]),
        answer("r1", r1["chosen"], []),            # the judge gave no list
        answer("r2", r2["chosen"], [2.0, 1.0, 0.0]),  # three scores for two aspects
    ])  # fmt: skip
    by_text = lines(tmp_path / "eval_mixed.jsonl", [
        answer("r0", r0["rejected"], [0.0, 0.0]),
        answer("r1", r1["rejected"], [3.0, 1.0]),  # off the scale
    ])  # fmt: skip
    out = run("judge", "import", str(chosen), "--name", "qwen", "--study", "b",
              "--response", "chosen")  # fmt: skip
    assert out == "Imported judge 'qwen' in study 'b': 1 pairs, 2 answers not usable."
    out = run("judge", "import", str(chosen), str(by_text), "--name", "qwen2", "--study", "b")
    assert "2 answers not usable" not in out  # by text, both files
    scores, _ = judge_state_named(db_url, "qwen2")
    assert {(r, a) for r, a, _, _ in scores} == {(1, "chosen"), (1, "rejected")}


def judge_state_named(db_url: str, name: str) -> tuple[list[tuple], list]:
    engine = make_engine(db_url)
    try:
        with read_session(engine) as session:
            judge = session.exec(select(AspectJudge).where(AspectJudge.name == name)).one()
            scores = session.exec(
                select(AspectJudgeScore).where(AspectJudgeScore.judge_id == judge.id)
            ).all()
            rows = sorted((s.pair_id, s.response, s.aspect_index, s.coverage) for s in scores)
            return rows, judge.unparsed
    finally:
        engine.dispose()


def test_judge_import_keeps_every_unusable_answer_as_written(run, records, tmp_path, db_url):
    r0, r1, r2 = records
    path = lines(tmp_path / "eval.jsonl", [
        answer("r0", r0["chosen"], [2.0, 1.0]),
        answer("r1", r1["chosen"], []),
        answer("r2", r2["chosen"], [2.0, 1.5]),
    ])  # fmt: skip
    run("judge", "import", str(path), "--name", "q", "--study", "b", "--response", "chosen")
    scores, unparsed = judge_state_named(db_url, "q")
    assert scores == [(1, "chosen", 0, 2), (1, "chosen", 1, 1)]
    assert unparsed == [
        {"pair_id": "r1", "response": "chosen", "scores": [], "problem": "empty"},
        {"pair_id": "r2", "response": "chosen", "scores": [2.0, 1.5], "problem": "out_of_scale"},
    ]


def test_judge_import_of_an_answer_matching_neither_response_is_located(run, records, tmp_path):
    path = lines(tmp_path / "eval.jsonl", [answer("r0", "some other text", [2.0, 1.0]),
                                           answer("zz", "x", [1.0])])  # fmt: skip
    out = run("judge", "import", str(path), "--name", "q", "--study", "b", code=1)
    assert (
        f"{path}, line 1, field 'answer': the answer is not the pair's chosen or rejected "
        "text; pass --response" in out
    )
    assert f"{path}, line 2, field 'id': id 'zz' is not a pair of the study" in out


def test_downstream_import_list_and_compare(run, records, tmp_path):
    def bon(k: int) -> Path:
        rows = [{"id": r["id"], "query": "q", "aspects": "a, b", "score": 0.5,
                 "output": r["chosen"] if (k == 16 and r["id"] != "r2") else r["rejected"]}
                for r in records]  # fmt: skip
        return lines(tmp_path / f"Books_k{k}.jsonl", rows)

    out = run("downstream", "import", "--condition", "bon:m:k1", "--outputs", str(bon(1)),
              "--study", "b")  # fmt: skip
    assert out == "Imported 'bon:m:k1' in study 'b': 3 outputs."
    run("downstream", "import", "-c", "bon:m:k16", "--outputs", str(bon(16)), "--study", "b")
    assert "bon:m:k16: 3 outputs, 0 judged" in run("downstream", "list", "--study", "b")
    out = run("downstream", "compare", "cmp", "--expected", "bon:m:k16", "--baseline",
              "bon:m:k1", "--study", "b", "--seed", "7")  # fmt: skip
    assert out == (
        "Created comparison study 'cmp': bon:m:k16 against bon:m:k1, 3 questions, 2 pairs to "
        "rate, 1 identical (not shown, zero gain)."
    )
    assert "needs two different conditions" in run(
        "downstream", "compare", "x", "--expected", "bon:m:k1", "--baseline", "bon:m:k1",
        "--study", "b", code=1,
    )  # fmt: skip
    assert "give --outputs, --eval or both" in run(
        "downstream", "import", "-c", "bon:m:k2", "--study", "b", code=1
    )


def test_the_demo_sets_up_the_downstream_section(run):
    out = run("demo", "--no-serve", "--simulated", "2")
    assert (
        "Downstream demo (made-up files, data/demo/downstream/README.md): study "
        "'demo-downstream' and its comparison studies demo-bon-madeup-rm-a, "
        "demo-bon-madeup-rm-b, demo-bon-madeup-rm-c, demo-ppo." in out
    )
    listed = run("downstream", "list", "--study", "demo-downstream")
    assert "bon:madeup-rm-a:k16: 9 outputs, 9 judged, 1 not usable" in listed
    assert "ppo:madeup-policy:step300: 9 outputs, 9 judged, 1 not usable" in listed
    report = run("downstream", "report", "--study", "demo-downstream", "--n-boot", "20")
    assert "## The correlation claim" in report
