"""A throw-away database for a benchmark run: a SQLite file, or a fresh PostgreSQL database."""

from __future__ import annotations

import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import create_engine
from sqlalchemy.engine import make_url

LOCAL_POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"


@contextmanager
def scratch_database(backend: str, postgres_server: str = LOCAL_POSTGRES) -> Iterator[str]:
    """Yield the URL of an empty database on `backend` ("sqlite" or "postgresql"); drop it after."""
    if backend == "sqlite":
        with tempfile.TemporaryDirectory() as folder:
            yield f"sqlite:///{Path(folder) / 'bench.db'}"
        return
    server = make_url(postgres_server)
    admin = create_engine(server.set(database="postgres"), isolation_level="AUTOCOMMIT")
    name = f"prb_bench_{uuid.uuid4().hex[:8]}"
    with admin.connect() as connection:
        connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
    try:
        yield server.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()
