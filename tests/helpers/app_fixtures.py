"""Fixtures for the annotator app's tests: a demo database, AppTest sessions, a second annotator.

The database is the shared `db_url`/`engine` of tests/conftest.py (SQLite, or PostgreSQL with
PRB_TEST_DATABASE_URL). AppTest runs the real entry script in this process, so the database
reaches it the way it reaches the production server: through `PRB_DATABASE_URL`.
`st.cache_resource` outlives an AppTest (it is per process), so every test starts and ends with
an empty cache and cannot see another test's engine.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
import streamlit as st
from sqlalchemy.engine import Engine
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.testing.v1 import AppTest

from annotate.cli.server import APP_ENTRY
from annotate.config import DATABASE_ENV, RATING_VIEW_ENV
from annotate.db import write_session
from annotate.domain.assignment import assign_pairs, study_pairs
from annotate.domain.study import accounts
from annotate.domain.study.studies import get_study
from annotate.services.admin.demo import DemoSetup, set_up_demo
from tests.helpers.apptest_helpers import pick_study

APP_TIMEOUT_S = 30


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "browser: end-to-end test in headless Chromium against a real `streamlit run` server",
    )


@pytest.fixture
def demo(engine: Engine) -> DemoSetup:
    """The bundled demo: 27 pairs, all assigned to `demo-annotator`."""
    return set_up_demo(engine)


@pytest.fixture
def rated_demo(engine: Engine) -> DemoSetup:
    """The demo rated by 3 simulated annotators (the results page has something to show)."""
    return set_up_demo(engine, simulated_annotators=3)


@pytest.fixture
def app_env(db_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Point the app at the test's database, with no engine cached from another test.

    The rating page is drawn with Streamlit's widgets (the fallback view, $PRB_RATING_VIEW=
    streamlit): AppTest has no browser, so it can neither draw our pair component nor fire its
    event. The page's logic around the pair is the same in both views; the component's own
    drawing and events are tested in Chromium (`test_app_pair_component*_browser.py`)."""
    monkeypatch.setenv(DATABASE_ENV, db_url)
    monkeypatch.setenv(RATING_VIEW_ENV, "streamlit")
    st.cache_resource.clear()
    yield db_url
    st.cache_resource.clear()


@pytest.fixture
def open_app(app_env: str) -> Callable[..., AppTest]:
    """Open the app in a fresh session (a new browser tab), optionally with `?token=...` and
    the study `pick` picked in the sidebar."""

    def _open(token: str | None = None, pick: str | None = None) -> AppTest:
        at = AppTest.from_file(str(APP_ENTRY), default_timeout=APP_TIMEOUT_S)
        if token is not None:
            at.query_params["token"] = token
        at.run()
        if pick is not None:
            pick_study(at, pick)
        assert not at.exception, [e.value for e in at.exception]
        return at

    return _open


@pytest.fixture
def second_annotator(engine: Engine, demo: DemoSetup) -> tuple[str, str]:
    """Another annotator with the same 27 demo pairs in their own queue: (name, token)."""
    with write_session(engine) as session:
        study = get_study(session, "demo")
        annotator, token = accounts.create_account(session, "second-annotator")
        assign_pairs(session, study, annotator, study_pairs(session, study))
    return "second-annotator", token


@pytest.fixture
def downloads(monkeypatch: pytest.MonkeyPatch) -> dict[str, Callable[[], Any]]:
    """file name -> the callable a deferred download button runs when clicked (AppTest runs no
    click of it, and its runtime is gone after the run: the callables are kept here)."""
    seen: dict[str, Callable[[], Any]] = {}
    original = MediaFileManager.add_deferred

    def keep(
        self: MediaFileManager, data_callable: Callable[[], Any], *args: Any, **kw: Any
    ) -> str:
        seen[str(kw.get("file_name") or args[2])] = data_callable
        return original(self, data_callable, *args, **kw)

    monkeypatch.setattr(MediaFileManager, "add_deferred", keep)
    return seen
