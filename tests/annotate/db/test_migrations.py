"""Schema migrations on real databases: old schemas upgrade to the current one, ratings intact.

A database at an old schema is built two ways: by Alembic revisions (`upgrade_database(engine,
"0001_first_schema")`), and, like the releases before migrations made it, by running the frozen
`create_all` DDL of that release (tests/annotate/db/migration_schemas/, no `alembic_version` table).
Data goes in through plain SQL, as the code of that time stored it. `schema_differences` (Alembic's
`compare_metadata`, types and server defaults included) must then find nothing.
"""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.operations import Operations
from alembic.runtime.migration import MigrationContext
from sqlalchemy import text
from sqlalchemy.engine import Engine
from sqlmodel import select
from typer.testing import CliRunner

import annotate.db
from annotate.cli.common import State, app
from annotate.db import make_engine, read_session
from annotate.db.schema import (
    FIRST_REVISION,
    HEAD_REVISION,
    REVISION_MARKERS,
    SchemaError,
    _locked_transaction,
    alembic_config,
    current_revision,
    detect_revision,
    schema_differences,
    script_revisions,
    upgrade_database,
)
from annotate.db.tables import Annotator, Study
from annotate.domain.rating.queue import queue
from annotate.questionnaire import DEFAULT_QUESTIONNAIRE, QuestionRole
from annotate.services.participant.rating import submit_rating
from annotate.vocabulary import DEFAULT_ANCHORS, DIMENSION_DEFINITIONS, DIMENSION_LABELS, DIMENSIONS

SCHEMAS = Path(__file__).resolve().parent / "migration_schemas"
# The commit of each released schema before migrations existed, and the revision it equals.
RELEASES = {
    "16b6f3f": "0001_first_schema",
    "d25d9fd": "0002_pools_and_gold",
    "7bce4cd": "0003_admin",
}
T0 = datetime(2026, 11, 30, 9, 15, 0, 123456, tzinfo=UTC)


# ---------------------------------------------------------------- building old databases


def pre_alembic_database(url: str, commit: str) -> Engine:
    """A database as the release `commit` made it with `create_all`: no `alembic_version`."""
    engine = make_engine(url, create=False)
    ddl = (SCHEMAS / f"{commit}_{engine.dialect.name}.sql").read_text()
    sql = "\n".join(line for line in ddl.splitlines() if not line.startswith("--"))
    with engine.begin() as connection:
        for statement in filter(str.strip, sql.split(";\n")):
            connection.exec_driver_sql(statement)
    return engine


def database_at(url: str, start: str) -> Engine:
    """`start`: a revision to upgrade an empty database to, or a release commit (pre-Alembic)."""
    if start in RELEASES:
        return pre_alembic_database(url, start)
    engine = make_engine(url, create=False)
    upgrade_database(engine, start)
    return engine


def when(engine: Engine, minutes: float) -> Any:
    """A timestamp as the app stored it: SQLAlchemy's text format on SQLite."""
    moment = T0 + timedelta(minutes=minutes)
    if engine.dialect.name == "sqlite":
        return moment.replace(tzinfo=None).isoformat(sep=" ")
    return moment


def insert(engine: Engine, table: str, **values: Any) -> int:
    names = ", ".join(values)
    params = ", ".join(f":{name}" for name in values)
    with engine.begin() as connection:
        row = connection.execute(
            text(f"INSERT INTO {table} ({names}) VALUES ({params}) RETURNING id"), values
        )
        return row.scalar_one()


