"""Comparison studies (issue 25, item 2): two conditions of a benchmark study, each question a
blinded A/B pair (the expected condition's output as `chosen`, stored on the server only),
identical outputs left out (their ids kept for the analysis, zero gain), the judge's usable
scores along; the side drawn per annotator as for every pair.

Runs on SQLite, and on PostgreSQL with PRB_TEST_DATABASE_URL (conftest)."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import pytest
from sqlmodel import select

from annotate.db import read_session, write_session
from annotate.db.tables import AspectJudge, AspectJudgeScore, Pair, Study
from annotate.domain.assignment import assign_pairs, study_pairs
from annotate.domain.downstream.comparison import is_comparison
from annotate.domain.rating.queue import pair_view, queue
from annotate.domain.study import accounts
from annotate.domain.study.permissions import SYSTEM
from annotate.domain.study.studies import get_study
from annotate.errors import Conflict, Invalid, NotFound
from annotate.services.admin import data
from annotate.services.results import downstream

IDS = ("q1", "q2", "q3", "q4")
SECRETS = ("hidden-rm", "bon:", "k16", "k1", "expected", "baseline", "chosen", "rejected")


def write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def build_world(engine, tmp_path, make_record, write_records) -> None:
    """Benchmark study 'bench' with bon:hidden-rm:k1 and :k16; q4's two outputs identical;
    the judge scored q1 properly for both, q2's k16 answer was empty."""
    records = write_records(tmp_path / "Art_test.jsonl", [make_record(i) for i in IDS])
    data.import_files(engine, SYSTEM, [records], study="bench")
    for k in (1, 16):
        outputs = [
            {"id": i, "query": "q", "aspects": "a, b", "score": 0.1 * k,
             "output": f"k{k} answer to {i}" if i != "q4" else "the same answer"}
            for i in IDS
        ]  # fmt: skip
        scores = {"q1": [2.0, 1.0] if k == 16 else [0.0, 1.0], "q2": [] if k == 16 else [1.0, 1.0]}
        judged = [
            {"id": o["id"], "query": "q", "answer": o["output"], "aspects": "a, b",
             "scores": scores.get(o["id"], [1.0, 1.0]), "average_score": 1.0}
            for o in outputs
        ]  # fmt: skip
        downstream.import_condition(
            engine, SYSTEM, study="bench", condition=f"bon:hidden-rm:k{k}",
            outputs_file=write(tmp_path / f"Art_k{k}.jsonl", outputs),
            eval_file=write(tmp_path / f"Art_eval_k{k}.jsonl", judged),
        )  # fmt: skip


@pytest.fixture
def world(engine, tmp_path, make_record, write_records):
    build_world(engine, tmp_path, make_record, write_records)
    return engine


def test_each_question_becomes_a_pair_and_identical_outputs_are_left_out(world):
    summary = downstream.create_comparison(
        world, SYSTEM, source_study="bench", name="cmp",
        expected="bon:hidden-rm:k16", baseline="bon:hidden-rm:k1", seed=5,
    )  # fmt: skip
    assert (summary.n_questions, summary.n_pairs, summary.n_identical) == (4, 3, 1)
    with read_session(world) as session:
        study = get_study(session, "cmp")
        pairs = session.exec(select(Pair).where(Pair.study_id == study.id)).all()
        assert study.aspect_checklist
        assert study.comparison == {
            "source_study": "bench", "expected": "bon:hidden-rm:k16",
            "baseline": "bon:hidden-rm:k1", "identical": ["q4"], "n_questions": 4,
        }  # fmt: skip
        assert is_comparison(study.comparison)
        assert not is_comparison(get_study(session, "bench").comparison)
        assert {(p.record_id, p.chosen, p.rejected, json.dumps(p.extra)) for p in pairs} == {
            (i, f"k16 answer to {i}", f"k1 answer to {i}", "{}") for i in ("q1", "q2", "q3")
        }
        judge = session.exec(select(AspectJudge).where(AspectJudge.study_id == study.id)).one()
        scores = session.exec(
            select(AspectJudgeScore).where(AspectJudgeScore.judge_id == judge.id)
        ).all()
        assert judge.unparsed == [
            {"pair_id": "q2", "response": "chosen", "scores": [], "problem": "empty"}
        ]
        # q1 both, q2 rejected only, q3 both: 5 responses x 2 aspects
        assert len(scores) == 10


def test_the_expected_condition_never_reaches_the_annotators_view(world):
    downstream.create_comparison(
        world, SYSTEM, source_study="bench", name="cmp",
        expected="bon:hidden-rm:k16", baseline="bon:hidden-rm:k1", seed=5,
    )  # fmt: skip
    sides = {}
    for name in ("ann1", "ann2", "ann3", "ann4"):
        with write_session(world) as session:
            study = get_study(session, "cmp")
            annotator, _ = accounts.create_account(session, name)
            assign_pairs(session, study, annotator, study_pairs(session, study))
        with read_session(world) as session:
            account = accounts.account_named(session, name)
            for assignment in queue(session, account.id):
                view = pair_view(session, account.id, assignment.assignment_id)
                text = json.dumps(asdict(view), default=str)
                # the texts carry "k16 answer" by construction; nothing else names a condition
                stripped = text.replace("k16 answer", "").replace("k1 answer", "")
                assert [s for s in SECRETS if s in stripped.lower()] == []
                sides[(name, view.question)] = view.responses["A"].startswith("k16")
    # the side is drawn per annotator: the expected output is on both sides across the draws
    assert set(sides.values()) == {True, False}


def test_bad_comparisons_are_refused_and_nothing_is_created(world, snapshot):
    before = snapshot(world)
    with pytest.raises(Invalid, match="two different conditions"):
        downstream.create_comparison(
            world, SYSTEM, source_study="bench", name="x",
            expected="bon:hidden-rm:k1", baseline="bon:hidden-rm:k1",
        )  # fmt: skip
    with pytest.raises(NotFound, match="no downstream condition 'bon:hidden-rm:k4'"):
        downstream.create_comparison(
            world, SYSTEM, source_study="bench", name="x",
            expected="bon:hidden-rm:k4", baseline="bon:hidden-rm:k1",
        )  # fmt: skip
    assert snapshot(world) == before
    downstream.create_comparison(
        world, SYSTEM, source_study="bench", name="x",
        expected="bon:hidden-rm:k16", baseline="bon:hidden-rm:k1",
    )  # fmt: skip
    with pytest.raises((Conflict, Invalid), match="already exists"):
        downstream.create_comparison(
            world, SYSTEM, source_study="bench", name="x",
            expected="bon:hidden-rm:k16", baseline="bon:hidden-rm:k1",
        )  # fmt: skip
    with read_session(world) as session:
        assert len(session.exec(select(Study)).all()) == 2
