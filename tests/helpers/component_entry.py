"""Entering a pair in the pair component (issue 36, `PRB_RATING_VIEW=component`) as a person
does, by mouse, touch or keyboard alone, and reading back what it shows and what was stored.

The component's counterpart of `rating_entry` (the Streamlit view's): the same `PairEntry`,
the same keys the page teaches. The component is drawn in a shadow root: Playwright's CSS
locators reach into it; the keyboard focus is followed through it (`FOCUSED`). Every step waits
on the page's state, never on time.
"""

from __future__ import annotations

from typing import Any

from sqlmodel import select

from annotate.db import read_session
from annotate.db.tables import AspectMark, Assignment, Rating
from annotate.vocabulary import COVERAGE_WORDS, PREFERENCE_POINTS
from tests.helpers.browser_helpers import COMPONENT_PAIR, UI_TIMEOUT_MS, settle
from tests.helpers.rating_entry import PREFERENCE, PairEntry, ShownPair, pair_number

PAIR = ".prb-pair"
FOCUSED = """() => { let a = document.activeElement;
    while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
    return a; }"""
FOCUS_IN = "(selector) => { const a = (" + FOCUSED + ")(); return !!a && !!a.closest(selector); }"


def shown(page: Any) -> int:
    """The assignment the component shows (its pair token)."""
    page.locator(COMPONENT_PAIR).wait_for()
    return int(page.locator(COMPONENT_PAIR).get_attribute("data-pair"))


def open_pair(page: Any, url: str) -> int:
    """Open `url` (a participant's link) and wait for the component's pair; that pair."""
    page.goto(url)
    settle(page)
    return shown(page)


def shown_pair(page: Any) -> ShownPair:
    """The pair the component shows, its place and its texts (`rating_entry.shown_pair` of the
    Streamlit view)."""
    return ShownPair(
        assignment_id=shown(page),
        number=pair_number(page),
        question=page.locator(f"{PAIR} .context .question").inner_text(),
        response_a=page.locator(f"{PAIR} .side-A .response").inner_text(),
        response_b=page.locator(f"{PAIR} .side-B .response").inner_text(),
        n_aspects=n_marks(page),
    )


def wait_shows(page: Any, assignment_id: int) -> None:
    """Wait until the component shows `assignment_id` and the app is idle."""
    page.locator(f"{PAIR}[data-pair='{assignment_id}']").wait_for()
    settle(page)


def wait_other(page: Any, old: int) -> int:
    """Wait until the component shows another pair than `old`; that pair."""
    page.locator(f"{PAIR}[data-pair]:not([data-pair='{old}'])").wait_for()
    settle(page)
    return shown(page)


def score_group(page: Any, side: str, key: str) -> Any:
    return page.locator(f"{PAIR} fieldset.q[data-side='{side}'][data-key='{key}']")


def mark_group(page: Any, side: str, index: int) -> Any:
    return page.locator(f"{PAIR} fieldset.aspect[data-mark-side='{side}'][data-index='{index}']")


def n_marks(page: Any) -> int:
    """How many rubric aspects the component's checklist asks about."""
    return page.locator(f"{PAIR} fieldset.aspect").count() // 2


def focus_in(page: Any, selector: str) -> bool:
    return bool(page.evaluate(FOCUS_IN, selector))


def wait_focus_in(page: Any, selector: str) -> None:
    page.wait_for_function(FOCUS_IN, arg=selector, timeout=UI_TIMEOUT_MS)


def filled_in(page: Any) -> dict[str, str]:
    """What the component shows that is not empty: checked radios by name, boxes by id."""
    found = {}
    for box in page.locator(f"{PAIR} input[type=radio]:checked").all():
        found[box.get_attribute("name")] = box.get_attribute("value")
    for box in page.locator(f"{PAIR} textarea, {PAIR} input[type=text]").all():
        if box.input_value():
            found[box.get_attribute("id")] = box.input_value()
    return found


# ---------------------------------------------------------------- mouse and touch


