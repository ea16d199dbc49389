"""Security 5: hostile dataset text cannot run or load anything in Chromium.

The `hostile` study's one pair carries, in its question, category, narrative, every profile post
and category, every rubric field and both responses, a `<script>`, an `<img onerror>`,
`javascript:` links (HTML and Markdown), an `<iframe>`, an `<svg onload>`, `<object>`/`<embed>`,
`<video>`, a CSS `@import` and Markdown images (inline and by reference) pointing at an external
host; its record id and its annotator's name, comment and flag text are hostile too. Every page
that shows any of it is opened in a real server: the rating page, the admin's Progress (flags,
chart), Data and gold pairs (the gold picker, opened), Assignments (the plan), Annotators, and
the researcher's Results. On each: `window.__pwned` stays undefined, no element has an event
handler attribute or a `javascript:` link, nothing of the dataset became an image, frame or
script, and every request the page made went to the app's own origin.

Also covered elsewhere: tests/annotate/app/test_app_browser.py
(`test_hostile_text_is_inert_and_non_latin_text_displays`: the rating page with mixed payloads,
long and non-Latin text), tests/annotate/app/test_app_safe_text.py (`inert_markdown` on its own).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from security_helpers import in_chromium

import annotate.app
from tests.helpers.browser_helpers import (
    UI_TIMEOUT_MS,
    Recorder,
    all_attributes,
    choose_option,
    current_assignment,
    settle,
    wait_for_loads,
)
from tests.helpers.component_entry import PAIR
from tests.helpers.hostile import EVIL_HOST

pytestmark = in_chromium

INERT_SCHEMES = ("data", "blob", "about")
JS_URL = re.compile(r"^\w+=\s*javascript:", re.IGNORECASE)  # an attribute as "name=value"
OWN_SCRIPTS = {
    (Path(annotate.app.__file__).parent / name).read_text(encoding="utf-8").strip()
    for name in ("rate.js", "page.js")
}


def assert_inert(page: Any, record: Recorder, origin: str, where: str) -> None:
    wait_for_loads(page)  # anything that was created has tried to run or load
    assert page.evaluate("() => typeof window.__pwned") == "undefined", (
        f"{where}: {page.evaluate('() => String(window.__pwned)')} ran"
    )
    attributes = [a.split(": ", 1)[1] for a in all_attributes(page)]  # shadow roots' too
    handlers = [a for a in attributes if a.lower().startswith("on")]
    assert handlers == [], f"{where}: {handlers}"
    linked = ("href=", "src=", "data=", "action=", "formaction=")
    links = [a for a in attributes if a.lower().startswith(linked) and JS_URL.match(a)]
    assert links == [], f"{where}: {links}"
    main = page.locator("[data-testid='stMain']")
    for tag in ("iframe", "object", "embed", "video", "audio", "frame"):
        assert main.locator(tag).count() == 0, f"{where}: a <{tag}> is on the page"
    scripts = page.evaluate(
        """() => [...document.querySelectorAll("[data-testid='stMain'] script")]
                 .map(el => el.textContent)"""
    )
    # The app's own scripts (annotate/app/rate.js, page.js), exactly as shipped, are the only
    # ones allowed.
    theirs = [s for s in scripts if s.strip() not in OWN_SCRIPTS]
    assert theirs == [], f"{where}: a <script> in the page's content"
    assert main.locator("svg circle[r='5']").count() == 0, f"{where}: the dataset's <svg>"
    images = page.evaluate("() => [...document.images].map(i => i.src)")
    assert [src for src in images if EVIL_HOST in src or src.endswith("/x")] == [], where
    outside = [
        url
        for url in record.requests
        if urlsplit(url).scheme not in INERT_SCHEMES and not url.startswith(origin + "/")
    ]
    assert outside == [], f"{where}: requests left the app: {outside}"


def open_app(page: Any, url: str) -> None:
    page.goto(url)
    settle(page)


def test_the_rating_page_keeps_hostile_text_inert(secure_world, new_page):
    page = new_page()
    record = Recorder().attach(page)
    open_app(page, secure_world.link("hostile"))
    page.get_by_text("All done, thank you!").wait_for()  # the pair is rated (and flagged)
    page.get_by_role("button", name="Review my ratings").click()
    page.get_by_text("Pair 1 of 1", exact=True).wait_for()
    current_assignment(page)  # drawn by the pair component
    settle(page)
    # every section of the context open: rubric, narrative, posts, guidelines
    page.locator(f"{PAIR} details").evaluate_all("all => all.forEach(d => { d.open = true; })")
    text = page.locator(PAIR).inner_text()
    assert_inert(page, record, secure_world.url, "rating page")
    # Every field's payload is on the page, as text.
    for field in ("question", "category", "narrative", "profile", "rubric_aspect", "chosen"):
        assert f"window.__pwned='{field} script'" in text, field
    assert "[image: pic]" in text  # a Markdown image became a note, not an image
    comment = page.locator(f"{PAIR} #prb-comment")  # the annotator's own, shown back as text
    page.wait_for_function(
        "(box) => box.value.startsWith('<script>')", arg=comment.element_handle()
    )


def choose_in_sidebar(page: Any, option: str) -> None:
    picker = page.locator("[data-testid='stSidebar'] [data-testid='stSelectbox']").first
    choose_option(page, picker, option, what="pick the study")


def go_to(page: Any, title: str, study: str | None = "hostile") -> None:
    """Open a page from the navigation; its heading names the study picked (if it has one)."""
    page.locator("[data-testid='stSidebarNav']").get_by_text(title, exact=True).click()
    heading = title if study is None else f"{title}: {study}"
    page.get_by_role("heading", name=heading, exact=True).wait_for()
    settle(page)


def test_the_admin_pages_keep_hostile_text_inert(secure_world, new_page):
    page = new_page()
    record = Recorder().attach(page)
    open_app(page, secure_world.link("admin"))  # Progress is the admin's first page
    page.get_by_role("heading", name="Progress", exact=True).wait_for()
    choose_in_sidebar(page, "hostile")
    page.get_by_role("heading", name="Flagged pairs (1)").wait_for()
    # The work per annotator is a table column now (no Plotly chart on Progress): the hostile
    # name is drawn by the table's canvas, as text.
    page.locator("[data-testid='stDataFrame']").first.wait_for(timeout=UI_TIMEOUT_MS)
    assert_inert(page, record, secure_world.url, "Progress")

    go_to(page, "Data and gold pairs")
    page.get_by_text("Gold pairs of hostile").wait_for()
    page.locator(".st-key-gold_pairs [data-testid='stMultiSelect'] input").click()
    option = page.get_by_role("option", name="hostile<b>1</b>", exact=False)
    option.wait_for()
    assert "onerror" in option.inner_text()
    page.keyboard.press("Escape")
    assert_inert(page, record, secure_world.url, "Data and gold pairs")

    go_to(page, "Assignments")
    page.get_by_role("tab", name="The plan").click()
    settle(page)
    assert_inert(page, record, secure_world.url, "Assignments")

    go_to(page, "Annotators", study=None)
    assert_inert(page, record, secure_world.url, "Annotators")

    go_to(page, "Flags and skips")
    page.get_by_text("Open an item").wait_for()
    assert_inert(page, record, secure_world.url, "Flags and skips")

    go_to(page, "Audit log")
    assert_inert(page, record, secure_world.url, "Audit log")


@pytest.mark.parametrize("who", ["researcher", "admin"])
def test_the_results_page_keeps_hostile_text_inert(secure_world, new_page, who):
    page = new_page()
    record = Recorder().attach(page)
    # Results is the researcher's first page (at /), one of the admin's pages (at /results).
    open_app(page, secure_world.link(who, "" if who == "researcher" else "results"))
    page.get_by_role("heading", name="Results", exact=True).wait_for()
    choose_in_sidebar(page, "hostile")  # a new session has no study picked
    page.get_by_role("heading", name="Results: hostile", exact=True).wait_for()
    assert_inert(page, record, secure_world.url, f"Results ({who})")
