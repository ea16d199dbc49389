"""Backups of the database while the app keeps running.

SQLite: the online backup API copies a consistent snapshot even while annotators submit.
PostgreSQL: use `pg_dump` (docs/deployment.md); this module says so instead of guessing.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sqlalchemy.engine import Engine, make_url

from annotate.errors import Broken


class BackupError(Broken):
    pass


def backup_database(engine: Engine, destination: Path) -> Path:
    """Copy a SQLite database to `destination` (a new file) and return its path."""
    url = make_url(str(engine.url))
    if url.get_backend_name() != "sqlite":
        raise BackupError(
            "online backup is built in for SQLite only; for PostgreSQL run "
            "`pg_dump --format=custom --file=prb.dump DBNAME` (restore with pg_restore)"
        )
    if destination.exists():
        raise BackupError(f"{destination} already exists; choose a new file name")
    destination.parent.mkdir(parents=True, exist_ok=True)
    partial = destination.with_name(destination.name + ".part")
    source = sqlite3.connect(url.database or "")
    target = sqlite3.connect(partial)
    try:
        with target:
            source.backup(target)
    finally:
        target.close()
        source.close()
    partial.replace(destination)
    return destination
