"""Log out reaches every tab of the account (issue 32.4), in headless Chromium against the real
server: the login link's token leaves the address for a session value at once, and no tab keeps
the token (a page change used to log in again with it after a Log out elsewhere, issuing a new
24-hour session value). After a Log out in one tab, another tab opened by the link and idle since
shows the login page on its next click or reload; opening the link again logs in. The same for an
annotator, whose Log out is on the rating page (issue 32.8)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from annotate.db import make_engine, read_session
from annotate.domain.study import accounts
from annotate.services.admin.demo import DEMO_ADMIN, set_up_demo
from tests.helpers.browser_helpers import BROWSER_MARKS, LAPTOP, settle, start_server, wait_for_pair

pytestmark = BROWSER_MARKS

LOGIN_FIELD = "Your access token"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any, Any]]:
    """The demo on its own server: (url, demo setup, engine)."""
    folder = tmp_path_factory.mktemp("logout")
    db = folder / "logout.db"
    engine = make_engine(str(db))
    demo = set_up_demo(engine, simulated_annotators=0)
    server = start_server(db, folder / "server.log")
    try:
        yield server.url, demo, engine
    finally:
        server.stop()
        engine.dispose()


def _open_link(context: Any, url: str, token: str) -> Any:
    """A new tab of this browser on the login link; returned once the token has left the
    address for a session value."""
    page = context.new_page()
    page.goto(f"{url}/?token={token}")
    page.wait_for_function(
        "() => location.search.includes('s=') && !location.search.includes('token=')"
    )
    settle(page)
    assert token not in page.url
    return page


def _shows_login(page: Any) -> None:
    """The login page (its token field)."""
    page.get_by_label(LOGIN_FIELD, exact=True).wait_for()
    settle(page)


def _epoch(engine: Any, name: str) -> int:
    with read_session(engine) as session:
        return accounts.account_named(session, name).session_epoch


def test_an_admin_s_log_out_ends_an_idle_tab_opened_by_the_link(world, new_page, tmp_path: Path):
    url, demo, engine = world
    acting = new_page(LAPTOP)
    context = acting.context
    acting.close()
    tab, clicked, reloaded = (_open_link(context, url, demo.admin_token) for _ in range(3))
    epoch = _epoch(engine, DEMO_ADMIN)

    tab.locator("[data-testid='stSidebar']").get_by_role("button", name="Log out").click()
    tab.get_by_text("You are logged out").wait_for()
    assert _epoch(engine, DEMO_ADMIN) == epoch + 1

    # The next click in an idle tab (a page in the sidebar: the address loses its value).
    clicked.locator("[data-testid='stSidebarNav']").get_by_text("Rate pairs", exact=True).click()
    _shows_login(clicked)
    assert clicked.get_by_text(f"Logged in as {DEMO_ADMIN}").count() == 0
    reloaded.reload()
    _shows_login(reloaded)
    reloaded.get_by_text("This login link is not valid").wait_for()
    assert _epoch(engine, DEMO_ADMIN) == epoch + 1

    again = _open_link(context, url, demo.admin_token)  # the link still logs in
    again.get_by_text(f"Logged in as {DEMO_ADMIN}").wait_for()


def test_an_annotator_s_log_out_ends_their_other_tab_on_its_next_click(world, new_page):
    url, demo, engine = world
    acting = new_page(LAPTOP)
    context = acting.context
    acting.close()
    tab, idle = (_open_link(context, url, demo.token) for _ in range(2))
    wait_for_pair(idle, 1)
    epoch = _epoch(engine, demo.annotator)

    tab.get_by_role("button", name="Log out").click()
    tab.get_by_text("You are logged out").wait_for()
    assert _epoch(engine, demo.annotator) == epoch + 1

    idle.locator(".st-key-nav_next button").click()
    _shows_login(idle)
    assert idle.get_by_text("Pair 2 of 27", exact=True).count() == 0
    again = _open_link(context, url, demo.token)
    wait_for_pair(again, 1)