def first_schema_data(engine: Engine) -> dict[str, int]:
    """A study at the first schema: 3 pairs, 2 annotators; alice rated 2 pairs (one score
    revised) and has one pending, bob skipped one and has two pending."""
    study = insert(
        engine,
        "study",
        name="pilot",
        seed=7,
        scale_min=1,
        scale_max=5,
        anchors=json.dumps({str(k): v for k, v in DEFAULT_ANCHORS.items()}),
        dimension_labels=json.dumps(DIMENSION_LABELS),
        dimension_definitions=json.dumps(DIMENSION_DEFINITIONS),
        guidelines="Read the profile first.",
        equivalence_margin=0.5,
        completion_code=None,
        created_at=when(engine, 0),
    )
    pairs = [
        insert(
            engine,
            "pair",
            study_id=study,
            record_id=f"0_{i}_0",
            domain="Art_and_Entertainment",
            category="Music",
            question=f"Which album should I start with? ({i})",
            narrative="A user who likes jazz.",
            profile=json.dumps([{"aspect": "taste", "value": "jazz"}]),
            rubric_aspects=json.dumps([{"aspect": "fit", "weight": 1}]),
            chosen="Kind of Blue.",
            rejected="Anything loud.",
            extra=json.dumps({}),
            content_hash=f"hash{i}",
            created_at=when(engine, 1),
        )
        for i in range(3)
    ]
    ids = {"study": study, **{f"pair{i}": p for i, p in enumerate(pairs)}}
    for name in ("alice", "bob"):
        ids[name] = insert(
            engine,
            "annotator",
            name=name,
            role="annotator",
            token_hash=f"token-{name}",
            active=True,
            created_at=when(engine, 2),
        )
    for who, statuses in (("alice", ["done", "done", "pending"]), ("bob", ["skipped", "pending"])):
        for position, (pair, status) in enumerate(zip(pairs, statuses, strict=False)):
            ids[f"{who}{position}"] = insert(
                engine,
                "assignment",
                study_id=study,
                annotator_id=ids[who],
                pair_id=pair,
                position=position,
                chosen_side="AB"[position % 2],
                status=status,
                skip_reason="unclear question" if status == "skipped" else None,
                flagged=position == 1,
                flag_reason="typo in response" if position == 1 else None,
                comment=None,
                completed_at=when(engine, 10 + position) if status != "pending" else None,
                created_at=when(engine, 3),
            )
    for position in (0, 1):
        for n, (response, dimension) in enumerate(
            (r, d) for r in ("chosen", "rejected") for d in DIMENSIONS
        ):
            rating = insert(
                engine,
                "rating",
                assignment_id=ids[f"alice{position}"],
                response=response,
                dimension=dimension,
                score=1 + (n + position) % 5,
                seconds=41.5 + position,
                revision=2 if (position, n) == (1, 0) else 1,
                created_at=when(engine, 10 + position),
                updated_at=when(engine, 20 if (position, n) == (1, 0) else 10 + position),
            )
            if (position, n) == (1, 0):
                insert(
                    engine,
                    "ratingrevision",
                    rating_id=rating,
                    revision=1,
                    score=3,
                    seconds=12.25,
                    created_at=when(engine, 11),
                    replaced_at=when(engine, 20),
                )
    return ids


def rows(engine: Engine, table: str, columns: str = "*") -> list[tuple[Any, ...]]:
    with engine.connect() as connection:
        return [
            tuple(row)
            for row in connection.execute(text(f"SELECT {columns} FROM {table} ORDER BY id"))
        ]


FIRST_COLUMNS = {
    "study": "id, name, seed, guidelines, equivalence_margin, created_at",
    "pair": "id, study_id, record_id, domain, chosen, rejected, content_hash, created_at",
    "annotator": "id, name, role, token_hash, active, created_at",
    "assignment": "id, study_id, annotator_id, pair_id, position, chosen_side, status, "
    "skip_reason, flagged, flag_reason, completed_at, created_at",
    "rating": "*",
    "ratingrevision": "*",
}


def first_schema_rows(engine: Engine) -> dict[str, list[tuple[Any, ...]]]:
    return {table: rows(engine, table, columns) for table, columns in FIRST_COLUMNS.items()}


def versions(engine: Engine) -> list[str]:
    with engine.connect() as connection:
        return list(connection.execute(text("SELECT version_num FROM alembic_version")).scalars())


# ---------------------------------------------------------------- the revisions


