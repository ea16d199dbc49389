"""Issue 14 end to end in headless Chromium at 1366x768, against a real `streamlit run` server (the
pair and the practice pair drawn by the pair component, the default view, issue 36 item 5):
a crowd participant opens the study link, reads the consent page, answers the survey, scores a
practice pair and reads its feedback, fails the comprehension check once and passes it, presses
Start, rates a pair by keyboard alone (scores, the aspect checklist, the direct preference and
its rationale), reviews it from the done page and goes back to the platform's completion URL
with the completion code by its button.
Every websocket frame and the page's HTML hold no label ("chosen"/"rejected"). Screenshots of
the consent page, the feedback, the check and the rated pair go to `$PRB_SCREENSHOT_DIR` (or the
test's folder).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import select

from annotate.db import make_engine, read_session, write_session
from annotate.db.tables import AspectMark, Assignment, Participation, Rating, Training
from annotate.domain.study.studies import get_study, update_study
from annotate.services.admin.demo import set_up_demo
from tests.helpers.browser_helpers import (
    BROWSER_MARKS,
    LAPTOP,
    PHONE,
    Recorder,
    screenshot_dir,
    settle,
    start_server,
)
from tests.helpers.component_entry import (
    PAIR,
    enter_by_keyboard,
    enter_by_pointer,
    n_marks,
    shown,
)
from tests.helpers.rating_entry import PairEntry

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
RATED_MARKS = (("A", 0), ("B", 2))  # each aspect: not covered in A, well in B
SENT_AGAIN = re.compile(rb'action\\*"\s*:\s*\\*"submit')  # the component's Submit event
PRACTICE = [
    {
        "id": "basil",
        "question": "How do I keep basil alive indoors?",
        "rubric_aspects": [{"aspect": "Short steps", "evidence": "Asks for lists."}],
        "response_a": "Water it when the soil is dry and give it six hours of light.",
        "response_b": "Basil is a herb of the mint family.",
        "expected": {"relevance": {"A": 4, "B": 2}},
        "expected_aspects": {"A": [2], "B": [0]},
        "expected_preference": -2,
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
            aspect_checklist=True,
            practice_pairs=PRACTICE,
            comprehension_questions=QUESTIONS,
            comprehension_attempts=2,
        )
        key = get_study(session, "demo").enrolment_key
    link = f"{server.url}/?study=demo&key={key}&PROLIFIC_PID={PID}&SESSION_ID=s1"
    try:
        yield Crowd(engine, link, done_url, screenshot_dir(folder / "shots"))
    finally:
        server.stop()
        engine.dispose()


def _practise(page: Any, crowd: Crowd, record: Recorder) -> None:
    """The practice pair, drawn by the pair component with the rating page's questions and
    keys, answered by keyboard alone (scores 4, A's aspect well and B's not covered, A much
    better and why); then its feedback."""
    page.get_by_text("Practice pair 1 of 1").wait_for()
    page.locator(f"{PAIR}[data-pair]").wait_for()
    settle(page)
    given = PairEntry(
        scores={(side, dim): 4 for side in ("A", "B") for dim in SCORES[side]},
        marks={("A", 0): 2, ("B", 0): 0},
        preference=1,
        rationale="A answers; B does not.",
    )
    enter_by_keyboard(page, given)
    page.keyboard.press("Control+Enter")
    page.get_by_text("Practice pair 1: feedback").wait_for()
    # B's relevance: 4, not 2; the two marks and the preference as expected.
    page.get_by_text("Your answers matched 4 of 5 expected answers.").wait_for()
    page.get_by_text("Response B does not answer the question.").wait_for()
    page.screenshot(path=str(crowd.shots / "designs_feedback_1366x768.png"))
    record.snapshot(page, "feedback")
    page.get_by_role("button", name="Continue").click()


def _check(page: Any, crowd: Crowd, record: Recorder) -> None:
    """The comprehension check: failed once (one attempt left), then passed."""
    page.get_by_text("A few questions about the task").wait_for()
    question = page.locator(".st-key-check_sides")
    question.get_by_text("Yes, often", exact=True).click()
    page.get_by_role("button", name="Check my answers").click()
    page.get_by_text("Attempts left: 1 of 2").wait_for()
    page.screenshot(path=str(crowd.shots / "designs_check_failed_1366x768.png"))
    record.snapshot(page, "check failed")
    question.get_by_text("No, never", exact=True).click()
    page.get_by_role("button", name="Check my answers").click()


def _rate_by_keyboard(page: Any, n_aspects: int) -> None:
    """The 8 scores, then 0/2 per aspect (A not covered, B well), then the preference (5: B much
    better) and its rationale, all from the keyboard, in the pair component."""
    marks = {(side, index): mark for index in range(n_aspects) for side, mark in RATED_MARKS}
    scores = {(side, dim): value for side in ("A", "B") for dim, value in SCORES[side].items()}
    rationale = "B keeps to the user's wish for short, practical steps."
    enter_by_keyboard(
        page, PairEntry(scores=scores, marks=marks, preference=5, rationale=rationale)
    )


def test_consent_training_aspects_preference_review_and_the_way_back(crowd, new_page):
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
    _practise(page, crowd, record)
    _check(page, crowd, record)
    page.get_by_role("button", name="Start").click()
    page.get_by_text("Pair 1 of 1", exact=True).wait_for()
    shown(page)
    settle(page)
    n_aspects = n_marks(page)
    assert n_aspects >= 1
    _rate_by_keyboard(page, n_aspects)
    page.locator(f"{PAIR} fieldset.pref").scroll_into_view_if_needed()
    page.screenshot(path=str(crowd.shots / "designs_rated_1366x768.png"), full_page=True)
    record.snapshot(page, "rated")
    page.keyboard.press("Control+Enter")
    page.get_by_text("All done, thank you!").wait_for()
    page.get_by_role("link", name="Return to the study platform").wait_for()
    record.snapshot(page, "done")
    _review_then_leave(page, crowd, record)

    assert len(record.received) > 10, "the websocket frames were not recorded"
    assert record.label_leaks() == []
    _check_stored(crowd.engine, n_aspects)


def _one_row(page: Any) -> None:
    """Every choice of each of the component's questions on one line (same top), none cut
    off."""
    rows = page.locator(f"{PAIR} fieldset.q").evaluate_all(
        """(groups) => groups.map(g => [...g.querySelectorAll("label")].map(l => {
                const r = l.getBoundingClientRect(); return [r.top, r.bottom, r.right]; }))"""
    )
    assert rows
    for labels in rows:  # one row: every label overlaps every other vertically
        assert max(top for top, _, _ in labels) < min(bottom for _, bottom, _ in labels), rows
        assert max(right for _, _, right in labels) <= 390, rows


def test_the_practice_on_a_phone(crowd, new_page):
    """Issue 22.8 at 390x844: the 1-5 scales and the preference each in one row, no keyboard
    hint, the feedback table's headers whole words."""
    page = new_page(PHONE)
    page.goto(crowd.link.replace(PID, "6a1a2b3c4d5e6f7a8b9c0d1f"))
    settle(page)
    page.get_by_role("button", name="I agree to take part").click()
    page.get_by_text("A few questions about you").wait_for()
    page.get_by_text("30-49", exact=True).click()
    page.get_by_role("button", name="Continue").click()
    page.get_by_text("Practice pair 1 of 1").wait_for()
    page.locator(f"{PAIR}[data-pair]").wait_for()
    settle(page)
    _one_row(page)
    assert not page.locator(".st-key-shortcuts").is_visible()
    page.locator(f"{PAIR} fieldset.q").first.scroll_into_view_if_needed()
    page.screenshot(path=str(crowd.shots / "designs_practice_390x844.png"))
    page.locator(f"{PAIR} fieldset.pref").scroll_into_view_if_needed()
    page.screenshot(path=str(crowd.shots / "designs_practice_preference_390x844.png"))
    tie = PairEntry(
        scores={(side, dim): 3 for side in ("A", "B") for dim in SCORES[side]},
        marks={("A", 0): 1, ("B", 0): 1},
        preference=3,
        rationale="Both miss.",
    )
    enter_by_pointer(page, tie)
    page.get_by_role("button", name="Submit and see the feedback").click()
    page.get_by_text("Practice pair 1: feedback").wait_for()
    settle(page)
    broken = page.evaluate(
        """() => [...document.querySelectorAll(".st-key-practice_feedback th")]
            .filter(th => th.scrollWidth > th.clientWidth
                          || th.getBoundingClientRect().height > 3 * parseFloat(
                                 getComputedStyle(th).fontSize))
            .map(th => th.innerText)"""
    )
    assert broken == []  # (one line of text and its padding: under 3 times the font size)
    page.screenshot(path=str(crowd.shots / "designs_feedback_390x844.png"), full_page=True)


