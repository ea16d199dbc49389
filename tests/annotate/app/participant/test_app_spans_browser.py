"""Spans marked in the pair component (issue 36.3), in headless Chromium against a real
`streamlit run` server with PRB_RATING_VIEW=component.

A study whose questionnaire holds two span labels; each pair's responses hold bold text, a
list, a code block, an emoji with a skin tone, CJK, right-to-left text and raw HTML. Spans are
selected in the page as a person selects them (a DOM selection, by mouse, by touch, by keys),
marked, submitted, and read back from the database: the stored rows' code points against the
STORED text give exactly the slice expected (markup between the first and last selected
character inside it), and the words shown between them are the words selected.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import col, select

from annotate.app.participant.pair_component import pair_data
from annotate.app.participant.pair_component.text_tree import placed_tree, shown_between
from annotate.db import make_engine, read_session, write_session
from annotate.db.tables import Assignment, Pair, Span
from annotate.domain.rating.queue import pair_view
from annotate.domain.study.permissions import SYSTEM
from annotate.domain.study.studies import get_or_create_study
from annotate.questionnaire import DEFAULT_QUESTIONNAIRE, parse_questionnaire
from annotate.services.admin.data import import_files
from support.appserver import AppServer
from tests.annotate.app.test_app_accessibility_browser import severe_findings
from tests.helpers.browser_helpers import (
    BROWSER_MARKS,
    LAPTOP,
    PHONE,
    SERVER_START_TIMEOUT_S,
    Recorder,
    add_annotator,
    screenshot_dir,
    settle,
)
from tests.helpers.component_entry import open_pair, shown, wait_other

pytestmark = BROWSER_MARKS

PAIR = ".prb-pair"
RAW = '<b onmouseover="window.__pwned=1">raw html</b>'
LABELS = [
    {"key": "rubric", "label": "Breaks the rubric"},
    {"key": "error", "label": "Factual error"},
    {"key": "odd", "label": f"Odd {RAW}"},  # an admin's words: shown as its characters
]


def response(version: str) -> str:
    return (
        f"Start with **bold words** here ({version}).\n\n"
        "- first item\n"
        "- second item\n\n"
        "```python\nx = 1  # code\n```\n\n"
        f"Emoji 🎉👍🏽 end. 中文回答 ok. مرحبا بكم here. {RAW} tail.\n"
    )


# (first selected words, last selected words, the stored slice expected): the selection runs
# from the first character of the first words to the last character of the last words.
CASES = {
    "bold": ("bold", "here", "bold words** here"),
    "list": ("item", "second", "item\n- second"),
    "code": ("x = 1", "x = 1", "x = 1"),
    "emoji": ("🎉", "end", "🎉👍🏽 end"),
    "cjk": ("中文回答", "中文回答", "中文回答"),
    "rtl": ("مرحبا", "بكم", "مرحبا بكم"),
    "raw": ("raw html", "tail", "raw html</b> tail"),
}


@dataclass
class World:
    engine: Any
    url: str
    shots: Path

    def link(self, name: str) -> str:
        return f"{self.url}/?token={add_annotator(self.engine, 'spans', name)}"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    folder = tmp_path_factory.mktemp("spans")
    db = folder / "spans.db"
    engine = make_engine(str(db))
    data = folder / "Society_and_Culture_test.jsonl"
    records = [
        {
            "id": f"span_{n}",
            "question": "How should I water my fern?",
            "profile": [{"id": "p1", "category": "garden", "text": "I keep ferns."}],
            "rubric_aspects": [{"aspect": "Mentions humidity", "evidence": "", "reason": ""}],
            "narrative": "My fern is drying out.",
            "category": "gardening",
            "chosen": response(f"one {n}"),
            "rejected": response(f"two {n}"),
        }
        for n in range(3)
    ]
    data.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    with write_session(engine) as session:
        study = get_or_create_study(session, "spans", seed=11)
        questionnaire = parse_questionnaire({"template": "prb", "span_labels": LABELS})
        study.questionnaire = questionnaire.stored()
        session.add(study)
    import_files(engine, SYSTEM, [data], study="spans")
    server = AppServer(
        str(db), folder / "server.log", environment={"PRB_RATING_VIEW": "component"}
    ).start(timeout=SERVER_START_TIMEOUT_S)
    try:
        yield World(engine, server.url, screenshot_dir(folder / "shots"))
    finally:
        server.stop()
        engine.dispose()


def answer_all(page: Any) -> None:
    for side in "AB":
        for key in DEFAULT_QUESTIONNAIRE.keys:
            page.locator(
                f"{PAIR} fieldset.q[data-side='{side}'][data-key='{key}'] input[value='3']"
            ).check()


# Select, in a response's box, from the start of `first` to the end of `last` (the text as
# the browser holds it: the DOM's text nodes in order).
SELECT = """([side, first, last]) => {
    const host = [...document.querySelectorAll('*')].find(
        h => h.shadowRoot && h.shadowRoot.querySelector('.prb-pair'));
    const root = host.shadowRoot;
    const box = root.querySelector(`.side-${side} .response`);
    const nodes = [];
    const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) nodes.push(n);
    const all = nodes.map(n => n.data).join('');
    const from = all.indexOf(first);
    const to = all.indexOf(last, from) + last.length;
    const at = (index, isEnd) => {
        let seen = 0;
        for (const n of nodes) {
            const size = n.data.length;
            if (index < seen + size || (isEnd && index === seen + size)) return [n, index - seen];
            seen += size;
        }
        throw new Error('not found: ' + index);
    };
    const [a, ao] = at(from, false);
    const [b, bo] = at(to, true);
    document.getSelection().setBaseAndExtent(a, ao, b, bo);
    return root.getSelection().toString();
}"""


def select_text(page: Any, side: str, first: str, last: str) -> str:
    return page.evaluate(SELECT, [side, first, last])


def label_button(page: Any, side: str, key: str) -> Any:
    return page.locator(f"{PAIR} .span-tools[data-side='{side}'] button[data-label='{key}']")


def stored_spans(engine: Any, assignment_id: int, *, current: bool = True) -> list[tuple]:
    """(side, slice of the stored text, label, shown words) of the pair's spans."""
    with read_session(engine) as session:
        assignment = session.get(Assignment, assignment_id)
        assert assignment is not None
        pair = session.get(Pair, assignment.pair_id)
        assert pair is not None
        query = select(Span).where(Span.assignment_id == assignment_id)
        query = query.where(
            col(Span.removed_at).is_(None) if current else col(Span.removed_at).is_not(None)
        )
        rows = session.exec(query).all()
    out = []
    for row in rows:
        text = pair.chosen if row.response == "chosen" else pair.rejected
        side = (
            assignment.chosen_side if row.response == "chosen" else _other(assignment.chosen_side)
        )
        out.append(
            (
                side,
                text[row.start : row.end],
                row.label,
                shown_between(placed_tree(text), row.start, row.end),
            )
        )
    return sorted(out)


