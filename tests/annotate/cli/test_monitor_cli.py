"""`prb-annotate monitor STUDY --once` (issue 34 items 4 and 5): the Monitor page's figures
printed once, the same as the service returns (`annotate.services.admin.monitor`), and the option
that closes enrolment at a stop set, shown and applied (audited)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from sqlalchemy import create_engine
from sqlmodel import Session, col, func, select

from annotate.db.tables import Assignment, AuditEntry
from annotate.services.admin.monitor import CLOSED_AT_STOP
from annotate.vocabulary import AssignmentStatus


def test_monitor_once_prints_the_figures_and_closes_enrolment_at_a_stop(
    run, db_url: str, tmp_path: Path
) -> None:
    run("studies", "create", "s", "--sequential", "looks=2,4", "--count-simulated", "--pool")
    run("synth", "dataset", str(tmp_path / "data"), "--scale", "0.002", "--profile-size", "2")
    run("import", *map(str, sorted((tmp_path / "data").glob("*.jsonl"))), "--study", "s")
    run("studies", "edit", "s", "--close-at-stop", "--enrolment", "--completion-code", "C1")
    shown = run("studies", "show", "s")
    assert re.search(r"close enrolment at a stop\s+on\n", shown)
    assert re.search(r"enrolment closed by the plan\s+-\n", shown)
    run("synth", "ratings", "--study", "s", "--annotators", "3")

    printed = run("monitor", "s", "--once")

    engine = create_engine(db_url)
    with Session(engine) as session:
        done = session.exec(
            select(func.count())
            .select_from(Assignment)
            .where(col(Assignment.status) == AssignmentStatus.DONE)
        ).one()
        audited = session.exec(
            select(func.count())
            .select_from(AuditEntry)
            .where(col(AuditEntry.action) == CLOSED_AT_STOP)
        ).one()
    engine.dispose()
    lines = _figures(printed)
    assert lines["pairs rated"] == f"{done} pair-ratings"
    assert lines["cost"] == "cost: not set"
    assert lines["signals"].endswith("(acted on only through the pre-registered rules)")
    assert lines["sequential plan"].startswith("Group-sequential plan, look 2 of 2")
    assert "stop" in lines["sequential plan"]
    assert lines["enrolment"] == "closed, closes itself when the plan says stop"
    assert lines["closed by the plan"].startswith("Enrolment closed itself at")
    assert audited == 1
    assert "Enrolment closed itself at" in run("studies", "show", "s")
    again = _figures(run("monitor", "s", "--once"))
    assert again["closed by the plan"] == lines["closed by the plan"]  # closed once
    run("publish", str(tmp_path / "card"), "--study", "s", "--bootstrap", "0")
    card = (tmp_path / "card" / "README.md").read_text()
    assert re.search(r"- \*\*Enrolment closed by the plan\*\*: .* UTC, at look 2 of 2 ", card)
    plan = json.loads((tmp_path / "card" / "plan.json").read_text())
    assert plan["enrolment_closed"]["look"] == 2


def _figures(printed: str) -> dict[str, str]:
    """'label: value' lines as a mapping (the first line names the study and the time)."""
    return dict(line.split(": ", 1) for line in printed.splitlines()[1:] if ": " in line)


def test_monitor_names_an_unknown_study(cli) -> None:
    result = cli("monitor", "nowhere", "--once")
    assert result.exit_code != 0
    assert "no study named 'nowhere'" in result.stdout + result.stderr
