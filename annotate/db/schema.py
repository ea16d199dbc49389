"""Schema migrations: every database is brought to the current tables with Alembic.

The revisions live in `annotate/db/migrations/versions`, one per schema change, oldest first
(`0001_first_schema` is the first release's schema). Alembic is configured here in code, so the
installed package needs no alembic.ini. `upgrade_database(engine)` is what `make_engine` runs:

* a database at the head revision: nothing to do (one query, no lock);
* a fresh database (none of our tables): `create_all`, then stamp the head revision;
* a database with an `alembic_version` table: `upgrade head`;
* a database made before migrations existed (our tables, no `alembic_version`): the columns each
  revision added tell which revision it is at; stamp that revision, then `upgrade head`.

Several app servers may start at once on one database, so the work runs in one transaction that
holds a lock: a PostgreSQL advisory lock, or SQLite's write lock (`BEGIN IMMEDIATE`). Whoever
waited finds the database upgraded and does nothing. On SQLite, foreign keys are switched off
while batch mode rebuilds tables (a rebuild drops the old table) and checked before commit.

A new schema change needs a new revision: edit `annotate/db/tables.py`, then autogenerate a draft
against a database at head and review it (server defaults for new NOT NULL columns!):

    python -c "from alembic import command; from annotate.db.schema import alembic_config; \
        command.revision(alembic_config('sqlite:///head.db'), 'what changed', autogenerate=True)"

and add the columns it introduces to `REVISION_MARKERS` (a test checks that every revision has
markers; they only matter for databases that record no revision).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Column, MetaData, PrimaryKeyConstraint, String, Table, inspect, text
from sqlalchemy.engine import Connection, Engine
from sqlmodel import SQLModel

import annotate.db.tables  # registers the tables on SQLModel.metadata; SiteSecret
from annotate.db.engine import write_options
from annotate.errors import Broken

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
PG_MIGRATION_LOCK_KEY = 0x70726201  # "prb\1": held while a process upgrades the schema
FIRST_REVISION = "0001_first_schema"
# The newest revision, so that starting on an up-to-date database needs no Alembic import
# (a test checks it against the scripts).
HEAD_REVISION = "0028_entry_keys"
VERSION_TABLE = "alembic_version"
# The columns each revision added, to recognise databases made before migrations existed.
REVISION_MARKERS: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    (
        "0002_pools_and_gold",
        (
            ("study", "overlap"),
            ("study", "reservation_minutes"),
            ("study", "gold_rate"),
            ("pair", "gold_preference"),
            ("annotator", "external_id"),
            ("assignment", "reserved_until"),
        ),
    ),
    ("0003_admin", (("study", "pool_open"), ("study", "pool_quota"), ("study", "enrolment_open"))),
    (
        "0004_enrolment_secrets",
        (("study", "enrolment_key"), ("annotator", "enrolment_session_hash")),
    ),
    ("0005_reward_models", (("rewardmodel", "id"), ("modelprediction", "id"))),
    ("0006_margin_record", (("study", "margin_unit"),)),
    (
        "0007_study_operations",
        (("auditentry", "id"), ("pairexclusion", "id"), ("flagresolution", "id")),
    ),
    ("0008_study_designs", (("study", "consent_text"), ("participation", "id"))),
    (
        "0009_aspect_checklist",
        (
            ("study", "aspect_checklist"),
            ("aspectmark", "id"),
            ("aspectmarkrevision", "id"),
            ("aspectjudge", "id"),
            ("aspectjudgescore", "id"),
        ),
    ),
    ("0010_training", (("study", "practice_pairs"), ("training", "id"))),
    ("0011_exclusion_rules", (("study", "exclusion_rules"),)),
    ("0012_adjudication", (("study", "adjudication_threshold"), ("assignment", "purpose"))),
    ("0013_preference_history", (("assignment", "preference_history"),)),
    (
        "0014_pool_order_and_roles",
        (("study", "pool_order"), ("study", "finish_minimum"), ("participation", "finished_at")),
    ),
    ("0015_analysis_plan", (("study", "alpha"), ("annotator", "simulated"))),
    (
        "0016_participants_data",
        (("sitesecret", "id"), ("erasure", "id"), ("study", "retention_days")),
    ),
    (
        "0017_downstream",
        (
            ("study", "comparison"),
            ("aspectjudge", "unparsed"),
            ("downstreamcondition", "id"),
            ("downstreamoutput", "id"),
        ),
    ),
    ("0018_logout", (("annotator", "session_epoch"),)),
    ("0019_forced_after_data", (("study", "sequential"),)),
    (
        "0020_outcomes_slots",
        (("study", "skip_limit"), ("assignment", "released_at"), ("participation", "outcome")),
    ),
    (
        "0021_signals",
        (("assignment", "focus_losses"), ("study", "instructed_checks"), ("checkanswer", "id")),
    ),
    ("0022_platform", (("study", "platform"), ("platformaction", "id"))),
    ("0023_monitor", (("study", "close_at_stop"),)),
    ("0024_questionnaire", (("study", "questionnaire"),)),
    ("0025_conversation", (("pair", "conversation"),)),
    ("0026_internal_pilot", (("study", "internal_pilot"),)),
    ("0027_spans", (("span", "id"),)),
    ("0028_entry_keys", (("entrykey", "id"),)),
)
# Tables a revision created (marked by their `id` column): a database from before that revision
# lacks them, which is how its revision is recognised, not a broken schema.
ADDED_TABLES = frozenset(
    table for _, markers in REVISION_MARKERS for table, column in markers if column == "id"
)


class SchemaError(Broken):
    """The database's schema is not one this version of prb-annotate knows how to upgrade."""