def _other(side: str) -> str:
    return "B" if side == "A" else "A"


def test_spans_across_markup_emoji_cjk_and_rtl_store_the_selected_slice(world: World, new_page):
    page = new_page(LAPTOP)
    current = open_pair(page, world.link("marker"))
    expected = []
    for number, (first, last, stored_slice) in enumerate(CASES.values()):
        side = "AB"[number % 2]
        key = LABELS[number % 2]["key"]
        selected = select_text(page, side, first, last)
        label_button(page, side, key).click()
        page.locator(f"{PAIR} .span-tools[data-side='{side}'] .span-said").get_by_text(
            "Marked as"
        ).wait_for()
        words = "".join(selected.split())  # the characters selected (blocks break lines)
        expected.append((side, stored_slice, key, words))
    assert page.locator(f"{PAIR} mark.span-mark").count() >= len(CASES)
    page.screenshot(path=str(world.shots / "spans_marked_laptop.png"), full_page=True)
    assert severe_findings(page, "spans marked", "laptop") == []
    answer_all(page)
    page.locator(f"{PAIR} button.submit").click()
    wait_other(page, current)
    rows = stored_spans(world.engine, current)
    assert [r[:3] for r in rows] == sorted(e[:3] for e in expected)
    for side, stored_slice, key, shown_words in rows:
        match = next(e for e in expected if e[:3] == (side, stored_slice, key))
        assert "".join(shown_words.split()) == match[3]  # the characters shown: those selected
    assert page.evaluate("() => typeof window.__pwned") == "undefined"
    assert label_button(page, "A", "odd").inner_text() == f"3 · Odd {RAW}"
    assert page.locator(f"{PAIR} b[onmouseover]").count() == 0