def test_head_revision_and_markers_follow_the_scripts():
    assert script_revisions() == (
        FIRST_REVISION,
        "0002_pools_and_gold",
        "0003_admin",
        "0004_enrolment_secrets",
        "0005_reward_models",
        "0006_margin_record",
        "0007_study_operations",
        "0008_study_designs",
        "0009_aspect_checklist",
        "0010_training",
        "0011_exclusion_rules",
        "0012_adjudication",
        "0013_preference_history",
        "0014_pool_order_and_roles",
        "0015_analysis_plan",
        "0016_participants_data",
        "0017_downstream",
        "0018_logout",
        "0019_forced_after_data",
        "0020_outcomes_slots",
        "0021_signals",
        "0022_platform",
        "0023_monitor",
        "0024_questionnaire",
        "0025_conversation",
        "0026_internal_pilot",
        "0027_spans",
        "0028_entry_keys",
    )
    assert script_revisions()[-1] == HEAD_REVISION
    assert [revision for revision, _ in REVISION_MARKERS] == list(script_revisions()[1:])


def test_the_migration_scripts_ship_inside_the_package():
    location = Path(alembic_config().get_main_option("script_location"))
    assert (location / "env.py").is_file()
    assert (location / "script.py.mako").is_file()
    assert location.parent == Path(annotate.db.__file__).resolve().parent  # inside the package


@pytest.mark.parametrize(
    "start",
    [
        FIRST_REVISION,
        "0002_pools_and_gold",
        "0003_admin",
        "0004_enrolment_secrets",
        "0005_reward_models",
        "0006_margin_record",
        "0007_study_operations",
        "0008_study_designs",
        *RELEASES,
    ],
)
def test_every_old_schema_upgrades_to_exactly_the_models(empty_db_url, start):
    engine = database_at(empty_db_url, start)
    try:
        expected = RELEASES.get(start, start)
        if start in RELEASES:
            with engine.connect() as connection:
                assert detect_revision(connection) == expected
            assert current_revision(engine) is None
        else:
            assert current_revision(engine) == expected
        assert (schema_differences(engine) == []) is (expected == HEAD_REVISION)
        assert upgrade_database(engine) == expected
        assert versions(engine) == [HEAD_REVISION]
        assert schema_differences(engine) == []
    finally:
        engine.dispose()


def test_open_crowd_studies_get_a_link_key_when_upgraded(empty_db_url):
    engine = database_at(empty_db_url, FIRST_REVISION)
    try:
        first_schema_data(engine)
        upgrade_database(engine, "0003_admin")
        with engine.begin() as connection:
            connection.execute(text("UPDATE study SET pool_open = true, enrolment_open = true"))
        upgrade_database(engine)
        (key,) = [row[0] for row in rows(engine, "study", "enrolment_key")]
        assert key is not None
        assert len(key) >= 22
    finally:
        engine.dispose()


def test_an_existing_study_s_margin_counts_as_set_in_points_when_it_was_created(empty_db_url):
    engine = database_at(empty_db_url, FIRST_REVISION)
    try:
        first_schema_data(engine)
        upgrade_database(engine)
        ((unit, set_at, history, created_at),) = rows(
            engine, "study", "margin_unit, margin_set_at, margin_history, created_at"
        )
        assert unit == "points"
        assert set_at == created_at
        assert history in ([], "[]")  # a JSON list (SQLite hands back its text)
    finally:
        engine.dispose()


def test_existing_assignments_are_ratings_and_studies_have_no_adjudication_threshold(
    empty_db_url,
):
    engine = database_at(empty_db_url, FIRST_REVISION)
    try:
        first_schema_data(engine)  # 5 assignments (see first_schema_data)
        upgrade_database(engine)
        assert rows(engine, "assignment", "purpose") == [("rating",)] * 5
        assert rows(engine, "study", "adjudication_threshold") == [(None,)]
    finally:
        engine.dispose()


def test_a_fresh_database_gets_the_models_and_the_head_revision(empty_db_url):
    engine = make_engine(empty_db_url)
    try:
        assert versions(engine) == [HEAD_REVISION]
        assert schema_differences(engine) == []
    finally:
        engine.dispose()


def test_the_per_test_database_is_at_head(engine):
    assert current_revision(engine) == HEAD_REVISION


# ---------------------------------------------------------------- ratings survive


