"""The aspect checklist from the command line: `studies create/edit --aspect-checklist`,
`judge import` (every problem located, all or nothing, idempotent) and `export --table aspects`
(one row per assignment, response and aspect; the ratings export unchanged)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest
from sqlmodel import col, select

from annotate.db import make_engine, read_session, write_session
from annotate.db.tables import AspectJudgeScore, Assignment, Pair
from annotate.domain.assignment import assign_pairs, study_pairs
from annotate.domain.study import accounts
from annotate.domain.study.studies import get_study
from annotate.services.participant.rating import submit_rating
from annotate.vocabulary import (
    ASPECT_EXPORT_COLUMNS,
    DIMENSIONS,
    EXPORT_COLUMNS,
    PROVENANCE_EXPORT_COLUMNS,
)

SCORES = {s: dict.fromkeys(DIMENSIONS, 3) for s in "AB"}
MARKS = {"A": [2, 1], "B": [0, 0]}


@pytest.fixture
def study(run, tmp_path, write_records, make_record) -> Path:
    """Study 'asp' with the checklist and 3 pairs (r0..r2, two aspects each); returns the data."""
    path = write_records(tmp_path / "Books_test.jsonl", [make_record(f"r{i}") for i in range(3)])
    run("studies", "create", "asp", "--aspect-checklist")
    run("import", str(path), "--study", "asp")
    return path


def _lines(path: Path, *lines: object) -> Path:
    path.write_text("".join(line if isinstance(line, str) else json.dumps(line) + "\n"
                            for line in lines), encoding="utf-8")  # fmt: skip
    return path


def _judge_rows(db_url: str) -> int:
    engine = make_engine(db_url)
    try:
        with read_session(engine) as session:
            return len(session.exec(select(AspectJudgeScore)).all())
    finally:
        engine.dispose()


def test_the_option_is_off_by_default_and_set_by_create_and_edit(run, db_url):
    run("studies", "create", "plain")
    assert re.search(r"aspect checklist\s+off", run("studies", "show", "plain"))
    run("studies", "edit", "plain", "--aspect-checklist")
    assert re.search(r"aspect checklist\s+on", run("studies", "show", "plain"))
    run("studies", "edit", "plain", "--no-aspect-checklist")
    engine = make_engine(db_url)
    with read_session(engine) as session:
        assert get_study(session, "plain").aspect_checklist is False
    engine.dispose()


def test_a_judge_file_is_imported_once_and_again_changes_nothing(run, study, db_url, tmp_path):
    good = _lines(
        tmp_path / "judge.jsonl",
        {"id": "r0", "chosen": [2, 2], "rejected": [0, 1]},
        {"id": "r1", "chosen": [1, 2], "rejected": [0, 0]},
    )
    assert "Imported judge 'gpt' in study 'asp': 2 pairs." in run(
        "judge", "import", str(good), "--study", "asp", "--name", "gpt"
    )
    assert _judge_rows(db_url) == 8  # 2 pairs x 2 responses x 2 aspects
    assert "Unchanged: judge 'gpt'" in run("judge", "import", str(good), "-s", "asp", "-n", "gpt")
    other = _lines(tmp_path / "other.jsonl", {"id": "r0", "chosen": [0, 0], "rejected": [0, 0]})
    assert "--replace" in run("judge", "import", str(other), "-s", "asp", "-n", "gpt", code=1)
    run("judge", "import", str(other), "-s", "asp", "-n", "gpt", "--replace")
    assert _judge_rows(db_url) == 4


def test_every_problem_of_a_judge_file_is_located_and_nothing_is_kept(run, study, db_url, tmp_path):
    bad = _lines(
        tmp_path / "bad.jsonl",
        {"id": "r0", "chosen": [2, 3], "rejected": [0, 1]},  # line 1: 3 is off the scale
        "not json\n",  # line 2
        {"id": "r1", "chosen": [1], "rejected": [True, 0]},  # line 3: a boolean
        {"id": "r0", "chosen": [1, 1], "rejected": [1, 1]},  # line 4: repeated id
        {"id": "zz", "chosen": [1, 1], "rejected": [1, 1]},  # line 5: not a pair of the study
        {"chosen": [1, 1], "rejected": [1, 1]},  # line 6: no id
        {"id": "r2", "chosen": "2,2"},  # line 7: not a list, rejected missing
    )
    said = run("judge", "import", str(bad), "-s", "asp", "-n", "gpt", code=1)
    assert f"{bad}, line 1, field 'chosen': expected 0, 1, 2 only: item 2 is 3" in said
    assert f"{bad}, line 2" in said
    assert f"{bad}, line 3, field 'rejected': expected 0, 1, 2 only: item 1 is true" in said
    assert f"{bad}, line 4, field 'id': id 'r0' again (first at line 1)" in said
    assert f"{bad}, line 6, field 'id': expected the pair's id as a string" in said
    assert f"{bad}, line 7, field 'chosen': expected a list of 0, 1, 2" in said
    assert f"{bad}, line 7, field 'rejected': expected a list of 0, 1, 2" in said
    assert _judge_rows(db_url) == 0
    # Well-formed lines are then checked against the study: unknown ids and list lengths.
    wrong = _lines(
        tmp_path / "wrong.jsonl",
        {"id": "r0", "chosen": [2, 2, 2], "rejected": [0, 1]},
        {"id": "zz", "chosen": [1, 1], "rejected": [1, 1]},
    )
    said = run("judge", "import", str(wrong), "-s", "asp", "-n", "gpt", code=1)
    assert f"{wrong}, line 1, field 'chosen': expected 2 scores (the pair's rubric aspects)" in said
    assert f"{wrong}, line 2, field 'id': id 'zz' is not a pair of study 'asp'" in said
    assert _judge_rows(db_url) == 0


def test_export_table_aspects_has_one_row_per_assignment_response_and_aspect(
    run, study, db_url, tmp_path
):
    engine = make_engine(db_url)
    with write_session(engine) as session:
        target = get_study(session, "asp")
        account, _ = accounts.create_account(session, "ana")
        assign_pairs(session, target, account, study_pairs(session, target))
    with read_session(engine) as session:
        items = session.exec(select(Assignment)).all()
        joined = select(Pair.record_id, Assignment.chosen_side).join(
            Assignment, col(Assignment.pair_id) == col(Pair.id)
        )
        chosen_side = dict(session.exec(joined).all())
    for item in items:
        submit_rating(engine, annotator_id=item.annotator_id, assignment_id=item.id,
                      scores=SCORES, seconds=1.0, aspect_marks=MARKS)  # fmt: skip
    engine.dispose()
    out = tmp_path / "aspects.csv"
    assert "Wrote 12 aspect marks" in run("export", "-o", str(out), "--table", "aspects")
    frame = pd.read_csv(out)
    assert list(frame.columns) == list(ASPECT_EXPORT_COLUMNS)
    assert len(chosen_side) == 3
    for _, row in frame.iterrows():  # the side mapped on the server, the coverage as given
        assert (row["response"] == "chosen") == (row["side"] == chosen_side[row["pair_id"]])
        assert row["coverage"] == MARKS[row["side"]][row["aspect_index"]]
    assert set(frame["aspect"]) == {"Recommends finished series", "Mentions audio"}
    ratings = tmp_path / "ratings.csv"
    run("export", "-o", str(ratings))
    # The ratings export keeps its columns: no aspect column among them.
    columns = [*EXPORT_COLUMNS, *PROVENANCE_EXPORT_COLUMNS, "annotator_excluded"]
    assert list(pd.read_csv(ratings).columns) == columns
    run("export", "-o", str(out), "--table", "nope", code=1)


def test_the_study_report_from_the_command_line_has_the_aspect_sections(run, db_url, demo_files):
    from annotate.services.admin.simulated import store_simulated_ratings

    run("studies", "create", "asp", "--aspect-checklist")
    run("import", *map(str, demo_files), "--study", "asp")
    engine = make_engine(db_url)
    store_simulated_ratings(engine, "asp", n_annotators=2, seed=4, count=True)
    engine.dispose()
    said = run("report", "--study", "asp", "--format", "md", "--bootstrap", "0")
    assert "## Aspect checklist: chosen vs rejected coverage" in said
    report = json.loads(run("report", "--study", "asp", "--bootstrap", "0"))
    assert report["aspects"]["n_annotators"] == 2
