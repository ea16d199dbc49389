"""Accessibility (issue 26, item 4): axe-core over every page, annotator and admin, at 1366x768
and 390x844, with data on them, in headless Chromium against the real server: the login page,
the rating page (the pair drawn by the pair component, the default view), every admin page and
the results page with the rated demo; and a crowd
participant's way through a study that uses every step (consent, survey, practice pair and its
feedback, comprehension check, Start, a pair with the aspect checklist and the direct
preference, the done page).

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

from annotate.app.admin.admin_common import ADMIN_PAGES
from annotate.db import make_engine, write_session
from annotate.domain.study.studies import get_study, update_study
from annotate.services.admin.demo import set_up_demo
from tests.helpers.browser_helpers import (
    BROWSER_MARKS,
    LAPTOP,
    PHONE,
    UI_TIMEOUT_MS,
    choose_option,
    settle,
    start_server,
)
from tests.helpers.component_entry import PAIR, enter_by_pointer, n_marks
from tests.helpers.rating_entry import PairEntry

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
    """axe's serious and critical violations, once every element is drawn (no placeholder
    left while an element's script loads).

    A page that refreshes itself (the Monitor's fragment, every 10 s) fades its elements while
    it re-runs, and a scan that overlaps the re-run reads the faded text as low contrast. So a
    color-contrast finding counts only when a second scan, with the app idle again, finds it
    too: a real contrast fault is in both."""
    found = _scan(page, name, viewport)
    if any(f.rule == FADES for f in found):
        settle(page)
        again = {(f.rule, f.selector) for f in _scan(page, name, viewport)}
        found = [f for f in found if f.rule != FADES or (f.rule, f.selector) in again]
    return found


FADES = "color-contrast"  # the one rule a re-run's fading can trip


def _scan(page: Any, name: str, viewport: str) -> list[Finding]:
    page.wait_for_function(
        "() => !document.querySelector(\"[data-testid='stSkeleton']\")", timeout=UI_TIMEOUT_MS
    )
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
    picker = page.locator("[data-testid='stSidebar'] [data-testid='stSelectbox']").first
    choose_option(page, picker, "demo", what="pick the study")


def close_sidebar(page: Any) -> None:
    """On a phone the open sidebar covers the page: closed before axe looks at it (after a
    page is tapped the app closes it itself: page.js)."""
    if page.viewport_size["width"] > PHONE["width"]:
        return
    sidebar = page.locator("[data-testid='stSidebar']")
    if sidebar.get_attribute("data-collapsed") == "false":
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
    page.locator(f"{PAIR}[data-pair] .side-B .response").wait_for()  # the component's pair
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


def test_a_real_contrast_fault_is_still_found_after_the_second_scan(world, new_page):
    """The second scan (severe_findings' docstring) drops only what faded for a moment: text
    drawn pale for good is reported."""
    url, _demo = world
    page = open_page(new_page, url, VIEWPORTS["1366x768"])
    page.get_by_role("button", name=re.compile("Log in")).wait_for(timeout=UI_TIMEOUT_MS)
    page.evaluate(
        """() => { const p = document.createElement('p'); p.id = 'pale';
                   p.textContent = 'Pale words'; p.style.color = '#dddddd';
                   document.querySelector("[data-testid='stMain']").append(p); }"""
    )
    found = severe_findings(page, "login", "1366x768")
    assert any(f.rule == "color-contrast" and "#pale" in f.selector for f in found)


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_no_serious_violation_in_our_markup(world, new_page, viewport):
    url, demo = world
    findings = visit_all(new_page, url, demo, viewport)
    ours = [f for f in findings if not is_known(f)]
    assert not ours, "\n".join(str(f) for f in ours)


# ---------------------------------------------------------------- a crowd participant's pages

PRACTICE = [
    {
        "id": "basil",
        "question": "How do I keep basil alive indoors?",
        "rubric_aspects": [{"aspect": "Short steps", "evidence": "Asks for lists."}],
        "response_a": "Water it when the soil is dry and give it six hours of light.",
        "response_b": "Basil is a herb of the mint family.",
        "expected": {"relevance": {"A": 4, "B": 2}},
        "explanations": {"relevance": "Response B does not answer the question."},
    }
]
QUESTIONS = [
    {
        "id": "sides",
        "text": "Are Response A and Response B ever the same text?",
        "options": ["Yes, often", "No, never"],
        "correct": [1],
    }
]


@pytest.fixture(scope="module")
def crowd_link(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A crowd study with every step a participant can meet: consent, survey, practice pair,
    comprehension check, Start, the aspect checklist and the direct preference. Yields the
    study link without its PROLIFIC_PID."""
    folder = tmp_path_factory.mktemp("accessibility_crowd")
    db = folder / "crowd.db"
    engine = make_engine(str(db))
    set_up_demo(engine)
    with write_session(engine) as session:
        update_study(
            session,
            "demo",
            pool_open=True,
            enrolment_open=True,
            pool_quota=1,
            consent_text="**A study on personalised answers.** About 15 minutes.",
            survey_questions=[
                {"id": "age", "text": "Your age", "kind": "choice", "options": ["18-29", "30+"]},
                {"id": "field", "text": "Your field of work", "kind": "text"},
            ],
            completion_code="DONE-1",
            screenout_code="OUT-1",
            ask_preference=True,
            rationale="optional",
            aspect_checklist=True,
            practice_pairs=PRACTICE,
            comprehension_questions=QUESTIONS,
            comprehension_attempts=2,
        )
        key = get_study(session, "demo").enrolment_key
    engine.dispose()
    server = start_server(db, folder / "server.log")
    try:
        yield f"{server.url}/?study=demo&key={key}&SESSION_ID=s1&PROLIFIC_PID="
    finally:
        server.stop()


def _answers(page: Any, mark: int) -> PairEntry:
    """Every score 4, every aspect `mark`, the preference a tie, for the pair shown."""
    dims = ("factuality", "relevance", "helpfulness", "rubric_alignment")
    marks = {(side, index): mark for side in ("A", "B") for index in range(n_marks(page))}
    scores = {(side, dim): 4 for side in ("A", "B") for dim in dims}
    return PairEntry(scores=scores, marks=marks, preference=3)


def visit_crowd_pages(page: Any, link: str, viewport: str) -> list[Finding]:
    """Consent, survey, practice pair, feedback, check, Start, the pair, done: axe on each."""
    found: list[Finding] = []

    def look(step: str, text: str) -> None:
        page.get_by_text(text).first.wait_for(timeout=UI_TIMEOUT_MS)
        settle(page)
        found.extend(severe_findings(page, f"crowd: {step}", viewport))

    page.goto(link)
    look("consent", "A study on personalised answers.")
    page.get_by_role("button", name="I agree to take part").click()
    look("survey", "A few questions about you")
    page.get_by_text("30+", exact=True).click()
    page.get_by_role("button", name="Continue").click()
    look("practice pair", "Practice pair 1 of 1")
    # The practice pair asks what the rating page asks (issue 22.8): scores, aspects, preference.
    page.locator(f"{PAIR}[data-pair]").wait_for()
    enter_by_pointer(page, _answers(page, mark=1))
    page.get_by_role("button", name="Submit and see the feedback").click()
    look("practice feedback", "Practice pair 1: feedback")
    page.get_by_role("button", name="Continue").click()
    look("comprehension check", "A few questions about the task")
    page.locator(".st-key-check_sides").get_by_text("No, never", exact=True).click()
    page.get_by_role("button", name="Check my answers").click()
    look("start", "Start")
    page.get_by_role("button", name="Start").click()
    look("pair with aspects and preference", "Pair 1 of 1")
    page.locator(f"{PAIR}[data-pair]").wait_for()
    enter_by_pointer(page, _answers(page, mark=0))
    page.locator(f"{PAIR} button.submit").click()
    look("done", "All done, thank you!")
    return found


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_no_serious_violation_on_a_crowd_participants_pages(crowd_link, new_page, viewport):
    page = new_page(VIEWPORTS[viewport])
    participant = f"5f1a2b3c4d5e6f7a8b9c0d{list(VIEWPORTS).index(viewport):02d}"
    findings = visit_crowd_pages(page, crowd_link + participant, viewport)
    ours = [f for f in findings if not is_known(f)]
    assert not ours, "\n".join(str(f) for f in ours)