@pytest.mark.parametrize("start", [FIRST_REVISION, "16b6f3f"], ids=["alembic-0001", "pre-alembic"])
def test_first_schema_data_survives_and_the_app_works_on_it(empty_db_url, start):
    old = database_at(empty_db_url, start)
    ids = first_schema_data(old)
    before = first_schema_rows(old)
    assert len(before["rating"]) == 16
    assert len(before["ratingrevision"]) == 1
    old.dispose()

    engine = make_engine(empty_db_url)  # what the app does at start
    try:
        assert versions(engine) == [HEAD_REVISION]
        assert first_schema_rows(engine) == before
        assert rows(
            engine,
            "study",
            "overlap, reservation_minutes, gold_rate, pool_open, pool_quota, enrolment_open",
        ) == [(3, 60, 0.0, False, None, False)]
        assert rows(engine, "pair", "gold_preference") == [(None,)] * 3
        assert rows(engine, "annotator", "external_id") == [(None,), (None,)]
        assert rows(engine, "assignment", "reserved_until") == [(None,)] * 5
        _the_app_works(engine, ids)
        assert first_schema_rows(engine)["ratingrevision"] == before["ratingrevision"]
        assert first_schema_rows(engine)["rating"][:16] == before["rating"]
    finally:
        engine.dispose()


def _the_app_works(engine: Engine, ids: dict[str, int]) -> None:
    with read_session(engine) as session:
        entries = queue(session, ids["alice"])
        study = session.exec(select(Study)).one()
        alice = session.get(Annotator, ids["alice"])
    assert [e.status for e in entries] == ["done", "done", "pending"]
    assert (study.overlap, study.pool_open, alice.external_id) == (3, False, None)
    scores = {side: dict.fromkeys(DIMENSIONS, 4) for side in "AB"}
    result = submit_rating(
        engine, annotator_id=ids["alice"], assignment_id=ids["alice2"], scores=scores, seconds=30
    )
    assert result.status == "saved"
    with read_session(engine) as session:
        assert [e.status for e in queue(session, ids["alice"])] == ["done"] * 3
        assert [e.status for e in queue(session, ids["bob"])] == ["skipped", "pending"]
    assert len(rows(engine, "rating")) == 24


def test_upgrading_twice_changes_nothing(empty_db_url):
    engine = database_at(empty_db_url, "16b6f3f")
    try:
        first_schema_data(engine)
        assert upgrade_database(engine) == FIRST_REVISION
        upgraded = {table: rows(engine, table) for table in FIRST_COLUMNS}
        assert upgrade_database(engine) == HEAD_REVISION
        assert make_engine(empty_db_url).dispose() is None
        assert {table: rows(engine, table) for table in FIRST_COLUMNS} == upgraded
        assert versions(engine) == [HEAD_REVISION]
    finally:
        engine.dispose()


def test_downgrade_to_the_first_schema_and_back_keeps_the_ratings(empty_db_url):
    engine = database_at(empty_db_url, FIRST_REVISION)
    try:
        first_schema_data(engine)
        before = first_schema_rows(engine)
        upgrade_database(engine)
        with _locked_transaction(engine) as connection:
            command.downgrade(alembic_config(connection=connection), FIRST_REVISION)
        assert versions(engine) == [FIRST_REVISION]
        assert first_schema_rows(engine) == before
        upgrade_database(engine)
        assert schema_differences(engine) == []
        assert first_schema_rows(engine) == before
    finally:
        engine.dispose()


# ---------------------------------------------------------------- several servers at once


@pytest.mark.parametrize("start", ["fresh", "16b6f3f"])
def test_servers_starting_at_once_upgrade_once_without_errors(empty_db_url, start):
    if start != "fresh":
        old = database_at(empty_db_url, start)
        first_schema_data(old)
        before = first_schema_rows(old)
        old.dispose()
    barrier = threading.Barrier(4)
    errors: list[BaseException] = []

    def server() -> None:
        try:
            barrier.wait()
            make_engine(empty_db_url).dispose()
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=server) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert errors == []
    engine = make_engine(empty_db_url, create=False)
    try:
        assert versions(engine) == [HEAD_REVISION]
        assert schema_differences(engine) == []
        if start != "fresh":
            assert first_schema_rows(engine) == before
    finally:
        engine.dispose()


# ---------------------------------------------------------------- the checks can fail


