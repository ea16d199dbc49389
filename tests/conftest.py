"""Shared fixtures: a real database per test, the demo data, and small benchmark records.

Every test gets a fresh SQLite file in its tmp_path. With `PRB_TEST_DATABASE_URL` set to a
PostgreSQL server URL (e.g. `postgresql+psycopg://postgres@127.0.0.1:5432/postgres`), it gets a
fresh, uniquely named database on that server instead, dropped after the test. No mocks.

Helpers (`make_record`, `write_records`, `snapshot`) live in `foundation_helpers.py` and are
fixtures here too; never import `conftest` (the name is not unique in the test tree). Mark
backend-specific tests `@pytest.mark.sqlite_only` or `@pytest.mark.postgres_only`.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import OperationalError

from annotate.config import SESSION_SECRET_ENV, SESSION_SECRET_FILE_ENV, new_session_secret
from annotate.db import make_engine
from tests.helpers.apptest_helpers import scan_installed_components_once
from tests.helpers.browser_helpers import CHROMIUM, CHROMIUM_ARGS, RETRIES, TALL, UI_TIMEOUT_MS
from tests.helpers.foundation_helpers import Snapshot, make_record, snapshot, write_records
from tests.helpers.r_helpers import r_libraries
from tests.helpers.schedule import costliest_first, file_seconds

# Each folder's fixtures, in one place: tests moved beside the code they test still find them.
pytest_plugins = [
    "tests.helpers.admin_fixtures",
    "tests.helpers.analysis_fixtures",
    "tests.helpers.app_fixtures",
    "tests.helpers.cli_fixtures",
]

TEST_DATABASE_ENV = "PRB_TEST_DATABASE_URL"
REPO = Path(__file__).resolve().parent.parent
DEMO_DIR = REPO / "data" / "demo"
DEMO_DOMAINS = (
    "Art_and_Entertainment",
    "Lifestyle_and_Personal_Development",
    "Society_and_Culture",
)


# The server's session secret (issue 32.1): one per test run, for the AppTest sessions and for
# every server the tests start (they inherit the environment); a test that needs none or a bad
# one sets its own. A secret file given from outside would be read instead: dropped.
os.environ[SESSION_SECRET_ENV] = new_session_secret()
os.environ.pop(SESSION_SECRET_FILE_ENV, None)


def on_postgres() -> bool:
    return bool(os.environ.get(TEST_DATABASE_ENV))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "sqlite_only: checks SQLite-specific behaviour")
    config.addinivalue_line("markers", f"postgres_only: needs {TEST_DATABASE_ENV}")
    if getattr(config.option, "dist", "no") == "loadfile":
        # pytest-xdist hands out the files in our order (the costliest first, below), not
        # its own (the most tests first).
        config.option.loadscopereorder = False
    scan_installed_components_once()
    if not hasattr(config, "workerinput"):  # the main process: its workers inherit the answer
        r_libraries()


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("sqlite_only") and on_postgres():
        pytest.skip("SQLite-specific behaviour")
    if item.get_closest_marker("postgres_only") and not on_postgres():
        pytest.skip(f"needs {TEST_DATABASE_ENV} (a PostgreSQL server)")


DATABASE_FIXTURES = frozenset({"db_url", "empty_db_url", "module_empty_db_url", "engine"})
"""The fixtures through which a test reaches the pass's database (tests/conftest.py)."""
ALL_ON_POSTGRES_ENV = "PRB_TEST_ALL_ON_POSTGRES"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On the PostgreSQL pass, leave out the tests that never reach the pass's database (no
    `db_url`, `empty_db_url` or `engine` among their fixtures, not marked postgres_only): they
    run the same in the SQLite pass, so running them twice only costs time (issue 35.5; a
    browser test on its own SQLite file, the analysis, the parsers). `PRB_TEST_ALL_ON_POSTGRES=1`
    keeps them. On a pytest-xdist worker, the files go to the scheduler costliest first
    (tests/helpers/schedule.py)."""
    if hasattr(config, "workerinput"):
        items[:] = costliest_first(items, file_seconds("postgres" if on_postgres() else "sqlite"))
    if not on_postgres() or os.environ.get(ALL_ON_POSTGRES_ENV) == "1":
        return
    kept = [item for item in items if _reaches_database(item)]
    left = [item for item in items if not _reaches_database(item)]
    if left:
        config.hook.pytest_deselected(items=left)
        items[:] = kept


def _reaches_database(item: pytest.Item) -> bool:
    uses = set(getattr(item, "fixturenames", ()))
    return bool(uses & DATABASE_FIXTURES) or item.get_closest_marker("postgres_only") is not None


def pytest_sessionfinish(session: pytest.Session) -> None:
    """On a pytest-xdist worker: hand the clicks it retried to the controller, which prints
    them (`pytest_testnodedown`, then `pytest_terminal_summary`)."""
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput["browser_retries"] = dict(RETRIES)


@pytest.hookimpl(optionalhook=True)  # a pytest-xdist hook: unknown when xdist is off
def pytest_testnodedown(node: Any, error: Any) -> None:
    """On the pytest-xdist controller: add up the retries each worker counted."""
    for what, count in getattr(node, "workeroutput", {}).get("browser_retries", {}).items():
        RETRIES[what] = RETRIES.get(what, 0) + count


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Clicks the browser tests had to repeat (tests/helpers/browser_helpers.py, `click_until`)."""
    if RETRIES:
        counted = ", ".join(f"{what}: {n}" for what, n in sorted(RETRIES.items()))
        terminalreporter.write_line(f"browser clicks retried: {counted}")


