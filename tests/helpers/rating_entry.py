"""Entering a pair on the rating page in Chromium as a person does: by mouse, by touch or by
keyboard alone (the page's own keys), and reading back what the page shows.

Used by the browser tests of the rating page (`test_app_pair_state_browser.py`, the pilot's
end-to-end test). Every step waits on the page's state (a question holding the focus, a box
showing a value), never on time.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from annotate.vocabulary import COVERAGE_WORDS, DIMENSIONS, PREFERENCE_WORDS, SIDES
from tests.helpers.browser_helpers import UI_TIMEOUT_MS, current_assignment, wait_for_focus

ANCHORS = {1: "Very poor", 2: "Poor", 3: "Acceptable", 4: "Good", 5: "Excellent"}
"""The default scale's words, as the score options read ('4 · Good')."""
PREFERENCE = {place: PREFERENCE_WORDS[place - 3] for place in range(1, 6)}
"""The preference's options by their place on the page (1: A much better .. 5: B much better),
the digit that picks them."""
COMMENT_LABEL = "Comment (optional)"
FLAG_LABEL = "Flag this pair: describe the problem (optional)"
SKIP_LABEL = "Why do you skip it?"
SCORES = "{dim}_{side}"
"""The widget key of a score question's container on the rating page..."""
PRACTICE_SCORES = "practice_{dim}_{side}"
"""... and on a practice pair (the other questions' keys are the same)."""


@dataclass(frozen=True)
class PairEntry:
    """What a person gives one pair, by side as the page shows it. Answers left out are not
    touched (a revision changes only what it names); texts are what the box holds afterwards
    (None: left as it is)."""

    scores: Mapping[tuple[str, str], int] = field(default_factory=dict)  # (side, dim) -> score
    marks: Mapping[tuple[str, int], int] = field(default_factory=dict)  # (side, aspect) -> 0-2
    preference: int | None = None  # its place on the page, 1 (A much better) .. 5
    rationale: str | None = None
    comment: str | None = None
    flag: str | None = None


def uniform(
    n_aspects: int,
    *,
    score: int,
    mark: int,
    preference: int,
    rationale: str = "",
    comment: str = "",
    flag: str = "",
) -> PairEntry:
    """One value for every score and every mark."""
    return PairEntry(
        scores={(side, dim): score for side in SIDES for dim in DIMENSIONS},
        marks={(side, i): mark for side in SIDES for i in range(n_aspects)},
        preference=preference,
        rationale=rationale,
        comment=comment,
        flag=flag,
    )


# ---------------------------------------------------------------- what the page shows


@dataclass(frozen=True)
class ShownPair:
    """The pair on the page: its hidden assignment token, its place, and its texts as shown."""

    assignment_id: int
    number: int
    question: str
    response_a: str
    response_b: str
    n_aspects: int


def pair_number(page: Any) -> int:
    """The N of the progress line's "Pair N of M" (drawn by the page in either view)."""
    number = page.evaluate(
        """() => { const m = document.querySelector(".st-key-task_line").innerText
                     .match(/Pair ([0-9]+) of/); return m ? Number(m[1]) : null; }"""
    )
    return int(number)


def shown_pair(page: Any) -> ShownPair:
    return ShownPair(
        assignment_id=current_assignment(page),
        number=pair_number(page),
        question=page.locator(".st-key-question").inner_text(),
        response_a=page.locator(".st-key-response_A").inner_text(),
        response_b=page.locator(".st-key-response_B").inner_text(),
        n_aspects=n_aspects(page),
    )


def n_aspects(page: Any) -> int:
    return page.locator(".st-key-aspect_checklist [data-testid='stRadio']").count() // 2


def filled_in(page: Any) -> dict[str, Any]:
    """What the pair's form shows that is not empty (nothing, on a pair never rated)."""
    return page.evaluate(
        """() => {
            const form = "[data-testid='stForm'] ";
            const shown = {};
            for (const el of document.querySelectorAll(form + "input[type=radio]:checked"))
                shown[el.closest("[class*='st-key-']").className] = el.value;
            const boxes = `${form}textarea, ${form}input[type=text]`;
            for (const el of document.querySelectorAll(boxes))
                if (el.value && !el.closest(".st-key-pair_token, .st-key-pair_signals"))
                    shown[el.getAttribute("aria-label")] = el.value;
            return shown;
        }"""
    )


# ---------------------------------------------------------------- mouse and touch