def focus_response(page: Any, side: str) -> None:
    page.locator(f"{PAIR} .side-{side} .response").focus()


def test_keyboard_marks_with_shift_arrows_and_a_digit(world: World, new_page):
    """In a focused response: arrows move the caret over the text as shown, Shift+arrows
    select (Ctrl: by word), a digit marks the selection with that label; a Remove button is
    reached by Tab."""
    page = new_page(LAPTOP)
    current = open_pair(page, world.link("keys"))
    page.get_by_text("to mark a span, select text in a response").wait_for()  # the key help
    focus_response(page, "B")
    page.keyboard.press("Control+Shift+ArrowRight")  # "Start"
    page.keyboard.press("2")
    focus_response(page, "A")
    for _ in range(len("Start with ")):
        page.keyboard.press("ArrowRight")
    caret = page.locator(f"{PAIR} .side-A .response .caret")  # where the next Shift+arrow starts
    caret.wait_for()
    box = page.locator(f"{PAIR} .side-A .response").bounding_box()
    at = caret.bounding_box()
    assert box is not None
    assert at is not None
    assert box["x"] < at["x"] < box["x"] + box["width"] / 2  # after "Start with ", inside
    page.screenshot(path=str(world.shots / "spans_caret.png"))
    for _ in range(len("bold")):
        page.keyboard.press("Shift+ArrowRight")
    page.keyboard.press("1")
    page.locator(f"{PAIR} .span-tools[data-side='A'] .span-list li").wait_for()
    answer_all(page)
    page.keyboard.press("Control+Enter")
    wait_other(page, current)
    assert [r[:3] for r in stored_spans(world.engine, current)] == [
        ("A", "bold", "rubric"),
        ("B", "Start", "error"),
    ]


def test_touch_selection_then_a_tapped_label(world: World, new_page):
    """On a phone: a selection (as a long press leaves it), then a tap on a label's button."""
    page = new_page(PHONE, has_touch=True, is_mobile=True)
    current = open_pair(page, world.link("thumb"))
    select_text(page, "B", "中文回答", "中文回答")
    label_button(page, "B", "error").tap()
    page.locator(f"{PAIR} .span-tools[data-side='B'] .span-list li").wait_for()
    page.locator(f"{PAIR} .side-B .response").scroll_into_view_if_needed()
    page.screenshot(path=str(world.shots / "spans_phone.png"))
    assert severe_findings(page, "spans marked", "phone") == []
    answer_all(page)
    page.locator(f"{PAIR} button.submit").tap()
    wait_other(page, current)
    assert [r[:3] for r in stored_spans(world.engine, current)] == [("B", "中文回答", "error")]