# ---------------------------------------------------------------- databases


@pytest.fixture(scope="session")
def _postgres_admin() -> Iterator[Engine | None]:
    """An AUTOCOMMIT engine on the test server (to create and drop databases), or None."""
    server = os.environ.get(TEST_DATABASE_ENV)
    if not server:
        yield None
        return
    url = make_url(server)
    if not url.get_backend_name().startswith("postgresql"):
        pytest.exit(f"{TEST_DATABASE_ENV} must be a PostgreSQL URL, got {url.get_backend_name()}")
    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect():
            pass
    except OperationalError:
        # The named database may not exist yet: create the test databases from `postgres`.
        admin.dispose()
        admin = create_engine(url.set(database="postgres"), isolation_level="AUTOCOMMIT")
    yield admin
    admin.dispose()


@pytest.fixture(scope="session")
def _postgres_template(_postgres_admin: Engine | None) -> Iterator[str | None]:
    """A database with the app's tables (stamped with the head revision), made once per session;
    test databases are its copies (much faster than creating the tables in every test)."""
    if _postgres_admin is None:
        yield None
        return
    name = f"prb_template_{uuid.uuid4().hex[:12]}"
    with _postgres_admin.connect() as connection:
        connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
    try:
        engine = make_engine(_postgres_admin.url.set(database=name).render_as_string(False))
        engine.dispose()  # a template must have no connections when it is copied
        yield name
    finally:
        with _postgres_admin.connect() as connection:
            connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def _postgres_database(admin: Engine, prefix: str, template: str | None = None) -> Iterator[str]:
    """A new database on the test server (a copy of `template`, if given), dropped after."""
    name = f"{prefix}_{uuid.uuid4().hex[:16]}"
    copy = f' TEMPLATE "{template}"' if template else ""
    with admin.connect() as connection:
        connection.exec_driver_sql(f'CREATE DATABASE "{name}"{copy}')
    try:
        yield admin.url.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            # FORCE: engines the CLI opened during the test may still hold connections.
            connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def db_url(
    tmp_path: Path, _postgres_admin: Engine | None, _postgres_template: str | None
) -> Iterator[str]:
    """A SQLAlchemy URL of a fresh database that belongs to this test alone (no rows; on
    PostgreSQL the tables exist already, on SQLite `make_engine` creates them)."""
    if _postgres_admin is None:
        yield f"sqlite:///{tmp_path / 'test.db'}"
        return
    with _postgres_database(_postgres_admin, "prb_test", _postgres_template) as url:
        yield url