def _review_then_leave(page: Any, crowd: Crowd, record: Recorder) -> None:
    """Issue 22.7: the done page has no redirect of its own; the participant reviews the pair,
    comes back to the end, and leaves with the button. Opening the link again shows the done
    page and stays there (no script on it sends them away). The pair reviewed is not sent
    again: its submit was stored, though its answer drew the done page, not the pair (the
    component's outbox had kept it and sent it again, which took the page back to the end)."""
    assert page.locator(".st-key-prb_redirect").count() == 0
    before = len(record.sent)
    assert [f for f in record.sent if SENT_AGAIN.search(f)]  # (the check sees the submit sent)
    page.get_by_role("button", name="Review my ratings").click()
    page.get_by_text("You have rated this pair already", exact=False).wait_for()
    shown(page)
    settle(page)
    page.get_by_role("button", name="Back to the end").click()
    page.get_by_text("All done, thank you!").wait_for()
    settle(page)
    assert not [f for f in record.sent[before:] if SENT_AGAIN.search(f)]
    with page.context.expect_page() as opened:  # (a link button opens a new tab)
        page.get_by_role("link", name="Return to the study platform").click()
    opened.value.wait_for_url("**returned=DONE-77")
    page.goto(crowd.link)
    settle(page)
    page.get_by_text("All done, thank you!").wait_for()
    assert page.locator(".st-key-prb_redirect").count() == 0


