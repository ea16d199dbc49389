"""The database engine: one factory for SQLite files and any SQLAlchemy URL.

SQLite gets WAL, foreign keys, a busy timeout and `BEGIN IMMEDIATE` for write transactions,
so that a read-then-write unit of work never fails with "database is locked" under concurrency.

PostgreSQL gets short connect and statement timeouts, so that an outage fails a request within
seconds instead of hanging it. A write that fails because the database is down, unreachable, too
slow or out of disk raises `annotate.errors.Unavailable` (nothing of it was saved): the page says
"not saved, please retry" and keeps the annotator's entries; the pool reconnects by itself once
the database is back.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from sqlalchemy import event, text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError
from sqlmodel import Session, create_engine

import annotate.db.tables  # noqa: F401  (registers the tables on SQLModel.metadata)
from annotate.config import database_url
from annotate.errors import Unavailable

SQLITE_BUSY_TIMEOUT_MS = 30_000
PG_CONNECT_TIMEOUT_S = 5
# A statement that runs longer is cancelled by the server. Waits for the write lock count too:
# at 200 submits at once the longest wait measured was ~23 s.
PG_STATEMENT_TIMEOUT_MS = 30_000
PG_WRITE_LOCK_KEY = 0x70726200  # "prb\0": the advisory lock that serialises write sessions
_WRITE_OPTION = "prb_write"


def connect(path_or_url: str | None = None) -> Engine:
    """Return an engine for a SQLite path or a SQLAlchemy URL, the schema left as it is
    (`annotate.db.make_engine` also creates or upgrades it)."""
    url = database_url(path_or_url)
    # Errors (and the server log their tracebacks go to) never show the statement's values:
    # token hashes, annotators' comments, dataset text.
    if url.startswith("sqlite"):
        engine = create_engine(
            url,
            connect_args={"check_same_thread": False, "timeout": SQLITE_BUSY_TIMEOUT_MS / 1000},
            hide_parameters=True,
        )
        _configure_sqlite(engine)
    else:
        engine = create_engine(
            url, pool_pre_ping=True, hide_parameters=True, connect_args=_postgres_timeouts(url)
        )
    return engine


def _postgres_timeouts(url: str) -> dict[str, object]:
    if not url.startswith("postgresql"):
        return {}
    return {
        "connect_timeout": PG_CONNECT_TIMEOUT_S,
        "options": f"-c statement_timeout={PG_STATEMENT_TIMEOUT_MS}",
    }


def write_options() -> dict[str, bool]:
    """Execution options that make a SQLite connection begin with `BEGIN IMMEDIATE`."""
    return {_WRITE_OPTION: True}


def is_sqlite(engine: Engine) -> bool:
    return engine.dialect.name == "sqlite"


def _configure_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
        # Let SQLAlchemy's "begin" event emit BEGIN itself, so writes can ask for IMMEDIATE.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        # A deleted or replaced row's bytes are overwritten with zeros, not left in free space
        # (an erasure, and every earlier edit of a comment, leave nothing behind).
        cursor.execute("PRAGMA secure_delete=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection) -> None:  # type: ignore[no-untyped-def]
        immediate = connection.get_execution_options().get(_WRITE_OPTION, False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


def reclaim_erased(engine: Engine, tables: Sequence[str]) -> None:
    """Once an erasure has committed, make the erased bytes leave the database's files.

    SQLite has overwritten them with zeros as it deleted (`secure_delete`), but its WAL still
    holds the pages as they were: they are copied back and the WAL truncated to zero bytes
    (`wal_checkpoint(TRUNCATE)`; a reader still open keeps it until the next erasure or the
    next automatic checkpoint). PostgreSQL leaves deleted rows in the tables' files until a
    vacuum: `VACUUM FULL` rewrites the `tables` named (it locks each, briefly on tables of
    this size; readers wait). PostgreSQL's own write-ahead log and any archive of it keep the
    old pages until the server recycles them (docs/participants-data.md says what to do).
    """
    if is_sqlite(engine):
        raw = engine.raw_connection()
        try:
            raw.cursor().execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            raw.close()
        return
    quote = engine.dialect.identifier_preparer.quote
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.exec_driver_sql("VACUUM FULL " + ", ".join(quote(t) for t in tables))


@contextmanager
def write_session(engine: Engine) -> Iterator[Session]:
    """One write transaction: committed when the block ends, rolled back on any error.

    On SQLite the transaction takes the write lock at once (`BEGIN IMMEDIATE`). On PostgreSQL it
    takes a transaction-level advisory lock first, so write sessions run one at a time there too
    and a read-then-write unit of work cannot lose an update or act on a stale read.
    """
    bind = engine.execution_options(**write_options()) if is_sqlite(engine) else engine
    with (
        _unavailable_on_outage(),
        Session(bind, expire_on_commit=False) as session,
        session.begin(),
    ):
        if engine.dialect.name == "postgresql":
            session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": PG_WRITE_LOCK_KEY})
        yield session


@contextmanager
def _unavailable_on_outage() -> Iterator[None]:
    """Turn the driver's "cannot reach / cannot write" errors into `Unavailable`.

    `OperationalError` is what both drivers raise for a refused or lost connection, a
    cancelled statement (timeout) and a full disk; constraint violations are other classes and
    pass through unchanged.
    """
    try:
        yield
    except OperationalError as error:
        raise Unavailable(
            "the database did not answer or could not save: nothing was saved, please retry"
        ) from error


@contextmanager
def read_session(engine: Engine) -> Iterator[Session]:
    """A session for reading; objects stay usable after the block ends."""
    with _unavailable_on_outage(), Session(engine, expire_on_commit=False) as session:
        yield session


@contextmanager
def snapshot_session(engine: Engine) -> Iterator[Session]:
    """A read session whose every query sees the same snapshot of the database (a report's
    ratings, aspects and settings from one moment). SQLite's read transaction (`BEGIN`, WAL)
    already does; PostgreSQL's default, read committed, takes a snapshot per statement, so the
    transaction is repeatable read."""
    with read_session(engine) as session:
        if not is_sqlite(engine):
            session.connection(execution_options={"isolation_level": "REPEATABLE READ"})
        yield session
