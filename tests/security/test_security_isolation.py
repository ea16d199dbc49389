"""Security 3: an annotator cannot read another annotator's ratings, nor any label.

In a real server and Chromium, annotator A goes through the pairs that annotator B has rated,
commented and flagged (one of them a gold pair with a known preference). Every websocket frame
A's browser receives or sends, and the page's HTML and attributes, hold none of B's comments or
flag texts, no "chosen"/"rejected" (the labels, a gold preference), and no "gold". Query
parameters naming B's assignment are ignored: A sees A's own pair.

Also covered elsewhere: tests/annotate/app/participant/test_app_rating.py
(`test_nobody_sees_anyone_elses_scores`,
`test_a_crafted_assignment_id_of_another_annotator_is_refused`: pair_view, submit and skip of
another's assignment raise, a session pointed at another's assignment is ignored),
tests/annotate/app/test_app_browser.py (the labels never reach the browser while rating and
navigating), tests/annotate/domain/assignment/test_blinding.py, and for comparison studies of
downstream conditions (which
condition is expected to win) tests/annotate/domain/downstream/test_downstream_comparison.py and
tests/annotate/app/results/test_app_downstream.py.
"""

from __future__ import annotations

import re

import pytest
from security_helpers import BOB_COMMENT, BOB_FLAG, all_stored_values, in_chromium

from tests.helpers.browser_helpers import Recorder, current_assignment, settle, wait_for_pair
from tests.helpers.component_entry import PAIR, wait_shows

pytestmark = in_chromium

SECRET_WORDS = (BOB_COMMENT, BOB_FLAG, "chosen", "rejected", "gold")
# Whole words ("gold", not the demo's "Sungold" tomatoes), in any case.
SECRETS = re.compile(rb"\b(" + b"|".join(w.encode() for w in SECRET_WORDS) + rb")\b", re.I)


def leaks(record: Recorder) -> list[str]:
    found = []
    for direction, frames in (("received", record.received), ("sent", record.sent)):
        for number, frame in enumerate(frames):
            found += [f"{direction} frame {number}: {m!r}" for m in SECRETS.findall(frame)]
    for step, text in record.snapshots:
        found += [f"{step}: {m!r}" for m in SECRETS.findall(text.encode())]
    return found


def test_annotator_a_receives_nothing_of_b_and_no_label(secure_world, new_page):
    page = new_page()
    record = Recorder().attach(page)
    page.goto(secure_world.link("A"))
    settle(page)
    for number, expected in enumerate(secure_world.a_assignments, 1):
        wait_for_pair(page, number)
        wait_shows(page, expected)  # the pair component shows this pair
        # every section of the context open (the guidelines "How to rate" among them)
        page.locator(f"{PAIR} details").evaluate_all("all => all.forEach(d => { d.open = true; })")
        page.locator(PAIR).get_by_text("How to rate").first.wait_for()
        settle(page)
        record.snapshot(page, f"pair {number}")
        page.locator(".st-key-nav_next button").click()
    wait_for_pair(page, 4)
    record.snapshot(page, "pair 4")
    assert len(record.received) > 10, "the websocket frames were not recorded"
    # The check can see these words: B's texts are in the database, the labels in every pair.
    stored = all_stored_values(secure_world.engine).lower()
    assert all(w.lower() in stored for w in SECRET_WORDS if w != "gold")
    assert leaks(record) == []


@pytest.mark.parametrize(
    "param", ["pair", "assignment", "assignment_id", "current_assignment", "id"]
)
def test_a_query_parameter_naming_b_s_assignment_is_ignored(secure_world, new_page, param):
    theirs = secure_world.b_assignments[0]
    page = new_page()
    record = Recorder().attach(page)
    page.goto(f"{secure_world.link('A')}&{param}={theirs}")
    settle(page)
    wait_for_pair(page, 1)
    assert current_assignment(page) == secure_world.a_assignments[0]
    assert current_assignment(page) != theirs
    record.snapshot(page, f"?{param}={theirs}")
    assert leaks(record) == []
