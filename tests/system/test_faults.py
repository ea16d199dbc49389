"""A crash in the middle of rating: SIGKILL the real app server under load, then restart it.

Annotators are simulated through Streamlit's agent API (`support.loadtest`): real server-side
sessions that run the rating page's own callbacks (on the fallback view, which the agent API can
drive: `support.loadtest.AGENT_ENVIRONMENT`). The guarantees: every submit an annotator
was told was saved is in the database with all its scores, no pair is half-written, and each
annotator comes back to their first unrated pair. Runs on SQLite and on PostgreSQL.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import select

from annotate.db import write_session
from annotate.db.tables import Assignment, Rating
from support.loadtest import (
    RATINGS_PER_PAIR,
    agent_server,
    check_database,
    load_with_crash,
    prepare_load_study,
)

ANNOTATORS = 10
PAIRS_EACH = 6
KILL_AFTER = 15


@pytest.mark.parametrize("servers", [1, 2], ids=["one server", "two servers"])
def test_sigkill_mid_load_keeps_every_acknowledged_rating(
    db_url: str, engine: Engine, tmp_path: Path, servers: int
) -> None:
    """With two servers on one database, the other keeps serving while the first is down."""
    load = prepare_load_study(engine, tmp_path, annotators=ANNOTATORS, pairs_each=PAIRS_EACH)
    running = [agent_server(db_url, tmp_path / f"server-{i}.log") for i in range(servers)]
    try:
        for server in running:
            server.start()
        crash = load_with_crash(running, engine, load, KILL_AFTER)
    finally:
        for server in running:
            server.stop()

    assert crash.killed
    acknowledged_before = sum(len(run.acknowledged) for run in crash.before)
    assert KILL_AFTER <= acknowledged_before < ANNOTATORS * PAIRS_EACH, "not killed mid-run"
    assert any(run.cut_off for run in crash.before), "no annotator noticed the crash"
    assert [e for run in crash.before + crash.after for e in run.errors] == []
    # Right after the kill, before the restart:
    assert crash.after_crash.half_written == []
    assert crash.after_crash.missing_acknowledged == []
    assert crash.after_crash.done >= acknowledged_before
    # Each annotator came back to their first unrated pair, and everyone finished.
    assert crash.resume_mismatches == {}
    assert all(run.first_shown is not None for run in crash.after if run.acknowledged)
    assert crash.final.ok
    assert crash.final.done == ANNOTATORS * PAIRS_EACH
    assert crash.final.ratings == ANNOTATORS * PAIRS_EACH * RATINGS_PER_PAIR
    assert len(crash.acknowledged) == len(set(crash.acknowledged)), "a pair was saved twice"


def test_integrity_check_finds_half_written_and_missing_pairs(
    engine: Engine, tmp_path: Path
) -> None:
    """The check the crash test relies on does catch what it must catch."""
    load = prepare_load_study(engine, tmp_path, annotators=5, pairs_each=2)
    with write_session(engine) as session:
        first, second = session.exec(
            select(Assignment).where(Assignment.study_id == load.study_id).limit(2)
        ).all()
        # Half-written: one score stored, the assignment still pending.
        session.add(
            Rating(
                assignment_id=first.id,
                response="chosen",
                dimension="factuality",
                score=3,
                seconds=1.0,
            )
        )
    integrity = check_database(engine, load.study_id, acknowledged=[second.id])
    assert integrity.half_written == [first.id]
    assert integrity.missing_acknowledged == [second.id]
    assert not integrity.ok
