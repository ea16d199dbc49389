"""A throw-away database for a benchmark run: a SQLite file, or a fresh PostgreSQL database."""

from __future__ import annotations

import argparse
import os
import tempfile
import uuid
from collections.abc import Callable, Iterator
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


def add_database_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--database-url", default=None, help="a PostgreSQL server URL")


def run_on_scratch_database(
    args: argparse.Namespace, run: Callable[[Path, str, argparse.Namespace], None]
) -> None:
    """`run(folder, url, args)` with a temporary folder and a scratch database: a fresh one on
    the PostgreSQL server `args.database_url` (`add_database_option`), else a SQLite file. The
    machine's load is printed before and after."""
    backend = "postgresql" if args.database_url else "sqlite"
    server = args.database_url or LOCAL_POSTGRES
    print(f"load average {os.getloadavg()[0]:.2f} (1 min), {os.cpu_count()} cores, {backend}")
    with tempfile.TemporaryDirectory() as folder, scratch_database(backend, server) as url:
        run(Path(folder), url, args)
    print(f"load average {os.getloadavg()[0]:.2f} (1 min) at the end")
