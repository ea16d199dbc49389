"""After an erasure, the erased text is in no file of the database (issue 32, point 8 and
deliverable 5: erased data stayed in SQLite's WAL and PostgreSQL's files).

A participant types unique strings (a survey answer, a comment, a rationale, a flag and a skip
reason) and is then erased, by the admin or by their own withdrawal with erasure. SQLite: the
bytes of the database file, its `-wal` and its `-shm` hold none of the strings, nor the
platform id (they held them before: the search works). PostgreSQL: a server of the test's own
(`support/own_postgres.py`, initdb and pg_ctl on another port, never the shared 5432); every file
of its data directory is searched once the tables are rewritten. PostgreSQL's write-ahead log
keeps the old pages until the server recycles its segments: the test has the server switch to a
new segment and checkpoint twice (what docs/participants-data.md tells an operator to do) with
`wal_recycle` off, so old segments are removed rather than renamed for reuse.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine

from annotate.db import make_engine
from annotate.domain.study.permissions import SYSTEM
from annotate.services.admin.erasure import erase_person, withdraw_me
from support import own_postgres
from tests.security.participants_world import STUDY, Person, study_key, two_participants


def _erase(engine: Engine, one: Person, how: str) -> None:
    if how == "admin":
        erase_person(engine, SYSTEM, one.name, STUDY)
    else:
        withdraw_me(
            engine,
            one.annotator_id,
            study=STUDY,
            key=study_key(engine),
            token=one.token,
            erase_data=True,
        )


def _found(files: list[Path], one: Person) -> dict[str, list[str]]:
    """Which of the person's strings each file still holds (files holding none left out)."""
    wanted = [one.pid, *one.texts]
    hits: dict[str, list[str]] = {}
    for path in files:
        try:
            data = path.read_bytes()
        except (FileNotFoundError, PermissionError):
            continue  # a file the server removed while we looked
        held = [w for w in wanted if w.encode() in data]
        if held:
            hits[str(path)] = held
    return hits


@pytest.mark.parametrize("how", ["admin", "withdrawal"])
def test_sqlite_files_hold_nothing_of_an_erased_person(tmp_path: Path, how: str) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'study.db'}")
    try:
        one, two = two_participants(engine)
        files = sorted(tmp_path.glob("study.db*"))
        assert _found(files, one)  # the search finds them before
        _erase(engine, one, how)
        files = sorted(tmp_path.glob("study.db*"))
        assert {f.name for f in files} >= {"study.db"}
        assert _found(files, one) == {}
        assert _found(files, two)  # the other participant is still there
    finally:
        engine.dispose()


def _switch_and_checkpoint(url: str) -> None:
    """What an operator runs after an erasure so that the WAL drops the old pages."""
    admin = make_engine(url, create=False).execution_options(isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            for _ in range(2):
                connection.execute(text("SELECT pg_switch_wal()"))
                connection.execute(text("CHECKPOINT"))
    finally:
        admin.dispose()


@pytest.mark.skipif(not own_postgres.available(), reason="needs PostgreSQL's binaries and root")
def test_postgresql_files_hold_nothing_of_an_erased_person() -> None:
    with own_postgres.own_postgres() as server:
        setup = make_engine(server.url, create=False).execution_options(
            isolation_level="AUTOCOMMIT"
        )
        with setup.connect() as connection:
            connection.execute(text("ALTER SYSTEM SET wal_recycle = off"))
            connection.execute(text("SELECT pg_reload_conf()"))
        setup.dispose()
        engine = make_engine(server.url)
        try:
            one, two = two_participants(engine)
            data = server.folder / "data"
            _switch_and_checkpoint(server.url)
            assert _found([p for p in data.rglob("*") if p.is_file()], one)
            _erase(engine, one, "admin")
            _switch_and_checkpoint(server.url)
            files = [p for p in data.rglob("*") if p.is_file()]
            assert _found(files, one) == {}
            assert _found(files, two)
        finally:
            engine.dispose()
