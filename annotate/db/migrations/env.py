"""Alembic environment: runs migrations on the connection `annotate.db.schema` hands over.

`annotate.db.schema.upgrade_database` opens the connection, takes the migration lock and begins the
transaction; this file only configures the context on that connection (online mode only).
Without a connection in `config.attributes` (e.g. autogenerating a new revision through
`annotate.db.schema.alembic_config`), it opens the database named by the `sqlalchemy.url` option.
"""

from __future__ import annotations

from alembic import context
from sqlmodel import SQLModel

from annotate.db.engine import connect

target_metadata = SQLModel.metadata


def run_migrations(connection) -> None:  # type: ignore[no-untyped-def]
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        # SQLite cannot ALTER most things: batch mode rebuilds the table instead.
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


def run() -> None:
    if context.is_offline_mode():
        raise RuntimeError("offline (SQL script) migrations are not supported")
    connection = context.config.attributes.get("connection")
    if connection is not None:
        run_migrations(connection)
        return
    engine = connect(context.config.get_main_option("sqlalchemy.url") or None)
    try:
        with engine.connect() as connection:
            run_migrations(connection)
            connection.commit()
    finally:
        engine.dispose()


run()