def alembic_config(url: str | None = None, connection: Connection | None = None) -> Config:
    """An Alembic configuration for our migrations, on `connection` (or the database `url`)."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    if url is not None:
        config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    config.attributes["connection"] = connection
    return config


@cache
def script_revisions() -> tuple[str, ...]:
    """Every revision of the migration scripts, oldest first."""
    from alembic.script import ScriptDirectory

    script = ScriptDirectory.from_config(alembic_config())
    return tuple(reversed([r.revision for r in script.walk_revisions()]))


def current_revision(engine: Engine) -> str | None:
    """The revision recorded in the database (None: fresh or made before migrations)."""
    with engine.connect() as connection:
        return _recorded_revision(connection)


def _recorded_revision(connection: Connection) -> str | None:
    if not inspect(connection).has_table(VERSION_TABLE):
        return None
    return connection.execute(text(f"SELECT version_num FROM {VERSION_TABLE}")).scalar()


def upgrade_database(engine: Engine, target: str = HEAD_REVISION) -> str | None:
    """Bring the database to the `target` revision (default: the current schema); return the
    revision it was at before (None for a fresh database). Safe to run in several processes at
    once. A `target` other than head is for tests (a database at an old schema)."""
    before = current_revision(engine)
    if before == target:
        return before
    with _locked_transaction(engine) as connection:
        return _upgrade(connection, target)


def _upgrade(connection: Connection, target: str) -> str | None:
    from alembic import command

    before = _recorded_revision(connection)
    if before == target:  # another process upgraded it while we waited for the lock
        return before
    config = alembic_config(connection=connection)
    if before is None:
        before = detect_revision(connection)
        if before is None and target == HEAD_REVISION:
            # A fresh database: creating the tables at once is quicker than replaying history.
            SQLModel.metadata.create_all(connection)
            _seed_secrets(connection)
            _stamp_head(connection)
            return None
        if before is not None:
            command.stamp(config, before)
    if before is not None:
        _check_known(before)
    command.upgrade(config, target)
    return before


def _seed_secrets(connection: Connection) -> None:
    """The database's own secrets, as migration 0016 makes them for an upgraded database: the
    key of the annotators' pseudonyms (`annotate.domain.exports.pseudonyms`)."""
    table = annotate.db.tables.SiteSecret.__table__  # type: ignore[attr-defined]
    connection.execute(table.insert().values(name="pseudonym", value=secrets.token_hex(32)))


def _stamp_head(connection: Connection) -> None:
    """What `alembic stamp head` does on a database without a version table, minus the cost of
    loading the scripts (it runs for every fresh test database)."""
    version = Table(
        VERSION_TABLE,
        MetaData(),
        Column("version_num", String(32), nullable=False),
        PrimaryKeyConstraint("version_num", name=f"{VERSION_TABLE}_pkc"),
    )
    version.create(connection)
    connection.execute(version.insert().values(version_num=HEAD_REVISION))


def _check_known(revision: str) -> None:
    if revision not in script_revisions():
        raise SchemaError(
            f"the database is at revision {revision!r}, which this version of prb-annotate does "
            "not know (made by a newer version?); upgrade prb-annotate"
        )


def schema_differences(engine: Engine) -> list[Any]:
    """What Alembic's autogenerate finds between the database and the models (types and server
    defaults included); empty when the database has exactly the current schema."""
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext

    options = {"compare_type": True, "compare_server_default": True}
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts=options)
        return list(compare_metadata(context, SQLModel.metadata))


def detect_revision(connection: Connection) -> str | None:
    """The revision of a database made before migrations (None: none of our tables)."""
    inspector = inspect(connection)
    tables = set(inspector.get_table_names())
    ours = set(SQLModel.metadata.tables)
    if not tables & ours:
        return None
    if missing := sorted(ours - tables - ADDED_TABLES):
        raise SchemaError(f"the database has some of prb-annotate's tables but not {missing}")
    columns = {table: {c["name"] for c in inspector.get_columns(table)} for table in ours & tables}
    revision = FIRST_REVISION
    for candidate, markers in REVISION_MARKERS:
        present = [column in columns.get(table, ()) for table, column in markers]
        if not any(present):
            break
        if not all(present):
            raise SchemaError(
                f"cannot tell the schema's revision: it has some but not all of the columns "
                f"{candidate} added ({[f'{t}.{c}' for t, c in markers]})"
            )
        revision = candidate
    return revision


@contextmanager
def _locked_transaction(engine: Engine) -> Iterator[Connection]:
    """A connection in a transaction that holds the migration lock; committed at the end."""
    if engine.dialect.name == "sqlite":
        with _sqlite_locked(engine) as connection:
            yield connection
        return
    with engine.connect() as connection, connection.begin():
        if engine.dialect.name == "postgresql":
            connection.execute(
                text("SELECT pg_advisory_xact_lock(:key)"), {"key": PG_MIGRATION_LOCK_KEY}
            )
        yield connection


@contextmanager
def _sqlite_locked(engine: Engine) -> Iterator[Connection]:
    """SQLite: foreign keys off (batch mode rebuilds tables), then `BEGIN IMMEDIATE`."""
    with engine.connect() as connection:
        raw = connection.connection.driver_connection
        assert raw is not None  # an open connection has its driver's connection
        raw.execute("PRAGMA foreign_keys=OFF")  # no effect inside a transaction: before BEGIN
        try:
            connection.execution_options(**write_options())
            with connection.begin():
                yield connection
                problems = connection.exec_driver_sql("PRAGMA foreign_key_check").all()
                if problems:
                    raise SchemaError(f"the upgrade broke foreign keys: {problems[:5]}")
        finally:
            raw.execute("PRAGMA foreign_keys=ON")
