"""The database layer: engine and sessions (`engine`), tables (`tables`), schema upgrades
(`schema`, `migrations/`) and the queries several domain modules share (`queries`).

`make_engine` is the one way the rest of the product opens a database: it connects and brings the
schema to the current revision.
"""

from __future__ import annotations

from sqlalchemy.engine import Engine

from annotate.db.engine import (
    connect,
    is_sqlite,
    read_session,
    reclaim_erased,
    snapshot_session,
    write_options,
    write_session,
)
from annotate.db.schema import upgrade_database

__all__ = [
    "is_sqlite",
    "make_engine",
    "read_session",
    "reclaim_erased",
    "snapshot_session",
    "write_options",
    "write_session",
]


def make_engine(path_or_url: str | None = None, *, create: bool = True) -> Engine:
    """Return an engine for a SQLite path or a SQLAlchemy URL; with `create`, create the tables
    or upgrade them to the current schema (`annotate.db.schema.upgrade_database`)."""
    engine = connect(path_or_url)
    if create:
        upgrade_database(engine)
    return engine
