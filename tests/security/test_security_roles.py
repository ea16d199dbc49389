"""Security 2: roles are enforced on every page and every admin action.

- Every public function of the admin services (`annotate.services.admin.studies`, `people`, `data`,
  `plans`, `progress`, `flags`, `audited`, `publish`, `exclusion_rules`, `study_settings`,
  `training`, `aspects`) that takes an `actor` (found with `inspect`, so a new one is checked
  without editing this file) refuses an annotator, a researcher, a deactivated admin and nobody,
  before changing anything; and works for an active admin.
- The navigation: an annotator gets only the rating page, a researcher results and rating, an
  admin everything (AppTest, with the page files enumerated from the folder).
- Each admin page and the results page, run directly as an annotator (as if navigation let them
  through), refuses and shows no data; and the admin pages reach the database only through
  the admin services.
- In a real server and Chromium, an annotator or researcher who types an admin page's URL (or the
  results URL, for an annotator) gets the rating page, never admin content.

The CLI (`prb-annotate ...`) is the operator's tool: whoever runs it holds the database URL and
credentials, and can do anything the database allows, so it calls the same services as the
system actor `SYSTEM`, which passes the check. No CLI command takes a token or acts as an
account.

Also covered elsewhere: tests/annotate/services/admin/test_roles_and_studies.py (a fixed list of
admin actions, a demoted admin), tests/annotate/app/admin/test_admin_pages.py (a demoted admin
mid-session on the page).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import streamlit as st
from security_helpers import in_chromium_marks
from streamlit.testing.v1 import AppTest

from annotate.app.admin import admin_common
from annotate.cli.server import APP_ENTRY
from annotate.config import DATABASE_ENV
from annotate.db import write_session
from annotate.domain.assignment import PairSelection
from annotate.domain.study import accounts
from annotate.domain.study.permissions import PermissionDenied
from annotate.services import audited
from annotate.services.admin import (
    aspects,
    data,
    erasure,
    exclusion_rules,
    flags,
    monitor,
    payments,
    people,
    plans,
    progress,
    publish,
    studies,
    study_settings,
)
from annotate.services.participant import training
from tests.helpers.admin_helpers import make_people, make_study
from tests.helpers.browser_helpers import settle

PAGES_DIR = APP_ENTRY.parent / "admin"
ADMIN_PAGE_FILES = sorted(
    p.name for p in PAGES_DIR.glob("admin_*.py") if p.name != "admin_common.py"
)
ADMIN_TITLES = {title for _, title, _, _ in admin_common.ADMIN_PAGES}
ADMIN_URLS = [url for _, _, _, url in admin_common.ADMIN_PAGES]

# A value for every parameter an admin action may take, by name. A new action with a parameter
# not listed here fails `test_every_admin_action_refuses_anyone_but_an_active_admin` with its
# name: add a value, and the action is checked.
ARGUMENTS: dict[str, Any] = {
    "name": "x",  # a study and an account are both named x
    "study": "x",
    "filename": "x.jsonl",
    "data": b"",
    "response": None,  # judge import: which response an eval file's answers are
    "domain": None,
    "shape": None,  # the input shape: the default (this benchmark's records)
    "max_bytes": 10,
    "mask_emails": False,
    "names": ["newcomer"],
    "role": "admin",
    "base_url": None,
    "active": False,
    "annotators": ["x"],
    "selection": PairSelection(),
    "per_pair": 1,
    "rebalance": False,
    "giver": "x",
    "receivers": None,
    "record_ids": ["p000"],
    "expect": "chosen",
    "paths": ["x_test.jsonl"],
    "on_progress": None,
    "listed": True,
    "assignment_id": 1,
    "action": "resolved",
    "note": "x",
    "replaces": "open",
    "record_id": "p000",
    "reason": "x",
    "open_only": False,
    "limit": 10,
    "folder": Path(tempfile.gettempdir()) / "prb-security-never-written",
    "n_boot": 0,
    "seed": 0,
    "license": "mit",
    "rules": {"max_gold_failures": 1},
    "force": False,
    "fmt": "yaml",
    "file": "x.yaml",
    "settings": {"overlap": 2},
    "path": Path(tempfile.gettempdir()) / "prb-security-judge.jsonl",
    "judge": "x",
    "replace": False,
    "disclose": (),
    "uploads": [("x.jsonl", b"")],
    "days": 30,
    "erase": False,
    "now": None,
    "report_every": 0.0,
}


ADMIN_SERVICES = (
    studies,
    people,
    data,
    plans,
    progress,
    flags,
    audited,
    publish,
    exclusion_rules,
    study_settings,
    training,
    aspects,
    erasure,
    payments,
    monitor,
)
ADMIN_SERVICE_NAMES = {module.__name__.rpartition(".")[2] for module in ADMIN_SERVICES}


def admin_actions() -> dict[str, Callable[..., Any]]:
    return {
        f"{module.__name__.rpartition('.')[2]}.{name}": function
        for module in ADMIN_SERVICES
        for name, function in inspect.getmembers(module, inspect.isfunction)
        if not name.startswith("_")
        and function.__module__ == module.__name__
        and "actor" in inspect.signature(function).parameters
        and not inspect.isgeneratorfunction(inspect.unwrap(function))  # admin_change: a helper
    }


def call(action: Callable[..., Any], engine, actor: int | None) -> Any:
    kwargs = {}
    for parameter in inspect.signature(action).parameters.values():
        if parameter.name in ("engine", "actor") or parameter.kind == parameter.VAR_KEYWORD:
            continue
        assert parameter.name in ARGUMENTS, (
            f"{action.__name__} takes {parameter.name!r}: give it a value in ARGUMENTS"
        )
        kwargs[parameter.name] = ARGUMENTS[parameter.name]
    return action(engine, actor, **kwargs)


def _role_world(engine) -> dict[str, int | None]:
    make_study(engine, "x", pairs=3, overlap=1)
    (annotator,) = make_people(engine, 1, prefix="x")  # the account "x0"
    with write_session(engine) as session:
        accounts.create_account(session, "x")
    (researcher,) = make_people(engine, 1, prefix="r", role="researcher")
    boss, retired = make_people(engine, 2, prefix="boss", role="admin")
    with write_session(engine) as session:
        accounts.set_active(session, "boss1", False)
    return {
        "annotator": annotator,
        "researcher": researcher,
        "deactivated admin": retired,
        "nobody": None,
        "unknown id": 10_000,
        "admin": boss,
    }


def test_the_admin_actions_are_found():
    found = set(admin_actions())
    assert {
        "studies.list_studies",
        "data.upload_dataset",
        "data.import_files",
        "people.create_accounts",
        "progress.dashboard",
        "progress.set_gold",
    } <= found
    assert len(found) >= 15


@pytest.mark.parametrize("action", sorted(admin_actions()))
def test_every_admin_action_refuses_anyone_but_an_active_admin(engine, snapshot, action):
    people = _role_world(engine)
    function = admin_actions()[action]
    before = snapshot(engine)
    for who in ("annotator", "researcher", "deactivated admin", "nobody", "unknown id"):
        with pytest.raises(PermissionDenied):
            call(function, engine, people[who])
        assert snapshot(engine) == before, f"admin.{action} changed the database for {who}"
    try:
        call(function, engine, people["admin"])
    except PermissionDenied:  # pragma: no cover - the failure looked for
        pytest.fail(f"admin.{action} refused an active admin")
    except Exception:
        pass


# ---------------------------------------------------------------- pages (AppTest)


@pytest.fixture
def app_db(db_url: str, engine, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(DATABASE_ENV, db_url)
    st.cache_resource.clear()
    yield engine
    st.cache_resource.clear()


def _token(engine, name: str, role: str) -> tuple[int, str]:
    with write_session(engine) as session:
        account, token = accounts.create_account(session, name, role=role)
    return int(account.id), token  # type: ignore[arg-type]


def _open(token: str) -> AppTest:
    at = AppTest.from_file(str(APP_ENTRY), default_timeout=30)
    at.query_params["token"] = token
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _page_names(at: AppTest) -> set[str]:
    return {page["page_name"] for page in at._registered_pages.values()}


def test_the_page_files_are_the_ones_the_admin_navigation_lists():
    assert sorted(f for f, _, _, _ in admin_common.ADMIN_PAGES) == ADMIN_PAGE_FILES
    assert {p.name for p in PAGES_DIR.glob("*.py")} == {
        "__init__.py",
        "admin_common.py",
        # not pages: the Studies page's training and settings file, analysis plan, exclusion rules
        "study_files.py",
        "settings_inputs.py",
        "study_plan.py",
        "study_rules.py",
        *ADMIN_PAGE_FILES,
    }, "a new page: decide which role may see it and check it here"
    pages = {p.relative_to(APP_ENTRY.parent).as_posix() for p in APP_ENTRY.parent.rglob("*.py")}
    assert {"login.py", "participant/rate.py", "results/results.py"} <= pages


@pytest.mark.parametrize(
    ("role", "expected"),
    [
        ("annotator", {"Rate pairs"}),
        ("researcher", {"Results", "Rate pairs"}),
        ("admin", {"Results", "Rate pairs", *ADMIN_TITLES}),
    ],
)
def test_each_role_gets_exactly_its_pages(app_db, role, expected):
    make_study(app_db, "x", pairs=2)
    _, token = _token(app_db, "someone", role)
    at = _open(token)
    assert _page_names(at) == expected
    if role != "admin":
        for page in ADMIN_PAGE_FILES:
            with pytest.raises(ValueError, match="Could not find a navigation page"):
                at.switch_page(f"admin/{page}")
    assert "Progress" not in [t.value for t in at.title] or role == "admin"


def test_nobody_logged_in_gets_only_the_login_page(app_db):
    at = AppTest.from_file(str(APP_ENTRY), default_timeout=30).run()
    assert _page_names(at) == {"Log in"}
    at = AppTest.from_file(str(APP_ENTRY), default_timeout=30)
    at.query_params["token"] = "not-a-token"
    at.run()
    assert _page_names(at) == {"Log in"}


@pytest.mark.parametrize("page", ADMIN_PAGE_FILES)
@pytest.mark.parametrize("role", ["annotator", "researcher"])
def test_an_admin_page_run_directly_by_another_role_refuses_and_shows_no_data(app_db, page, role):
    """Defence in depth: even if the navigation offered the page, it shows nothing."""
    make_study(app_db, "secretstudy", pairs=3)
    account_id, _ = _token(app_db, "someone", role)
    at = AppTest.from_file(str(PAGES_DIR / page), default_timeout=30)
    at.session_state["account_id"] = account_id
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert any(f"your account has the {role} role" in e.value for e in at.error)
    shown = repr(at._tree)
    for secret in ("secretstudy", "p000", "someone"):
        assert secret not in shown, f"{page} showed {secret!r} to an {role}"
    assert not at.dataframe
    assert not at.metric


def test_the_results_page_run_directly_by_an_annotator_refuses(app_db):
    make_study(app_db, "secretstudy", pairs=3)
    account_id, _ = _token(app_db, "someone", "annotator")
    at = AppTest.from_string(
        "from annotate.app.results import results\nresults.draw()\n", default_timeout=30
    )
    at.session_state["account_id"] = account_id
    at.run()
    assert [type(e).__name__ for e in at.exception] == ["Exception"]
    assert "PermissionDenied" in at.exception[0].value or "role" in at.exception[0].message
    assert "secretstudy" not in repr(at._tree).replace(repr(at.exception[0]), "")
    assert not at.title
    assert not at.dataframe
    assert not at.selectbox


def _imported(page: str) -> list[tuple[str, str]]:
    """(module, name) of everything a page file imports from the `annotate` package."""
    tree = ast.parse((PAGES_DIR / page).read_text())
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("annotate"):
            found += [(node.module, alias.name) for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [(alias.name, "") for alias in node.names if alias.name.startswith("annotate")]
    return found


def test_admin_pages_reach_the_database_only_through_annotate_admin():
    """What an admin page imports from the library is an admin service module (whose every action
    checks the role), the app's own helpers, and constants or classes: no function that takes a
    session or an engine, so no page can read or write the database around the role check."""
    for page in [*ADMIN_PAGE_FILES, "admin_common.py", "study_files.py"]:
        for module, name in _imported(page):
            if module == "annotate.services" and name in ADMIN_SERVICE_NAMES:
                continue
            if module.startswith("annotate.app"):
                continue
            assert name, f"{page} imports the whole module {module}"
            value = getattr(importlib.import_module(module), name)
            if callable(value) and not inspect.isclass(value):
                parameters = set(inspect.signature(value).parameters)
                assert not parameters & {"session", "engine"}, (
                    f"{page} imports {module}.{name}, which reaches the database"
                )


# ---------------------------------------------------------------- a real server (Chromium)

FORBIDDEN_URLS = {"A": [*ADMIN_URLS, "results"], "researcher": ADMIN_URLS}
ADMIN_WORDS = ("Per annotator", "Flagged pairs", "Upload a dataset", "Create study", "demo-admin")


@in_chromium_marks
@pytest.mark.parametrize("who", sorted(FORBIDDEN_URLS))
def test_typing_an_admin_or_results_url_draws_no_admin_content(secure_world, new_page, who):
    page = new_page()
    for path in FORBIDDEN_URLS[who]:
        page.goto(f"{secure_world.url}/{path}?token={secure_world.tokens[who]}")
        settle(page)
        if who == "researcher":  # lands on their first page
            page.get_by_role("heading", name="Results", exact=True).wait_for()
        else:
            page.get_by_text("Pair 1 of", exact=False).wait_for()
        settle(page)
        titles = set(page.locator("h1").all_inner_texts())
        assert not titles & ADMIN_TITLES, (path, titles)
        assert who == "researcher" or "Results" not in titles, path
        text = page.locator("[data-testid='stMain']").inner_text()
        assert [w for w in ADMIN_WORDS if w in text] == [], path
        nav = " ".join(page.locator("[data-testid='stSidebarNav']").all_inner_texts())
        assert [t for t in ADMIN_TITLES if t in nav] == [], path