def test_a_wrong_detection_would_be_caught(empty_db_url):
    engine = database_at(empty_db_url, "16b6f3f")
    try:
        with _locked_transaction(engine) as connection:
            command.stamp(alembic_config(connection=connection), "0002_pools_and_gold")
        upgrade_database(engine)
        missing = {(d[0], d[3].name) for d in schema_differences(engine) if d[0] == "add_column"}
        assert ("add_column", "gold_preference") in missing
        assert ("add_column", "overlap") in missing
    finally:
        engine.dispose()


def test_a_missing_column_or_a_leftover_default_would_be_caught(engine):
    with _locked_transaction(engine) as connection:
        operations = Operations(MigrationContext.configure(connection))
        with operations.batch_alter_table("pair") as batch:
            batch.drop_column("gold_preference")
        with operations.batch_alter_table("study") as batch:
            batch.alter_column("overlap", server_default="3")
    kinds = {_kind(d) for d in schema_differences(engine)}
    assert kinds == {("add_column", "gold_preference"), ("modify_default", "overlap")}


def _kind(difference: Any) -> tuple[str, str]:
    if isinstance(difference, list):  # column modifications come as a list of tuples
        difference = difference[0]
        return difference[0], difference[3]
    return difference[0], difference[3].name


def test_a_partly_upgraded_schema_is_refused(empty_db_url):
    engine = database_at(empty_db_url, "16b6f3f")
    try:
        with engine.begin() as connection:
            connection.exec_driver_sql("ALTER TABLE study ADD COLUMN overlap INTEGER")
        with pytest.raises(SchemaError, match="some but not all"):
            upgrade_database(engine)
    finally:
        engine.dispose()


def test_a_revision_from_a_newer_version_is_refused(engine):
    with engine.begin() as connection:
        connection.exec_driver_sql("UPDATE alembic_version SET version_num = '0099_future'")
    with pytest.raises(SchemaError, match="0099_future"):
        upgrade_database(engine)


# ---------------------------------------------------------------- the commands


def test_db_current_and_db_upgrade_commands(empty_db_url, monkeypatch):
    monkeypatch.delenv("PRB_DATABASE_URL", raising=False)
    pre_alembic_database(empty_db_url, "d25d9fd").dispose()

    def run(*args: str) -> str:
        try:
            result = CliRunner().invoke(app, ["--db", empty_db_url, "db", *args])
        finally:
            if State._engine is not None:
                State._engine.dispose()
        assert result.exit_code == 0, result.output
        return " ".join(result.stdout.split())

    assert "made before migrations, schema of 0002_pools_and_gold" in run("current")
    assert run("upgrade") == f"Upgraded from 0002_pools_and_gold to {HEAD_REVISION}."
    assert run("current") == f"{HEAD_REVISION} (current)"
    assert run("upgrade") == f"Already at the current schema ({HEAD_REVISION})."


# Each later option, upgraded from the first schema with data: what a study or an assignment
# from before holds (off, empty, never set), and the option's own tables, empty.
OPTIONS_OFF_AFTER_UPGRADE = [
    pytest.param(
        "study",
        "consent_text, survey_questions, screenout_code, completion_url, ask_preference, rationale",
        ("", [], None, None, False, "off"),
        id="consent, survey, preference",
    ),
    pytest.param(
        "assignment",
        "side_preference, rationale, preference_history",
        (None, None, []),
        id="an assignment's preference",
    ),
    pytest.param("study", "aspect_checklist", (False,), id="aspect checklist"),
    pytest.param("study", "comparison", ({},), id="no comparison study"),
    pytest.param(
        "study",
        "exclusion_rules, rules_set_at, rules_history",
        ({}, None, []),
        id="exclusion rules never set",
    ),
    pytest.param(
        "study",
        "practice_pairs, comprehension_questions, comprehension_attempts",
        ([], [], 2),
        id="no training",
    ),
    pytest.param("study", "retention_days", (None,), id="kept until erased"),
    pytest.param(
        "study",
        "questionnaire",
        (DEFAULT_QUESTIONNAIRE.stored(),),
        id="asked the benchmark's four dimensions",
    ),
    pytest.param("annotator", "session_epoch", (0,), id="session values kept"),
]
TABLES_EMPTY_AFTER_UPGRADE = ["participation", "aspectmark", "aspectjudge", "training", "erasure"]


