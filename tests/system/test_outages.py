"""Database outages: a write that cannot be saved fails fast with `Unavailable` ("not saved,
please retry"), saves nothing, and the same submit succeeds once the database is back.

- PostgreSQL: a server of the test's own (initdb in a temporary folder, another port; never the
  shared one), stopped while the app holds pooled connections, then started again.
- SQLite: the database on a small tmpfs the test mounts (root only) and fills to the last byte,
  then frees.

The submits go through the service the rating page calls (`annotate.services.participant.rating`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import func
from sqlalchemy.engine import Engine
from sqlmodel import select

from annotate.db import make_engine, read_session
from annotate.db.engine import PG_CONNECT_TIMEOUT_S
from annotate.db.tables import Annotator, Assignment, Rating
from annotate.errors import Unavailable
from annotate.services.participant.rating import submit_rating
from annotate.vocabulary import DIMENSIONS, SIDES
from support.loadtest import prepare_load_study
from support.own_postgres import OwnPostgres
from support.own_postgres import available as own_server_possible
from support.own_postgres import own_postgres as own_server

SCORES = {side: dict.fromkeys(DIMENSIONS, 4) for side in SIDES}
FAST_ENOUGH_S = PG_CONNECT_TIMEOUT_S + 5  # "within a few seconds", not after a 30 s hang


@pytest.fixture
def own_postgres() -> Iterator[OwnPostgres]:
    if not own_server_possible():
        pytest.skip("needs PostgreSQL's binaries and root (to run them as the postgres user)")
    with own_server() as server:
        yield server


def _first_assignment(engine: Engine) -> tuple[int, int]:
    with read_session(engine) as session:
        row = session.exec(
            select(Assignment.annotator_id, Assignment.id)
            .join(Annotator, Annotator.id == Assignment.annotator_id)
            .order_by(Assignment.id)
        ).first()
    assert row is not None
    return int(row[0]), int(row[1])


def _submit(engine: Engine, annotator_id: int, assignment_id: int) -> None:
    submit_rating(
        engine,
        annotator_id=annotator_id,
        assignment_id=assignment_id,
        scores=SCORES,
        seconds=12.0,
    )


def _ratings_of(engine: Engine, assignment_id: int) -> int:
    with read_session(engine) as session:
        return session.exec(
            select(func.count()).select_from(Rating).where(Rating.assignment_id == assignment_id)
        ).one()


def _refused_fast(engine: Engine, annotator_id: int, assignment_id: int) -> float:
    started = time.monotonic()
    with pytest.raises(Unavailable, match="nothing was saved, please retry"):
        _submit(engine, annotator_id, assignment_id)
    return time.monotonic() - started


def test_postgres_stopped_refuses_fast_then_recovers_by_itself(
    own_postgres: OwnPostgres, tmp_path: Path
) -> None:
    engine = make_engine(own_postgres.url)
    prepare_load_study(engine, tmp_path, annotators=5, pairs_each=1, profile_size=2)
    annotator_id, assignment_id = _first_assignment(engine)  # the pool now holds a connection

    own_postgres.stop()
    assert _refused_fast(engine, annotator_id, assignment_id) < FAST_ENOUGH_S
    with pytest.raises(Unavailable):  # reading the page fails the same way, not with a crash
        _first_assignment(engine)

    own_postgres.start()
    _submit(engine, annotator_id, assignment_id)  # the same engine: no restart of the app
    assert _ratings_of(engine, assignment_id) == len(DIMENSIONS) * len(SIDES)
    _submit(engine, annotator_id, assignment_id)  # a retry after success saves nothing twice
    assert _ratings_of(engine, assignment_id) == len(DIMENSIONS) * len(SIDES)
    engine.dispose()


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root")
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(disk)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode(errors='replace')}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def _fill(disk: Path) -> Path:
    filler = disk / "filler"
    descriptor = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(descriptor, b"\0" * 4096)
    except OSError:  # ENOSPC: the disk is full to the last block
        pass
    finally:
        os.close(descriptor)
    return filler


def test_sqlite_on_a_full_disk_refuses_fast_then_recovers(small_disk: Path, tmp_path: Path) -> None:
    engine = make_engine(str(small_disk / "prb.db"))
    prepare_load_study(engine, tmp_path, annotators=5, pairs_each=1, profile_size=2)
    annotator_id, assignment_id = _first_assignment(engine)

    filler = _fill(small_disk)
    assert _refused_fast(engine, annotator_id, assignment_id) < FAST_ENOUGH_S
    filler.unlink()

    _submit(engine, annotator_id, assignment_id)
    assert _ratings_of(engine, assignment_id) == len(DIMENSIONS) * len(SIDES)
    engine.dispose()