def test_saved_spans_are_drawn_again_and_a_revision_keeps_the_removed_one(world: World, new_page):
    page = new_page(LAPTOP)
    current = open_pair(page, world.link("reviser"))
    for first, last, key in (("bold", "here", "rubric"), ("x = 1", "x = 1", "error")):
        select_text(page, "A", first, last)
        label_button(page, "A", key).click()
    answer_all(page)
    page.locator(f"{PAIR} button.submit").click()
    wait_other(page, current)
    page.keyboard.press("Alt+p")  # back to the pair: drawn with what was saved
    assert wait_other(page, current + 1) == current
    items = page.locator(f"{PAIR} .span-tools[data-side='A'] .span-list li")
    assert items.count() == 2
    assert "bold words here" in items.nth(0).inner_text()
    assert page.locator(f"{PAIR} .side-A mark.span-mark").count() >= 2
    items.nth(1).get_by_role("button", name="Remove").click()  # the code span
    select_text(page, "B", "first", "item")
    label_button(page, "B", "rubric").click()
    page.locator(f"{PAIR} button.submit").click()
    page.get_by_text("revised").wait_for()
    assert [r[:3] for r in stored_spans(world.engine, current)] == [
        ("A", "bold words** here", "rubric"),
        ("B", "first item", "rubric"),
    ]
    assert [r[:3] for r in stored_spans(world.engine, current, current=False)] == [
        ("A", "x = 1", "error")
    ]


def test_spans_travel_by_side_only(world: World, new_page):
    """Every websocket frame and the page while spans are marked and submitted: no label
    word; the component's data for a pair with saved spans is the same whichever side holds
    the chosen response, but for the texts and the saved spans, which move with their side."""
    page = new_page(LAPTOP)
    record = Recorder().attach(page)
    current = open_pair(page, world.link("blind"))
    select_text(page, "A", "bold", "here")
    label_button(page, "A", "rubric").click()
    select_text(page, "B", "مرحبا", "بكم")
    label_button(page, "B", "error").click()
    record.snapshot(page, "marked")
    answer_all(page)
    page.locator(f"{PAIR} button.submit").click()
    wait_other(page, current)
    page.keyboard.press("Alt+p")
    wait_other(page, current + 1)
    record.snapshot(page, "drawn again")
    assert record.label_leaks() == []
    with write_session(world.engine) as session:
        assignment = session.get(Assignment, current)
        assert assignment is not None
        annotator = assignment.annotator_id
        as_drawn = pair_data(pair_view(session, annotator, current), [])
        assignment.chosen_side = _other(assignment.chosen_side)
        session.flush()
        swapped = pair_data(pair_view(session, annotator, current), [])
        assignment.chosen_side = _other(assignment.chosen_side)
        session.flush()
    assert as_drawn["saved"]["spans"] == {"A": [[13, 30, "rubric"]], "B": [[122, 131, "error"]]}
    assert swapped["saved"]["spans"] == {"A": [[122, 131, "error"]], "B": [[13, 30, "rubric"]]}
    assert [r["body"] for r in swapped["responses"]] == [
        r["body"] for r in reversed(as_drawn["responses"])
    ]
    same = [k for k in as_drawn if k not in ("responses", "saved")]
    assert {k: as_drawn[k] for k in same} == {k: swapped[k] for k in same}
    assert as_drawn["span_labels"] == LABELS


def test_a_span_marked_before_a_reload_is_kept_by_the_tab(world: World, new_page):
    """Leaving a pair by reload before Submit: the span marked lives in the tab with the rest
    of the entries (issue 36.4's outbox), is drawn again on the same pair, and is stored once
    with the Submit that follows."""
    page = new_page(LAPTOP)
    current = open_pair(page, world.link("reload"))
    first, last, stored_slice = CASES["bold"]
    key = LABELS[0]["key"]
    select_text(page, "A", first, last)
    label_button(page, "A", key).click()
    page.locator(f"{PAIR} .span-tools[data-side='A'] .span-said").get_by_text(
        "Marked as"
    ).wait_for()
    page.reload()
    settle(page)
    assert shown(page) == current
    page.locator(f"{PAIR} .side-A mark.span-mark").first.wait_for()
    assert page.locator(f"{PAIR} .span-tools[data-side='A'] .span-marks li").count() == 1
    answer_all(page)
    page.locator(f"{PAIR} button.submit").click()
    wait_other(page, current)
    assert [r[:3] for r in stored_spans(world.engine, current)] == [("A", stored_slice, key)]