def _check_stored(engine: Any, n_aspects: int) -> None:
    with read_session(engine) as session:
        (done,) = session.exec(
            select(Assignment).where(Assignment.status == "done", Assignment.annotator_id != 1)
        ).all()
        (took_part,) = session.exec(select(Participation)).all()
        (trained,) = session.exec(select(Training)).all()
        marks = session.exec(select(AspectMark).where(AspectMark.assignment_id == done.id)).all()
        scores = session.exec(select(Rating).where(Rating.assignment_id == done.id)).all()
    assert (done.side_preference, done.rationale[:7]) == (2, "B keeps")
    assert (took_part.consent, took_part.survey) == (
        "accepted",
        {"age": "30-49", "field": "nursing"},
    )
    assert trained.status == "passed"
    assert len(trained.attempts) == 2  # failed once, then passed
    # Stored by response: the side shown as B is the chosen one when chosen_side is B.
    b_response = "chosen" if done.chosen_side == "B" else "rejected"
    by_response = {(m.response, m.aspect_index): m.coverage for m in marks}
    assert len(by_response) == 2 * n_aspects
    for (response, _), coverage in by_response.items():
        assert coverage == (2 if response == b_response else 0)
    a_response = "rejected" if b_response == "chosen" else "chosen"
    stored = {(r.response, r.dimension): r.score for r in scores}
    for side, response in (("A", a_response), ("B", b_response)):
        for dim, value in SCORES[side].items():
            assert stored[(response, dim)] == value
