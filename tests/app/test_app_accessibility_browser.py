"""Accessibility (issue 26, item 4): axe-core over every page, annotator and admin, at 1366x768
and 390x844, with data on them, in headless Chromium against the real server.

No serious or critical violation may come from the app's own markup. Those inside Streamlit's
own components, which the app cannot change, are listed in `STREAMLIT_KNOWN` by rule and
selector, each with its reason (none with Streamlit 1.67: what axe found was ours and is fixed,
the response boxes' `scrollable-region-focusable` in rate.js, the captions' contrast in
style.css).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe

from annotate.app.app_pages.admin_common import ADMIN_PAGES
from annotate.db import make_engine
from annotate.services.demo import set_up_demo
from tests.app.browser_helpers import (
    BROWSER_MARKS,
    LAPTOP,
    PHONE,
    UI_TIMEOUT_MS,
    settle,
    start_server,
)

pytestmark = [*BROWSER_MARKS, pytest.mark.sqlite_only]

SEVERE = ("serious", "critical")
VIEWPORTS = {"1366x768": LAPTOP, "390x844": PHONE}

# Violations inside Streamlit's own components: (rule, a pattern the selector matches) -> why
# the app leaves them. Matched against axe's CSS selector of the node. Empty today; an entry
# looks like ("aria-allowed-role", r"stSidebarNav") -> "Streamlit's nav list, not ours".
STREAMLIT_KNOWN: dict[tuple[str, str], str] = {}


@dataclass(frozen=True)
class Finding:
    page: str
    viewport: str
    rule: str
    impact: str
    selector: str
    summary: str

    def __str__(self) -> str:
        where = f"{self.page} at {self.viewport}"
        return f"{where}: {self.rule} ({self.impact}) on {self.selector}: {self.summary}"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any]]:
    """The demo rated by 3 simulated annotators on a real server: (url, demo setup)."""
    folder = tmp_path_factory.mktemp("accessibility")
    db = folder / "a11y.db"
    engine = make_engine(str(db))
    demo = set_up_demo(engine, simulated_annotators=3)
    engine.dispose()
    server = start_server(db, folder / "server.log")
    try:
        yield server.url, demo
    finally:
        server.stop()


def severe_findings(page: Any, name: str, viewport: str) -> list[Finding]:
    results = Axe().run(page)
    found = []
    for violation in results.response["violations"]:
        if violation["impact"] not in SEVERE:
            continue
        for node in violation["nodes"]:
            selector = " ".join(str(part) for part in node["target"])
            summary = (node.get("failureSummary") or "").replace("\n", " ")[:200]
            found.append(
                Finding(name, viewport, violation["id"], violation["impact"], selector, summary)
            )
    return found


def is_known(finding: Finding) -> bool:
    return any(
        rule == finding.rule and re.search(pattern, finding.selector)
        for rule, pattern in STREAMLIT_KNOWN
    )


def open_sidebar(page: Any) -> None:
    """On a phone the sidebar starts (and, after a page change, ends) collapsed."""
    expand = page.locator("[data-testid='stExpandSidebarButton']")
    if expand.is_visible():
        expand.click()
        expand.wait_for(state="hidden")


def pick_demo(page: Any) -> None:
    open_sidebar(page)
    page.locator("[data-testid='stSidebar'] [data-testid='stSelectbox']").first.click()
    page.get_by_role("option", name="demo", exact=True).click()
    settle(page)


def close_sidebar(page: Any) -> None:
    """On a phone the open sidebar covers the page: closed before axe looks at it."""
    if page.viewport_size["width"] <= PHONE["width"]:
        page.locator("[data-testid='stSidebarCollapseButton'] button").click()
        page.locator("[data-testid='stExpandSidebarButton']").wait_for()


def go_to(page: Any, title: str) -> None:
    open_sidebar(page)
    page.locator("[data-testid='stSidebarNav']").get_by_text(title, exact=True).click()
    settle(page)
    close_sidebar(page)


def open_page(new_page: Any, url: str, viewport: dict[str, int]) -> Any:
    page = new_page(viewport)
    page.goto(url)
    settle(page)
    return page


def visit_all(new_page: Any, url: str, demo: Any, viewport: str) -> list[Finding]:
    size = VIEWPORTS[viewport]
    findings: list[Finding] = []

    page = open_page(new_page, url, size)
    page.get_by_role("button", name=re.compile("Log in")).wait_for(timeout=UI_TIMEOUT_MS)
    findings += severe_findings(page, "login", viewport)

    page = open_page(new_page, f"{url}/?token={demo.token}", size)
    page.get_by_text("Pair 1 of 27", exact=True).wait_for(timeout=UI_TIMEOUT_MS)
    page.locator(".st-key-response_B[tabindex='0'][aria-label='Response B']").wait_for()
    findings += severe_findings(page, "rate", viewport)

    page = open_page(new_page, f"{url}/?token={demo.admin_token}", size)
    pick_demo(page)
    for _file, title, _icon, _path in ADMIN_PAGES:
        go_to(page, title)
        page.get_by_role("heading", name=re.compile(f"^{title}(: demo)?$")).wait_for()
        findings += severe_findings(page, title, viewport)
    go_to(page, "Results")
    page.get_by_role("heading", name="Results: demo", exact=True).wait_for()
    findings += severe_findings(page, "Results", viewport)
    return findings


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_no_serious_violation_in_our_markup(world, new_page, viewport):
    url, demo = world
    findings = visit_all(new_page, url, demo, viewport)
    ours = [f for f in findings if not is_known(f)]
    assert not ours, "\n".join(str(f) for f in ours)
