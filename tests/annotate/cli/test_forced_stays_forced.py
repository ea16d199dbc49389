"""Forced stays forced (issue 32 item 3): whether a change of the analysis plan came after data
is recorded with the change, so erasing the earliest annotator cannot turn a forced change
into "as pre-registered" in the report, the plan document or the published card."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import create_engine, text


def _dated(db_url: str, earliest: str, change_at: datetime) -> None:
    """`earliest` rated an hour before the change, every other annotator an hour after it."""
    engine = create_engine(db_url)
    before, after = change_at - timedelta(hours=1), change_at + timedelta(hours=1)
    sql = (
        "UPDATE rating SET created_at = CASE WHEN assignment_id IN (SELECT a.id FROM "
        "assignment a JOIN annotator n ON n.id = a.annotator_id WHERE n.name = :name) "
        "THEN :before ELSE :after END"
    )
    with engine.begin() as connection:
        if engine.dialect.name == "sqlite":
            before_v: object = before.replace(tzinfo=None).isoformat(sep=" ")
            after_v: object = after.replace(tzinfo=None).isoformat(sep=" ")
        else:
            before_v, after_v = before, after
        connection.execute(text(sql), {"name": earliest, "before": before_v, "after": after_v})
    engine.dispose()


def test_erasing_the_earliest_annotator_keeps_a_forced_change_after_data(
    run, cli, db_url: str, tmp_path: Path
) -> None:
    run("synth", "dataset", str(tmp_path / "data"), "--scale", "0.005", "--profile-size", "2")
    run("studies", "create", "s", "--margin", "0.5")
    run("import", *map(str, sorted((tmp_path / "data").glob("*.jsonl"))), "--study", "s")
    run("synth", "ratings", "--study", "s", "--annotators", "3", "--count")
    run("studies", "edit", "s", "--margin", "0.8", "--yes", "--force")
    plan_file = tmp_path / "plan.json"
    run("studies", "export-plan", "--study", "s", str(plan_file))
    changed_at = datetime.fromisoformat(json.loads(plan_file.read_text())["changes"][0]["at"])
    _dated(db_url, "sim-01", changed_at.astimezone(UTC))
    run("annotators", "erase", "sim-01", "--study", "s", "--yes")

    result = cli("report", "--study", "s", "--bootstrap", "0")
    assert result.exit_code == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["plan"]["changed_after_data"] is True
    assert "changed after data" in report["plan"]["note"]
    assert report["plan"]["note"] != "as pre-registered"
    assert report["margin_record"]["changed_after_data"] is True
    run("studies", "export-plan", "--study", "s", str(plan_file))
    assert json.loads(plan_file.read_text())["changed_after_data"] is True
    folder = tmp_path / "card"
    run("publish", str(folder), "--study", "s", "--bootstrap", "0")
    assert json.loads((folder / "plan.json").read_text())["changed_after_data"] is True
    assert "as pre-registered" not in (folder / "README.md").read_text()