@pytest.fixture
def empty_db_url(tmp_path: Path, _postgres_admin: Engine | None) -> Iterator[str]:
    """A SQLAlchemy URL of a fresh database without any tables (e.g. to build an old schema)."""
    if _postgres_admin is None:
        yield f"sqlite:///{tmp_path / 'empty.db'}"
        return
    with _postgres_database(_postgres_admin, "prb_empty") as url:
        yield url


@pytest.fixture(scope="module")
def module_empty_db_url(
    tmp_path_factory: pytest.TempPathFactory, _postgres_admin: Engine | None
) -> Iterator[str]:
    """`empty_db_url` shared by the tests of one module: a database they build once and then
    only read (e.g. an old schema given data and upgraded), dropped after the module."""
    if _postgres_admin is None:
        yield f"sqlite:///{tmp_path_factory.mktemp('module') / 'empty.db'}"
        return
    with _postgres_database(_postgres_admin, "prb_empty") as url:
        yield url


@pytest.fixture(scope="session")
def _sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file with the app's tables (as `make_engine` makes them), made once per session
    (per worker); a test's `engine` starts from its copy, as on PostgreSQL (issue 35.5)."""
    path = tmp_path_factory.mktemp("template") / "template.db"
    make_engine(f"sqlite:///{path}").dispose()  # disposed: the WAL is checkpointed into the file
    return path


@pytest.fixture
def engine(db_url: str, request: pytest.FixtureRequest) -> Iterator[Engine]:
    """`make_engine(db_url)`: the app's own engine, tables created (on SQLite: a fresh file
    starts as a copy of the session's template file, which has them)."""
    if not on_postgres():
        fresh = Path(make_url(db_url).database or "")
        if fresh.name and not fresh.exists():
            shutil.copyfile(request.getfixturevalue("_sqlite_template"), fresh)
    engine = make_engine(db_url)
    yield engine
    engine.dispose()


@pytest.fixture(name="snapshot")
def snapshot_fixture() -> Callable[[Engine], Snapshot]:
    """`snapshot(engine)`: every row of every table, to compare before and after."""
    return snapshot


# ---------------------------------------------------------------- data


@pytest.fixture(scope="session")
def demo_files() -> list[Path]:
    """The three hand-written demo files, one per domain, 9 pairs each."""
    files = sorted(DEMO_DIR.glob("*.jsonl"))
    assert [f.name for f in files] == [f"{d}_test.jsonl" for d in DEMO_DOMAINS], files
    return files


@pytest.fixture(name="make_record")
def make_record_fixture() -> Callable[..., dict[str, Any]]:
    return make_record


@pytest.fixture(name="write_records")
def write_records_fixture() -> Callable[[Path, list[dict[str, Any]]], Path]:
    return write_records


# ---------------------------------------------------------------- browsers


@pytest.fixture(scope="module")
def browser(request: pytest.FixtureRequest) -> Iterator[Any]:
    """Chromium (Debian's headless shell, or the executable the module names as `BROWSER`) for
    one test module."""
    from playwright.sync_api import sync_playwright

    executable = Path(getattr(request.module, "BROWSER", CHROMIUM))
    if not executable.exists() and os.environ.get("CI") != "true":  # as BROWSER_MARKS does
        pytest.skip(f"no browser at {executable} (scripts/setup.sh test installs it)")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(executable), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def new_page(browser: Any) -> Iterator[Any]:
    """`new_page()`: a page in a fresh browser context (no shared cookies or session)."""
    contexts = []

    def _new(viewport: dict[str, int] | None = None, **options: Any) -> Any:
        """`options`: the context's other settings, e.g. `has_touch=True` for a phone."""
        context = browser.new_context(viewport=viewport or TALL, **options)
        context.set_default_timeout(UI_TIMEOUT_MS)
        contexts.append(context)
        return context.new_page()

    yield _new
    for context in contexts:
        context.close()
