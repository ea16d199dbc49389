"""The database as the entry points see it: an engine to hand to the services, and the schema's
revision. The app and the command line open no session of their own (a contract in
`pyproject.toml` and `tests/test_architecture.py`): every read and write is a service's.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError

from annotate.config import database_url
from annotate.db import make_engine
from annotate.db.schema import HEAD_REVISION, current_revision, detect_revision, upgrade_database
from annotate.errors import Unavailable

CURRENT_REVISION = HEAD_REVISION
"""The schema revision this version of the product writes."""


class DatabaseUnreachable(Unavailable):
    """The database could not be opened (a wrong address, a server that does not answer)."""


def open_database(path_or_url: str | None, *, upgrade: bool = True) -> Engine:
    """An engine on the SQLite file or URL (default: the configured one), connected once; with
    `upgrade`, the schema brought to the current revision first. Raises `DatabaseUnreachable`
    naming the database (its password hidden) and the driver's reason."""
    try:
        engine = make_engine(path_or_url, create=upgrade)
        engine.connect().close()
    except OperationalError as error:
        raise DatabaseUnreachable(
            f"cannot open the database {database_url(path_or_url)}: {error.orig or error}"
        ) from None
    return engine


@dataclass(frozen=True)
class Revision:
    """Where a database's schema stands: the revision it records (None: none recorded), the
    one its columns show when it records none (None: an empty database), and the current one."""

    recorded: str | None
    detected: str | None
    head: str = CURRENT_REVISION


def revision_of(engine: Engine) -> Revision:
    """The schema revision of a database opened without upgrading it."""
    recorded = current_revision(engine)
    if recorded is not None:
        return Revision(recorded, None)
    with engine.connect() as connection:
        return Revision(None, detect_revision(connection))


def upgrade(engine: Engine) -> str | None:
    """Bring the database to the current schema; the revision it was at (None: empty)."""
    return upgrade_database(engine)
