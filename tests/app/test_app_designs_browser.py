"""Issue 14 end to end in headless Chromium at 1366x768, against a real `streamlit run` server:
a crowd participant opens the study link, reads the consent page, answers the survey, presses
Start, scores a pair and gives the direct preference with a rationale, and is sent back to the
platform's completion URL with the completion code. Every websocket frame and the page's HTML
hold no label ("chosen"/"rejected"). Screenshots of the consent page and the preference go to
`$PRB_SCREENSHOT_DIR` (or the test's folder).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import select

from annotate.db import make_engine, read_session, write_session
from annotate.db.tables import Assignment, Participation
from annotate.domain.studies import get_study, update_study
from annotate.services.demo import set_up_demo
from tests.app.browser_helpers import (
    BROWSER_MARKS,
    LAPTOP,
    Recorder,
    screenshot_dir,
    settle,
    start_server,
)

pytestmark = BROWSER_MARKS

PID = "5f1a2b3c4d5e6f7a8b9c0d1e"
CONSENT = (
    "**Study on personalised answers.** You will read a question, what its asker expects, and "
    "two answers, and rate them for about 15 minutes. Your answers are stored without your name; "
    "you may stop at any time."
)
SURVEY = [
    {"id": "age", "text": "Your age band", "kind": "choice", "options": ["18-29", "30-49", "50+"]},
    {"id": "field", "text": "Your field of work", "kind": "text"},
]
ANCHORS = {1: "Very poor", 2: "Poor", 3: "Acceptable", 4: "Good", 5: "Excellent"}
SCORES = {
    "A": {"factuality": 4, "relevance": 4, "helpfulness": 3, "rubric_alignment": 2},
    "B": {"factuality": 4, "relevance": 5, "helpfulness": 4, "rubric_alignment": 5},
}


@dataclass
class Crowd:
    engine: Any
    link: str
    done_url: str
    shots: Path


@pytest.fixture(scope="module")
def crowd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Crowd]:
    folder = tmp_path_factory.mktemp("designs")
    db = folder / "designs.db"
    engine = make_engine(str(db))
    set_up_demo(engine)
    server = start_server(db, folder / "server.log")
    done_url = f"{server.url}/?returned={{code}}"  # the "platform": our own server, any page
    with write_session(engine) as session:
        update_study(
            session,
            "demo",
            pool_open=True,
            enrolment_open=True,
            pool_quota=1,
            consent_text=CONSENT,
            survey_questions=SURVEY,
            completion_code="DONE-77",
            screenout_code="OUT-77",
            completion_url=done_url,
            ask_preference=True,
            rationale="required",
        )
        key = get_study(session, "demo").enrolment_key
    link = f"{server.url}/?study=demo&key={key}&PROLIFIC_PID={PID}&SESSION_ID=s1"
    try:
        yield Crowd(engine, link, done_url, screenshot_dir(folder / "shots"))
    finally:
        server.stop()
        engine.dispose()


def _score(page: Any, side: str, dim: str, value: int) -> None:
    page.locator(f".st-key-{dim}_{side}").get_by_text(f"{value} · {ANCHORS[value]}").click()


def test_consent_survey_preference_and_the_redirect_back(crowd, new_page):
    page = new_page(LAPTOP)
    record = Recorder().attach(page)
    page.goto(crowd.link)
    settle(page)
    page.get_by_text("Study on personalised answers.").wait_for()
    page.screenshot(path=str(crowd.shots / "designs_consent_1366x768.png"))
    record.snapshot(page, "consent")
    page.get_by_role("button", name="I agree to take part").click()
    page.get_by_text("A few questions about you").wait_for()
    page.get_by_text("30-49", exact=True).click()
    page.get_by_label("Your field of work (optional)").fill("nursing")
    page.get_by_role("button", name="Continue").click()
    page.get_by_role("button", name="Start").click()
    page.get_by_text("Pair 1 of 1", exact=True).wait_for()
    settle(page)
    for side, by_dim in SCORES.items():
        for dim, value in by_dim.items():
            _score(page, side, dim, value)
    box = page.locator(".st-key-preference_box")
    box.get_by_text("B much better", exact=True).click()
    box.get_by_role("textbox").fill("B keeps to the user's wish for short, practical steps.")
    box.scroll_into_view_if_needed()
    page.screenshot(path=str(crowd.shots / "designs_preference_1366x768.png"))
    record.snapshot(page, "preference")
    page.get_by_role("button", name="Submit and go to the next pair").click()
    page.get_by_text("All done, thank you!").wait_for()
    page.get_by_role("link", name="Return to the study platform").wait_for()
    record.snapshot(page, "done")
    page.wait_for_url("**returned=DONE-77", timeout=15_000)  # the redirect after the pause

    assert len(record.received) > 10, "the websocket frames were not recorded"
    assert record.label_leaks() == []
    with read_session(crowd.engine) as session:
        (done,) = session.exec(
            select(Assignment).where(Assignment.status == "done", Assignment.annotator_id != 1)
        ).all()
        (took_part,) = session.exec(select(Participation)).all()
    assert (done.side_preference, done.rationale[:7]) == (2, "B keeps")
    assert (took_part.consent, took_part.survey) == (
        "accepted",
        {"age": "30-49", "field": "nursing"},
    )
