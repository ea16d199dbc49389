"""The engine factory, SQLite settings, write serialisation, and where the database lives."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest
from sqlalchemy import Column, Integer, MetaData, Table, event, inspect, update
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlmodel import Session, select

from annotate import config
from annotate.db import (
    is_sqlite,
    make_engine,
    read_session,
    write_session,
)
from annotate.db.engine import SQLITE_BUSY_TIMEOUT_MS
from annotate.db.tables import Pair, Study

TABLES = {"study", "pair", "annotator", "assignment", "rating", "ratingrevision"}

_counter_metadata = MetaData()
counter = Table(
    "test_counter",
    _counter_metadata,
    Column("id", Integer, primary_key=True),
    Column("value", Integer, nullable=False),
)


@pytest.fixture
def counter_engine(engine):
    _counter_metadata.create_all(engine)
    with engine.begin() as connection:
        connection.execute(counter.insert().values(id=1, value=0))
    return engine


def read_counter(engine) -> int:
    with engine.connect() as connection:
        return connection.execute(select(counter.c.value).where(counter.c.id == 1)).scalar_one()


def increment(session: Session) -> int:
    """A read-then-write unit of work: the race a deferred transaction loses."""
    value = session.execute(select(counter.c.value).where(counter.c.id == 1)).scalar_one()
    session.execute(update(counter).where(counter.c.id == 1).values(value=value + 1))
    return value


# ---------------------------------------------------------------- engine and SQLite settings


def test_make_engine_creates_every_table(engine):
    assert set(inspect(engine).get_table_names()) >= TABLES


def test_make_engine_without_create_leaves_an_empty_database(tmp_path):
    engine = make_engine(str(tmp_path / "bare.db"), create=False)
    try:
        assert inspect(engine).get_table_names() == []
    finally:
        engine.dispose()


@pytest.mark.sqlite_only
def test_sqlite_connections_get_wal_foreign_keys_and_busy_timeout(engine, db_url):
    assert is_sqlite(engine)
    with engine.connect() as connection:
        pragma = {
            name: connection.exec_driver_sql(f"PRAGMA {name}").scalar()
            for name in ("journal_mode", "foreign_keys", "busy_timeout")
        }
    assert pragma == {"journal_mode": "wal", "foreign_keys": 1, "busy_timeout": 30_000}
    assert SQLITE_BUSY_TIMEOUT_MS == 30_000
    # WAL is a property of the file: a plain sqlite3 connection sees it too.
    plain = sqlite3.connect(make_url(db_url).database)
    try:
        assert plain.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    finally:
        plain.close()


@pytest.mark.sqlite_only
def test_sqlite_path_without_url_scheme_is_a_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    engine = make_engine("relative.db")
    try:
        with write_session(engine) as session:
            session.add(Study(name="s", seed=1))
    finally:
        engine.dispose()
    assert (tmp_path / "relative.db").is_file()
    assert (tmp_path / "relative.db-wal").exists() or (tmp_path / "relative.db").stat().st_size


def test_foreign_keys_are_enforced(engine):
    with pytest.raises(IntegrityError), write_session(engine) as session:
        session.add(
            Pair(
                study_id=999,
                record_id="x",
                domain="d",
                category="c",
                question="q",
                narrative="n",
                chosen="a",
                rejected="b",
                content_hash="h",
            )
        )
    with read_session(engine) as session:
        assert session.exec(select(Pair)).all() == []


@pytest.mark.sqlite_only
def test_write_session_begins_immediate_and_read_session_deferred(engine):
    statements: list[str] = []

    @event.listens_for(engine, "before_cursor_execute")
    def record(_conn, _cursor, statement, *_args):  # type: ignore[no-untyped-def]
        statements.append(statement)

    with write_session(engine) as session:
        session.exec(select(Study)).all()
    with read_session(engine) as session:
        session.exec(select(Study)).all()
    begins = [s for s in statements if s.startswith("BEGIN")]
    assert begins == ["BEGIN IMMEDIATE", "BEGIN"]


def test_write_session_commits_on_success_and_rolls_back_on_error(engine):
    with write_session(engine) as session:
        session.add(Study(name="kept", seed=1))

    def add_then_fail() -> None:
        with write_session(engine) as session:
            session.add(Study(name="dropped", seed=2))
            session.flush()
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        add_then_fail()
    with read_session(engine) as session:
        assert [s.name for s in session.exec(select(Study))] == ["kept"]


# ---------------------------------------------------------------- concurrency


def test_second_writer_waits_for_the_first_and_sees_its_commit(counter_engine):
    """Write sessions run one at a time: a writer that starts while another holds the write
    lock waits, then reads the committed value (no stale read, no lost update)."""
    inside = threading.Event()
    seen: dict[str, int] = {}

    def first() -> None:
        with write_session(counter_engine) as session:
            seen["first"] = increment(session)
            inside.set()
            time.sleep(0.4)  # hold the write lock while the second writer tries to start

    def second() -> None:
        inside.wait(5)
        with write_session(counter_engine) as session:
            seen["second"] = increment(session)

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert seen == {"first": 0, "second": 1}
    assert read_counter(counter_engine) == 2


@pytest.mark.parametrize("n_threads", [12])
def test_concurrent_read_then_write_never_locks_or_loses_an_update(counter_engine, n_threads):
    per_thread = 50
    errors: list[BaseException] = []
    start = threading.Barrier(n_threads)

    def work() -> None:
        try:
            start.wait(10)
            for _ in range(per_thread):
                with write_session(counter_engine) as session:
                    increment(session)
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=work) for _ in range(n_threads)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert errors == []
    assert read_counter(counter_engine) == n_threads * per_thread


@pytest.mark.sqlite_only
def test_a_deferred_transaction_would_fail_where_write_session_does_not(counter_engine):
    """The control experiment: the same interleaving with plain BEGIN gets 'database is locked'
    at once (the busy timeout cannot help a reader that must upgrade); that is what BEGIN
    IMMEDIATE prevents."""
    both_read = threading.Barrier(2)
    first_done = threading.Event()
    outcome: dict[str, object] = {}

    def deferred(name: str) -> None:
        try:
            with Session(counter_engine) as session, session.begin():
                increment_read = session.execute(select(counter.c.value)).scalar_one()
                both_read.wait(5)
                if name == "second":
                    first_done.wait(5)
                session.execute(update(counter).values(value=increment_read + 1))
            outcome[name] = "committed"
        except OperationalError as error:
            outcome[name] = str(error.orig)
        finally:
            if name == "first":
                first_done.set()

    threads = [threading.Thread(target=deferred, args=(n,)) for n in ("first", "second")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert outcome["first"] == "committed"
    assert outcome["second"] == "database is locked"
    assert read_counter(counter_engine) == 1


# ---------------------------------------------------------------- where the database lives


@pytest.fixture
def clean_env(monkeypatch, tmp_path):
    monkeypatch.delenv(config.DATABASE_ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_default_database_is_a_file_in_the_working_directory(clean_env):
    assert config.database_url() == f"sqlite:///{clean_env / 'prb_annotate.db'}"
    assert config.DEFAULT_DATABASE_FILE == "prb_annotate.db"


def test_environment_variable_overrides_the_default(clean_env, monkeypatch):
    monkeypatch.setenv("PRB_DATABASE_URL", "from_env.db")
    assert config.database_url() == f"sqlite:///{clean_env / 'from_env.db'}"
    monkeypatch.setenv("PRB_DATABASE_URL", "postgresql+psycopg://u@h:5432/db")
    assert config.database_url() == "postgresql+psycopg://u@h:5432/db"


def test_option_overrides_the_environment_variable(clean_env, monkeypatch):
    monkeypatch.setenv("PRB_DATABASE_URL", "from_env.db")
    assert config.database_url("sub/option.db") == f"sqlite:///{clean_env / 'sub' / 'option.db'}"
    assert config.database_url("sqlite:///abs.db") == "sqlite:///abs.db"


def test_home_directory_is_expanded(clean_env, monkeypatch):
    monkeypatch.setenv("HOME", str(clean_env / "home"))
    assert config.database_url("~/x.db") == f"sqlite:///{clean_env / 'home' / 'x.db'}"


def test_make_engine_follows_the_same_resolution(clean_env, monkeypatch):
    engine = make_engine()
    assert engine.url.database == str(clean_env / "prb_annotate.db")
    engine.dispose()
    monkeypatch.setenv("PRB_DATABASE_URL", str(Path("env.db")))
    engine = make_engine()
    assert engine.url.database == str(clean_env / "env.db")
    engine.dispose()
    engine = make_engine("opt.db")
    assert engine.url.database == str(clean_env / "opt.db")
    engine.dispose()
    assert sorted(p.name for p in clean_env.glob("*.db")) == ["env.db", "opt.db", "prb_annotate.db"]
