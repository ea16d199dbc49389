"""`prb-annotate audit` and `prb-annotate flags ...` (issue 15.1, 15.2), driven like a user would
(CliRunner on a real database: SQLite, or PostgreSQL with PRB_TEST_DATABASE_URL)."""

from __future__ import annotations

import json

import pytest
from sqlmodel import select
from typer.testing import Result

from annotate.db import make_engine, read_session, write_session
from annotate.db.tables import Assignment


@pytest.fixture
def flagged(cli, db_url, tmp_path, make_record, write_records) -> int:
    """Study `s`: 8 pairs rated by 3 simulated annotators, one rating of r1 flagged; returns
    that assignment's id (the item number `flags list` shows)."""
    dataset = write_records(tmp_path / "Art_test.jsonl", [make_record(f"r{i}") for i in range(8)])
    assert cli("import", str(dataset), "--study", "s").exit_code == 0
    assert cli("synth", "ratings", "--study", "s", "--annotators", "3", "--count").exit_code == 0
    engine = make_engine(db_url)
    try:
        with write_session(engine) as session:
            item = session.exec(select(Assignment).order_by(Assignment.id)).all()[3]
            item.flagged, item.flag_reason = True, "profile contradicts the question"
            session.add(item)
            flagged_id = item.id
        with read_session(engine) as session:
            assert session.get(Assignment, flagged_id) is not None
    finally:
        engine.dispose()
    assert flagged_id is not None
    return flagged_id


def rows(result: Result) -> list[list[str]]:
    return [line.split("\t") for line in result.stdout.strip().splitlines()]


def test_flags_list_resolve_exclude_restore_and_the_audit_log(cli, flagged):
    listed = cli("flags", "list", "--study", "s")
    assert listed.exit_code == 0, listed.output
    header, *items = rows(listed)
    assert header[:6] == ["item", "pair", "domain", "annotator", "kind", "reason"]
    (item,) = items
    assert item[0] == str(flagged)
    assert item[4] == "flag"
    assert item[5] == "profile contradicts the question"
    assert item[8] == "open"
    assert json.loads(item[7])["chosen"]  # the annotator's scores

    refused = cli("flags", "resolve", str(flagged), "--study", "s", "--note", "")
    assert refused.exit_code == 1
    assert "needs a note" in refused.stderr
    done = cli("flags", "resolve", str(flagged), "--study", "s", "--note", "checked: fine")
    assert done.exit_code == 0, done.output
    assert "resolved" in cli("flags", "list", "--study", "s").stdout
    assert "No open flagged" in cli("flags", "list", "--study", "s", "--open").stdout

    pair = item[1]
    excluded = cli("flags", "exclude", pair, "--study", "s", "--reason", "bad label")
    assert excluded.exit_code == 0, excluded.output
    again = cli("flags", "exclude", pair, "--study", "s", "--reason", "again")
    assert again.exit_code == 1
    assert "already excluded" in again.stderr
    assert rows(cli("flags", "exclusions", "--study", "s"))[1][:3] == [pair, "bad label", "system"]
    report = json.loads(cli("report", "--study", "s", "--bootstrap", "0").stdout)
    assert report["n_pairs"] == 7
    assert [e["pair_id"] for e in report["exclusions"]["excluded_pairs"]] == [pair]
    markdown = cli("report", "--study", "s", "--bootstrap", "0", "--format", "md").stdout
    assert f"{pair} (bad label, by system)" in markdown

    assert cli("flags", "restore", pair, "--study", "s").exit_code == 0
    report = json.loads(cli("report", "--study", "s", "--bootstrap", "0").stdout)
    assert report["n_pairs"] == 8
    assert report["exclusions"]["excluded_pairs"] == []

    log = [json.loads(line) for line in cli("audit", "--json").stdout.splitlines()]
    actions = [entry["action"] for entry in log]
    assert actions[:3] == ["pair.restore", "pair.exclude", "flag.resolved"]  # newest first
    assert "data.import" in actions
    assert log[2]["after"]["note"] == "checked: fine"
    assert log[2]["who"] == "system"
    table = rows(cli("audit", "--study", "s", "--limit", "2"))
    assert table[0] == ["when", "who", "study", "action", "before", "after"]
    assert [r[3] for r in table[1:]] == ["pair.restore", "pair.exclude"]


def test_unknown_items_pairs_and_studies_are_clear_errors(cli, flagged):
    for args, message in [
        (("flags", "resolve", "999999", "--study", "s", "--note", "x"), "no assignment 999999"),
        (("flags", "exclude", "nope", "--study", "s", "--reason", "x"), "no pair 'nope'"),
        (("flags", "restore", "r1", "--study", "s"), "is not excluded"),
        (("audit", "--study", "missing"), "missing"),
    ]:
        result = cli(*args)
        assert result.exit_code == 1, (args, result.output)
        assert message in result.stderr
        assert "Traceback" not in result.output