def _plain(value: object) -> object:
    """A JSON column's value as Python (SQLite hands back its text, PostgreSQL the value)."""
    if isinstance(value, str) and value[:1] in ("[", "{"):
        return json.loads(value)
    return value


@pytest.fixture(scope="module")
def upgraded_from_first(module_empty_db_url):
    """A database made at the first schema, given data there, then upgraded to the head: built
    once for the module (its tests only read it; each build runs every migration)."""
    engine = database_at(module_empty_db_url, FIRST_REVISION)
    try:
        first_schema_data(engine)
        upgrade_database(engine)
        yield engine
    finally:
        engine.dispose()


@pytest.mark.parametrize(("table", "columns", "expected"), OPTIONS_OFF_AFTER_UPGRADE)
def test_existing_data_keeps_a_later_option_off(upgraded_from_first, table, columns, expected):
    found = [tuple(_plain(v) for v in row) for row in rows(upgraded_from_first, table, columns)]
    assert found, f"no {table} rows to check"
    assert all(row == expected for row in found), found


@pytest.mark.parametrize("table", TABLES_EMPTY_AFTER_UPGRADE)
def test_a_later_option_starts_with_no_rows(upgraded_from_first, table):
    assert rows(upgraded_from_first, table, "id") == []


def test_existing_studies_keep_the_breadth_first_pool_and_new_ones_fill_pairs_first(empty_db_url):
    engine = database_at(empty_db_url, FIRST_REVISION)
    try:
        first_schema_data(engine)
        upgrade_database(engine)
        assert rows(engine, "study", "pool_order") == [("breadth",)]
        assert rows(engine, "study", "finish_minimum") == [(None,)]  # Finish at the quota
        with annotate.db.write_session(engine) as session:
            session.add(Study(name="new", seed=1))
        assert sorted(rows(engine, "study", "pool_order")) == [("breadth",), ("depth",)]
    finally:
        engine.dispose()


def test_two_live_adjudications_of_a_pair_become_one_when_upgraded(empty_db_url):
    """Before 0014 a pair could be sent to several adjudicators; the upgrade keeps one live
    adjudication per pair (a finished one first, else the oldest) and releases the others."""
    engine = database_at(empty_db_url, FIRST_REVISION)
    try:
        ids = first_schema_data(engine)
        upgrade_database(engine, "0013_preference_history")
        made = {}
        for name, pair, status in (
            ("j1", "pair2", "pending"),
            ("j2", "pair2", "done"),
            ("j3", "pair2", "pending"),
            ("j1", "pair0", "skipped"),
            ("j2", "pair0", "pending"),
        ):
            if name not in ids:
                ids[name] = insert(
                    engine, "annotator", name=name, role="annotator", token_hash=f"t-{name}",
                    active=True, created_at=when(engine, 2),
                )  # fmt: skip
            made[(name, pair)] = insert(
                engine, "assignment", study_id=ids["study"], annotator_id=ids[name],
                pair_id=ids[pair], position=9, chosen_side="A", status=status, flagged=False,
                created_at=when(engine, 30), preference_history="[]", purpose="adjudication",
            )  # fmt: skip
        upgrade_database(engine)
        status = dict(rows(engine, "assignment", "id, status"))
        assert [status[made[(n, "pair2")]] for n in ("j1", "j2", "j3")] == [
            "released",
            "done",
            "released",
        ]
        assert [status[made[(n, "pair0")]] for n in ("j1", "j2")] == ["skipped", "released"]
        assert status[ids["alice0"]] == "done"  # ordinary ratings untouched
        assert schema_differences(engine) == []
    finally:
        engine.dispose()


