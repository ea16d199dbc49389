"""Fixtures for the admin tests.

Most tests use the shared `engine` fixture (tests/conftest.py: SQLite, or PostgreSQL with
`PRB_TEST_DATABASE_URL`). The concurrency tests must hold on both backends in every run, so
`both_engines` runs them on a SQLite file and on a fresh database of the local PostgreSQL server
(created here, dropped after; skipped with the reason only when the server cannot be reached).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import OperationalError

from annotate.db import make_engine
from tests.helpers.apptest_helpers import pick_study

LOCAL_POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"


def postgres_server_url() -> str:
    return os.environ.get("PRB_TEST_DATABASE_URL") or LOCAL_POSTGRES


@pytest.fixture(scope="session")
def postgres_admin() -> Iterator[Engine]:
    """An AUTOCOMMIT engine on the PostgreSQL server, to create and drop test databases."""
    url = make_url(postgres_server_url()).set(database="postgres")
    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect():
            pass
    except OperationalError as error:
        admin.dispose()
        pytest.skip(f"PostgreSQL server at {url.host}:{url.port} unreachable: {error.orig}")
    yield admin
    admin.dispose()


@pytest.fixture
def postgres_url(postgres_admin: Engine) -> Iterator[str]:
    name = f"prb_admin_{uuid.uuid4().hex[:12]}"
    with postgres_admin.connect() as connection:
        connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
    try:
        yield postgres_admin.url.set(database=name).render_as_string(hide_password=False)
    finally:
        with postgres_admin.connect() as connection:
            connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(params=["sqlite", "postgresql"])
def both_engines(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    """The same test on a SQLite file and on a fresh PostgreSQL database."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'admin.db'}"
    else:
        url = request.getfixturevalue("postgres_url")
    engine = make_engine(url)
    yield engine
    engine.dispose()


# ---------------------------------------------------------------- the app (AppTest)


@pytest.fixture
def page_engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Engine]:
    """A SQLite database the app (run in this process by AppTest) reaches via PRB_DATABASE_URL,
    with `st.cache_resource` emptied before and after so no other test's engine is used; the
    rating page drawn with Streamlit's widgets, as for `app_fixtures.app_env` (AppTest cannot
    draw the pair component)."""
    import streamlit as st

    from annotate.config import DATABASE_ENV, RATING_VIEW_ENV

    url = f"sqlite:///{tmp_path / 'pages.db'}"
    monkeypatch.setenv(DATABASE_ENV, url)
    monkeypatch.setenv(RATING_VIEW_ENV, "streamlit")
    st.cache_resource.clear()
    engine = make_engine(url)
    yield engine
    engine.dispose()
    st.cache_resource.clear()


@pytest.fixture
def open_page(page_engine: Engine):
    """`open_page(token=..., page=..., pick=..., **query)`: a fresh browser tab on the app
    (with `pick`, that study picked in the sidebar)."""
    from streamlit.testing.v1 import AppTest

    from annotate.cli.server import APP_ENTRY

    def _open(
        token: str | None = None, page: str | None = None, pick: str | None = None, **query: str
    ) -> AppTest:
        # generous: a script run computing a report takes 30 s and more when the machine is loaded
        at = AppTest.from_file(str(APP_ENTRY), default_timeout=180)
        if token is not None:
            at.query_params["token"] = token
        for key, value in query.items():
            at.query_params[key] = value
        at.run()
        if page is not None:
            at.switch_page(f"admin/{page}").run()
        if pick is not None:  # a new session has no study: the admin picks one
            pick_study(at, pick)
        assert not at.exception, [e.value for e in at.exception]
        return at

    return _open