def enter_by_pointer(
    page: Any, entry: PairEntry, *, touch: bool = False, scores: str = SCORES
) -> None:
    """Click (or tap, on a touch screen) each answer of `entry`, then type its texts.
    `scores`: the score questions' keys (`PRACTICE_SCORES` on a practice pair)."""

    def press(locator: Any) -> None:
        locator.tap() if touch else locator.click()

    for (side, dim), score in _in_page_order(entry.scores):
        question = page.locator(".st-key-" + scores.format(dim=dim, side=side))
        press(question.get_by_text(_score_option(score), exact=True))
    for (side, index), mark in _in_page_order(entry.marks):
        option = f"{mark} · {COVERAGE_WORDS[mark]}"
        press(page.locator(f".st-key-aspect_{side}_{index}").get_by_text(option, exact=True))
    if entry.preference is not None:
        words = PREFERENCE[entry.preference]
        press(page.locator(".st-key-preference_box").get_by_text(words, exact=True))
    for label, text in _texts(page, entry):
        box = page.get_by_label(label, exact=True)
        press(box)
        if box.input_value():
            box.fill("")
        box.press_sequentially(text)  # typed, as a person types (not pasted in one event)


def _score_option(score: int) -> str:
    return f"{score} · {ANCHORS[score]}"


def _in_page_order(values: Mapping[tuple[str, Any], int]) -> list[tuple[tuple[str, Any], int]]:
    """Answers in the order the page asks them (side A's scores, then B's; aspects in order)."""
    order = {dim: n for n, dim in enumerate(DIMENSIONS)}
    return sorted(values.items(), key=lambda item: (item[0][0], order.get(item[0][1], item[0][1])))


def _texts(page: Any, entry: PairEntry) -> list[tuple[str, str]]:
    rationale = page.locator(".st-key-rationale textarea")
    label = rationale.get_attribute("aria-label") if rationale.count() else None
    texts = [(label, entry.rationale)] if label else []
    texts += [(COMMENT_LABEL, entry.comment), (FLAG_LABEL, entry.flag)]
    return [(name, text) for name, text in texts if text is not None and name is not None]


# ---------------------------------------------------------------- keyboard


ACTIVE_IN = "(key) => { const el = document.activeElement; return !!el && !!el.closest(key); }"


def tab_to(page: Any, selector: str, *, what: str, limit: int = 80) -> None:
    """Press Tab until the keyboard focus is inside `selector` (checked after every press)."""
    for _ in range(limit):
        if page.evaluate(ACTIVE_IN, selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"{what}: Tab never reached {selector}")


def enter_by_keyboard(page: Any, entry: PairEntry, *, scores: str = SCORES) -> None:
    """As the page teaches: digits answer the question holding the focus, which then moves on;
    a question not to change is passed with Tab. The rating page puts the focus on the first
    score of a pair it opens (a practice pair does not: Tab reaches it). After the preference
    the focus moves into "Why?", where the rationale is typed; the comment and the flag are
    reached with Tab."""
    if scores == SCORES:
        wait_for_focus(page, "scores_A")
    for (side, dim), score in _in_page_order(entry.scores):
        _answer(page, scores.format(dim=dim, side=side), score)
    for (side, index), mark in sorted(entry.marks.items(), key=lambda i: (i[0][1], i[0][0])):
        _answer(page, f"aspect_{side}_{index}", mark)
    if entry.preference is not None:
        _answer(page, "preference_box", entry.preference)
        page.wait_for_function(ACTIVE_IN, arg=".st-key-rationale", timeout=UI_TIMEOUT_MS)
    for key, text in (("rationale", entry.rationale), ("comment", entry.comment)):
        if text is not None:
            _type_in(page, f".st-key-{key} textarea", text, what=key)
    if entry.flag is not None:
        _type_in(page, ".st-key-flag input", entry.flag, what="flag")


def _answer(page: Any, key: str, digit: int) -> None:
    """Reach the question with widget key `key` (the focus may be on it already, or on an
    earlier one) and press the digit."""
    if not page.evaluate(ACTIVE_IN, f".st-key-{key}"):
        tab_to(page, f".st-key-{key} input[type=radio]", what=key)
    wait_for_focus(page, key)
    page.keyboard.press(str(digit))


def _type_in(page: Any, selector: str, text: str, *, what: str) -> None:
    """Reach the box, replace what it holds (if anything) by `text`, typed key by key."""
    tab_to(page, selector, what=what)
    if page.locator(selector).input_value():
        page.keyboard.press("Control+a")
        page.keyboard.press("Delete")
    page.keyboard.type(text)