def test_an_existing_study_keeps_its_analysis_and_its_simulated_ratings(empty_db_url):
    """0015: the plan of a study from before is what it was tested with (alpha 0.05,
    superiority over 0, no planned size: never interim) and its simulated ratings still count;
    `sim-NN` accounts are marked simulated, people are not."""
    engine = database_at(empty_db_url, FIRST_REVISION)
    try:
        first_schema_data(engine)
        for name in ("sim-01", "sim-team"):  # the second is a person's name
            insert(engine, "annotator", name=name, role="annotator", token_hash=f"t-{name}",
                   active=True, created_at=when(engine, 3))  # fmt: skip
        upgrade_database(engine, "0013_preference_history")
        assert schema_differences(engine) != []
        upgrade_database(engine)
        ((sesoi, alpha, planned, stopping, counted),) = rows(
            engine, "study", "smallest_effect, alpha, planned_pairs, stopping_rule, count_simulated"
        )
        assert (sesoi, alpha, planned, stopping, bool(counted)) == (0.0, 0.05, None, "", True)
        marked = dict(rows(engine, "annotator", "name, simulated"))
        assert {k: bool(v) for k, v in marked.items()} == {
            "alice": False, "bob": False, "sim-01": True, "sim-team": False
        }  # fmt: skip
        from annotate.db.tables import Study as StudyRow
        from annotate.domain.study.plan import plan_document

        with read_session(engine) as session:
            study = session.exec(select(StudyRow)).one()
            document = plan_document(session, study)
        assert document["plan"]["smallest_effect"] == 0.0
        assert document["changes"] == []  # the upgrade changed no plan setting
        assert document["changed_after_data"] is False
        # a new study gets the default: the smallest effect of interest is the margin
        assert StudyRow(name="new", seed=1).smallest_effect is None
        assert StudyRow(name="new", seed=1).count_simulated is False
    finally:
        engine.dispose()


def test_an_upgraded_and_a_fresh_database_each_get_their_own_pseudonym_secret(
    upgraded_from_first, engine
):
    (upgraded,) = rows(upgraded_from_first, "sitesecret", "name, value")
    ((name, value),) = rows(engine, "sitesecret", "name, value")  # made fresh by create_all
    assert upgraded[0] == name == "pseudonym"
    assert len(upgraded[1]) == len(value) == 64
    assert value != upgraded[1]


def test_changes_recorded_as_forced_read_as_after_data_when_upgraded(empty_db_url):
    """0019: an entry of the plan's record the lock marked `forced` says `after_data` (recorded,
    never recomputed from ratings an erasure can remove); an unforced one says it came before;
    an entry from before the mark is left to be dated; studies get no sequential plan."""
    engine = database_at(empty_db_url, FIRST_REVISION)
    try:
        first_schema_data(engine)
        upgrade_database(engine, "0018_logout")
        forced = {"margin": 0.5, "unit": "points", "changed_at": "2026-12-01T10:00:00+00:00"}
        history = [{**forced, "forced": True}, {**forced, "forced": False}, forced]
        with engine.begin() as connection:
            connection.execute(
                text("UPDATE study SET margin_history = :h, rules_history = :r"),
                {"h": json.dumps(history), "r": json.dumps([{"rules": {}, "forced": True}])},
            )
        upgrade_database(engine)
        ((margins, rules, sequential),) = rows(
            engine, "study", "margin_history, rules_history, sequential"
        )
        margins, rules = (json.loads(v) if isinstance(v, str) else v for v in (margins, rules))
        assert [h.get("after_data") for h in margins] == [True, False, None]
        assert rules[0]["after_data"] is True
        assert sequential is None
        assert schema_differences(engine) == []
    finally:
        engine.dispose()


