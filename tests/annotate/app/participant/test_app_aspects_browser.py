"""The aspect checklist (issue 14, item 1) in headless Chromium at 1366x768, against a real
`streamlit run` server: the annotator scores a pair, marks every rubric aspect's coverage for
Response A and B by clicking, submits, and the marks are stored by response. Every websocket
frame and the page's HTML hold no label ("chosen"/"rejected"). A screenshot of the checklist
goes to `$PRB_SCREENSHOT_DIR` (or the test's folder).

The fallback view ($PRB_RATING_VIEW=streamlit, `FALLBACK_VIEW`): the pair drawn with Streamlit's
widgets. The default view's counterpart: `test_app_pair_component_aspects_browser.py` (marks by
mouse and keyboard stored by response, nothing says which is chosen, a missing mark named,
screenshots).
"""

from __future__ import annotations

from typing import Any

from sqlmodel import col, select

from annotate.db import make_engine, read_session, write_session
from annotate.db.tables import Annotator, AspectMark, Assignment
from annotate.domain.study.studies import update_study
from annotate.services.admin.demo import set_up_demo
from tests.helpers.browser_helpers import (
    BROWSER_MARKS,
    FALLBACK_VIEW,
    LAPTOP,
    Recorder,
    screenshot_dir,
    settle,
    start_server,
    wait_for_pair,
)

pytestmark = BROWSER_MARKS

ANCHORS = {1: "Very poor", 2: "Poor", 3: "Acceptable", 4: "Good", 5: "Excellent"}
WORDS = {0: "Not covered", 1: "Partly", 2: "Well"}


def _click(page: Any, key: str, text: str) -> None:
    page.locator(f".st-key-{key}").get_by_text(text, exact=True).click()


def test_the_checklist_is_marked_by_clicking_and_stored_by_response(tmp_path, new_page):
    db = tmp_path / "aspects.db"
    engine = make_engine(str(db))
    demo = set_up_demo(engine)
    with write_session(engine) as session:
        update_study(session, "demo", aspect_checklist=True)
    server = start_server(db, tmp_path / "server.log", FALLBACK_VIEW)
    try:
        page = new_page(LAPTOP)
        record = Recorder().attach(page)
        page.goto(f"{server.url}/?token={demo.token}")
        wait_for_pair(page, 1)  # the whole run drawn: the checklist comes after "Pair 1 of"
        n = page.locator(".st-key-aspect_checklist [data-testid='stRadio']").count() // 2
        assert n >= 1
        for side in "AB":
            for dim in ("factuality", "relevance", "helpfulness", "rubric_alignment"):
                _click(page, f"{dim}_{side}", f"3 · {ANCHORS[3]}")
        for index in range(n):  # A covers every aspect well, B none
            _click(page, f"aspect_A_{index}", f"2 · {WORDS[2]}")
            _click(page, f"aspect_B_{index}", f"0 · {WORDS[0]}")
        page.locator(".st-key-aspect_checklist").scroll_into_view_if_needed()
        shots = screenshot_dir(tmp_path / "shots")
        page.screenshot(path=str(shots / "aspect_checklist_1366x768.png"))
        record.snapshot(page, "checklist")
        page.get_by_role("button", name="Submit and go to the next pair").click()
        page.get_by_text("Pair 1 saved.").wait_for()
        settle(page)
        record.snapshot(page, "next pair")
        assert len(record.received) > 10, "the websocket frames were not recorded"
        assert record.label_leaks() == []
        with read_session(engine) as session:
            mine = select(Annotator.id).where(Annotator.name == demo.annotator)
            query = select(Assignment).where(col(Assignment.annotator_id).in_(mine))
            (done,) = session.exec(query.where(Assignment.status == "done")).all()
            marks = session.exec(select(AspectMark).where(AspectMark.assignment_id == done.id))
            stored = {(m.response, m.aspect_index): m.coverage for m in marks}
        on_a = "chosen" if done.chosen_side == "A" else "rejected"
        on_b = "rejected" if on_a == "chosen" else "chosen"
        assert stored == {(on_a, i): 2 for i in range(n)} | {(on_b, i): 0 for i in range(n)}
    finally:
        server.stop()
        engine.dispose()