def enter_by_pointer(page: Any, entry: PairEntry, *, touch: bool = False) -> None:
    """Click (or tap) each answer's words, then type the texts into their boxes."""

    def press(locator: Any) -> None:
        locator.tap() if touch else locator.click()

    for (side, key), value in entry.scores.items():
        press(score_group(page, side, key).locator(f"label:has(input[value='{value}'])"))
    for (side, index), mark in entry.marks.items():
        words = f"{mark}\u00a0· {COVERAGE_WORDS[mark]}"
        press(mark_group(page, side, index).get_by_text(words, exact=True))
    if entry.preference is not None:
        words = PREFERENCE[entry.preference]
        press(page.locator(f"{PAIR} fieldset.pref").get_by_text(words, exact=True))
    for selector, text in _texts(entry):
        box = page.locator(f"{PAIR} {selector}")
        press(box)
        box.fill("")
        box.press_sequentially(text)  # typed, as a person types


def _texts(entry: PairEntry) -> list[tuple[str, str]]:
    texts = [("#prb-rationale", entry.rationale), ("#prb-comment", entry.comment)]
    texts.append(("#prb-flag", entry.flag))
    return [(selector, text) for selector, text in texts if text is not None]


# ---------------------------------------------------------------- keyboard


def enter_by_keyboard(page: Any, entry: PairEntry) -> None:
    """As the page teaches: the component opens with the focus on the first question; a digit
    answers the question holding the focus, which then moves to the next; a question the entry
    does not answer is passed with Tab. The texts are reached with Tab and typed."""
    wait_focus_in(page, "fieldset.q")
    for group in page.locator(f"{PAIR} fieldset.q").all():
        digit = _digit(entry, group)
        if digit is None:
            continue
        selector = _selector(group)
        if not focus_in(page, selector):
            tab_to(page, selector)
        page.keyboard.press(str(digit))
    for selector, text in _texts(entry):
        tab_to(page, selector)
        page.keyboard.press("Control+a")
        page.keyboard.press("Delete")
        page.keyboard.type(text)


def _digit(entry: PairEntry, group: Any) -> int | None:
    """The key that gives `group` its answer in `entry` (None: not answered)."""
    side, key = group.get_attribute("data-side"), group.get_attribute("data-key")
    if side is not None:
        return entry.scores.get((side, key))
    if key == "preference":
        return entry.preference
    mark_side, index = group.get_attribute("data-mark-side"), group.get_attribute("data-index")
    return entry.marks.get((mark_side, int(index)))


def _selector(group: Any) -> str:
    """A CSS selector of one question's fieldset (inside the component)."""
    names = ("data-side", "data-key", "data-mark-side", "data-index")
    attrs = {name: group.get_attribute(name) for name in names}
    return "fieldset.q" + "".join(f"[{k}='{v}']" for k, v in attrs.items() if v is not None)


def tab_to(page: Any, selector: str, *, limit: int = 80) -> None:
    """Press Tab until the keyboard focus is inside `selector` (checked after every press)."""
    for _ in range(limit):
        if focus_in(page, selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {selector}")


# ---------------------------------------------------------------- what was stored


def stored(engine: Any, assignment_id: int) -> dict[str, Any]:
    """The pair's rows by what the page showed: scores and marks by side, the preference by its
    place on the page (1-5), the texts and the status."""
    with read_session(engine) as session:
        done = session.get(Assignment, assignment_id)
        assert done is not None
        ratings = session.exec(select(Rating).where(Rating.assignment_id == assignment_id)).all()
        marks = session.exec(
            select(AspectMark).where(AspectMark.assignment_id == assignment_id)
        ).all()
    side_of = {"chosen": done.chosen_side, "rejected": "B" if done.chosen_side == "A" else "A"}
    preference = done.side_preference
    return {
        "status": done.status,
        "scores": {(side_of[r.response], r.dimension): r.score for r in ratings},
        "marks": {(side_of[m.response], m.aspect_index): m.coverage for m in marks},
        "preference": None if preference is None else PREFERENCE_POINTS.index(preference) + 1,
        "rationale": done.rationale or "",
        "comment": done.comment or "",
        "flag": done.flag_reason or "",
        "skip": done.skip_reason or "",
    }


NOTHING = {
    "status": "pending",
    "scores": {},
    "marks": {},
    "preference": None,
    "rationale": "",
    "comment": "",
    "flag": "",
    "skip": "",
}
"""A pair on which nothing was stored."""


def as_stored(entry: PairEntry) -> dict[str, Any]:
    """What a saved `entry` is in the database (by `stored`)."""
    return {
        "status": "done",
        "scores": dict(entry.scores),
        "marks": dict(entry.marks),
        "preference": entry.preference,
        "rationale": entry.rationale or "",
        "comment": entry.comment or "",
        "flag": entry.flag or "",
        "skip": "",
    }
