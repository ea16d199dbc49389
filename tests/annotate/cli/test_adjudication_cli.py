"""`prb-annotate adjudication list|threshold|assign` (issue 15.3), driven like a user would
(CliRunner on a real database: SQLite, or PostgreSQL with PRB_TEST_DATABASE_URL)."""

from __future__ import annotations

import json

import pytest
from sqlmodel import select
from typer.testing import Result

from annotate.db import make_engine, read_session
from annotate.db.tables import Annotator, Assignment
from annotate.services.participant.rating import submit_rating
from annotate.vocabulary import DIMENSIONS


@pytest.fixture
def rated(cli, tmp_path, make_record, write_records) -> None:
    """Study `s`: 5 pairs rated by 3 simulated annotators; `judge` has no pair."""
    dataset = write_records(tmp_path / "Art_test.jsonl", [make_record(f"r{i}") for i in range(5)])
    assert cli("import", str(dataset), "--study", "s").exit_code == 0
    assert cli("synth", "ratings", "--study", "s", "--annotators", "3", "--count").exit_code == 0
    assert cli("annotators", "add", "judge", "--role", "adjudicator").exit_code == 0


def rows(result: Result) -> list[list[str]]:
    return [line.split("\t") for line in result.stdout.strip().splitlines()[1:]]


def test_threshold_list_and_assign(cli, rated, db_url):
    empty = cli("adjudication", "list", "--study", "s")
    assert empty.exit_code == 0, empty.output
    assert "threshold off (flags only)" in empty.stdout
    assert "No pair to adjudicate." in empty.stdout

    # threshold 0: every pair with two judgements or more is beyond it (spread >= 0)
    assert cli("adjudication", "threshold", "0", "--study", "s").exit_code == 0
    listed = cli("adjudication", "list", "--study", "s")
    header, *items = rows(listed)
    assert header == ["pair", "domain", "differences", "spread", "why", "adjudicators", "excluded"]
    assert [i[0] for i in items] == ["r0", "r1", "r2", "r3", "r4"]
    assert all(len(i[2].split()) == 3 for i in items)  # three annotators' differences
    assert all(i[4].startswith("spread ") for i in items)

    sent = cli("adjudication", "assign", "r1", "--to", "judge", "--study", "s")
    assert sent.exit_code == 0, sent.output
    assert "Pair r1 of study 's' sent to judge for adjudication." in " ".join(sent.stdout.split())
    again = cli("adjudication", "assign", "r1", "--to", "sim-01", "--study", "s")
    assert again.exit_code == 1
    assert "adjudicator role" in " ".join(again.output.split())  # sim-01 is no adjudicator
    wrong = cli("adjudication", "threshold", "--study", "s", "--", "-1")
    assert wrong.exit_code == 1, wrong.output
    assert "adjudication threshold must be 0 or more" in " ".join(wrong.output.split())

    assert cli("adjudication", "threshold", "--study", "s").exit_code == 0  # off again
    header, *items = rows(cli("adjudication", "list", "--study", "s"))
    assert [(i[0], i[5]) for i in items] == [("r1", "judge (pending)")]  # sent pairs stay
    engine = make_engine(db_url)
    try:
        with read_session(engine) as session:
            made = session.exec(
                select(Assignment)
                .join(Annotator, Annotator.id == Assignment.annotator_id)
                .where(Annotator.name == "judge")
            ).one()
        assert (made.purpose, made.status) == ("adjudication", "pending")
    finally:
        engine.dispose()


def test_prb_annotate_report_has_the_adjudication_section(cli, rated, db_url):
    assert cli("adjudication", "threshold", "0", "--study", "s").exit_code == 0
    assert cli("adjudication", "assign", "r1", "--to", "judge", "--study", "s").exit_code == 0
    plain = json.loads(cli("report", "--study", "s", "--bootstrap", "0").stdout)
    assert "adjudication" not in plain  # sent, not rated yet
    engine = make_engine(db_url)
    try:
        with read_session(engine) as session:
            made = session.exec(
                select(Assignment)
                .join(Annotator, Annotator.id == Assignment.annotator_id)
                .where(Annotator.name == "judge")
            ).one()
        given = {side: dict.fromkeys(DIMENSIONS, 3) for side in "AB"}
        given[made.chosen_side]["rubric_alignment"] = 5  # chosen 5, rejected 3: chosen
        submit_rating(
            engine, annotator_id=made.annotator_id, assignment_id=made.id, scores=given, seconds=5
        )
    finally:
        engine.dispose()
    report = json.loads(cli("report", "--study", "s", "--bootstrap", "0").stdout)
    assert report["n_annotators"] == plain["n_annotators"] == 3  # the ordinary figures
    assert report["dimensions"] == plain["dimensions"]
    summary = report["adjudication"]
    assert (summary["n_adjudicated_pairs"], summary["n_adjudicators"]) == (1, 1)
    assert summary["before"]["n_pairs"] == summary["after"]["n_pairs"] == 5
    markdown = cli("report", "--study", "s", "--bootstrap", "0", "--format", "md").stdout
    assert "## Adjudication" in markdown
