"""A PostgreSQL server of a test's own (initdb in a temporary folder, on a free port), which the
test may stop and start again; never the shared server on 5432. Needs PostgreSQL's binaries and
root (they run as the `postgres` user)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from support.appserver import free_port

PG_BIN = next(iter(sorted(Path("/usr/lib/postgresql").glob("*/bin"))), None)


def available() -> bool:
    """Can this machine run a server of its own (binaries, root, `su`)?"""
    return PG_BIN is not None and os.geteuid() == 0 and shutil.which("su") is not None


def _as_postgres(command: str) -> None:
    done = subprocess.run(["su", "postgres", "-c", command], capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr.decode(errors="replace")


@dataclass
class OwnPostgres:
    folder: Path
    port: int

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def start(self) -> None:
        _as_postgres(
            f"{PG_BIN}/pg_ctl -D {self.folder}/data -w -l {self.folder}/log "
            f"-o '-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1' start"
        )

    def stop(self) -> None:
        _as_postgres(f"{PG_BIN}/pg_ctl -D {self.folder}/data -w -m fast stop")


@contextmanager
def own_postgres() -> Iterator[OwnPostgres]:
    """A new server, started; stopped and removed at the end."""
    folder = Path(tempfile.mkdtemp(prefix="prb-own-postgres-"))  # pytest's folders are root's
    try:
        shutil.chown(folder, "postgres")
        _as_postgres(f"{PG_BIN}/initdb -D {folder}/data -A trust -U postgres")
        server = OwnPostgres(folder, free_port())
        server.start()
        try:
            yield server
        finally:
            if (folder / "data" / "postmaster.pid").exists():
                server.stop()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