def test_a_custom_labelled_study_keeps_its_words_and_scale_in_its_questionnaire(empty_db_url):
    """0024: a study's own labels, definitions, scale and anchor words become its questionnaire
    (the four dimensions' roles), the five columns go; the downgrade writes them back."""
    engine = database_at(empty_db_url, FIRST_REVISION)
    try:
        first_schema_data(engine)
        upgrade_database(engine, "0023_monitor")
        labels = {**DIMENSION_LABELS, "factuality": "Truth"}
        definitions = {**DIMENSION_DEFINITIONS, "relevance": "On topic?"}
        anchors = {"0": "Awful", "3": "Middling", "6": "Superb", "9": "outside the scale"}
        with engine.begin() as connection:
            connection.execute(
                text(
                    "UPDATE study SET scale_min = 0, scale_max = 6, anchors = :a, "
                    "dimension_labels = :l, dimension_definitions = :d"
                ),
                {"a": json.dumps(anchors), "l": json.dumps(labels), "d": json.dumps(definitions)},
            )
        upgrade_database(engine)
        assert schema_differences(engine) == []
        ((stored,),) = rows(engine, "study", "questionnaire")
        with read_session(engine) as session:
            from annotate.domain.study.questionnaire import questionnaire_of

            asked = questionnaire_of(session.exec(select(Study)).one())
        assert _plain(stored) == asked.stored()
        assert asked.keys == DIMENSIONS
        assert asked.labels == labels
        assert {q.key: q.text for q in asked.questions} == definitions
        assert {q.points for q in asked.questions} == {tuple(range(7))}
        assert {tuple(q.anchors.items()) for q in asked.questions} == {
            ((0, "Awful"), (3, "Middling"), (6, "Superb"))
        }
        assert asked.tie_keys == DIMENSIONS[:3]
        assert asked.target == "rubric_alignment"
        assert asked.question("rubric_alignment").role is QuestionRole.DIVERGE
        with _locked_transaction(engine) as connection:
            command.downgrade(alembic_config(connection=connection), "0023_monitor")
        ((low, high, back, back_labels, back_definitions),) = rows(
            engine,
            "study",
            "scale_min, scale_max, anchors, dimension_labels, dimension_definitions",
        )
        assert (low, high) == (0, 6)
        assert _plain(back) == {"0": "Awful", "3": "Middling", "6": "Superb"}
        assert (_plain(back_labels), _plain(back_definitions)) == (labels, definitions)
    finally:
        engine.dispose()


def test_studies_get_no_internal_pilot_and_the_downgrade_drops_it(empty_db_url):
    """0026: every existing study has no internal pilot (None); a pre-registered one is kept
    as JSON; the downgrade to 0025 drops the column and the schema is 0025's again."""
    engine = database_at(empty_db_url, FIRST_REVISION)
    try:
        first_schema_data(engine)
        upgrade_database(engine, "0025_conversation")
        assert "internal_pilot" not in _study_columns(engine)
        upgrade_database(engine)
        assert schema_differences(engine) == []
        assert rows(engine, "study", "internal_pilot") == [(None,)]
        plan = {"first_stage_pairs": 40, "tie_alpha": 0.04}
        with engine.begin() as connection:
            connection.execute(
                text("UPDATE study SET internal_pilot = :p"), {"p": json.dumps(plan)}
            )
        ((stored,),) = rows(engine, "study", "internal_pilot")
        assert _plain(stored) == plan
        with _locked_transaction(engine) as connection:
            command.downgrade(alembic_config(connection=connection), "0025_conversation")
        assert versions(engine) == ["0025_conversation"]
        assert "internal_pilot" not in _study_columns(engine)
        assert upgrade_database(engine) == "0025_conversation"
        assert rows(engine, "study", "internal_pilot") == [(None,)]
    finally:
        engine.dispose()


def _study_columns(engine: Engine) -> set[str]:
    from sqlalchemy import inspect

    return {c["name"] for c in inspect(engine).get_columns("study")}


def test_entry_keys_table_is_added_unique_and_dropped_by_the_downgrade(empty_db_url):
    """0028: the `entrykey` table, one key per assignment (the unique constraint refuses a
    second), deleted with its assignment; the downgrade to 0027 drops it."""
    from sqlalchemy import inspect
    from sqlalchemy.exc import IntegrityError

    engine = database_at(empty_db_url, FIRST_REVISION)
    try:
        first_schema_data(engine)
        upgrade_database(engine, "0027_spans")
        assert "entrykey" not in inspect(engine).get_table_names()
        upgrade_database(engine)
        assert schema_differences(engine) == []
        assignment = rows(engine, "assignment", "id")[0][0]
        insert = text(
            "INSERT INTO entrykey (assignment_id, key, action, outcome, at) "
            "VALUES (:a, 'k-0000000000000000', 'submit', 'saved', CURRENT_TIMESTAMP)"
        )
        with engine.begin() as connection:
            connection.execute(insert, {"a": assignment})
        with pytest.raises(IntegrityError), engine.begin() as connection:
            connection.execute(insert, {"a": assignment})
        with _locked_transaction(engine) as connection:
            command.downgrade(alembic_config(connection=connection), "0027_spans")
        assert versions(engine) == ["0027_spans"]
        assert "entrykey" not in inspect(engine).get_table_names()
    finally:
        engine.dispose()
