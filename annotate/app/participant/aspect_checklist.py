"""The aspect checklist on the rating page (issue 14, item 1): under the scores, each rubric
aspect of the pair (its text made inert) with a 0/1/2 coverage choice for Response A and for
Response B, on the benchmark judge's scale (`annotate.domain.rating.aspects`).

Blinding: labels and keys name sides only; the marks go to the server by side. Like every field
of the rating page, each mark has a widget key of its own per pair (`aspect_<side>_<index>_p<pair>`,
inside a container `aspect_<side>_<index>` that is the same for every pair); `reset` puts the
pair's saved marks (or none) into them when a new pair is drawn.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from annotate.app.participant.score_widgets import field_key
from annotate.app.safe_text import inert_markdown
from annotate.domain.rating import aspects
from annotate.domain.rating.queue import PairView
from annotate.vocabulary import COVERAGE_POINTS, COVERAGE_WORDS, SIDES

SCALE_HELP = "0 = it does not cover it, 1 = it partly covers it, 2 = it covers it well."
"""The marks' meaning, said under the checklist's title (which already asks the question)."""
HELP = f"How well does each response cover this aspect of what the user expects? {SCALE_HELP}"
TITLE = "How well does each response cover what this user expects?"
COLUMNS = [5, 4, 4]  # the aspect's words, Response A, Response B (one line each at 1366 px)


def mark_key(side: str, index: int) -> str:
    """The mark's container (the same on every pair)."""
    return f"aspect_{side}_{index}"


def mark_field(view: PairView, side: str, index: int) -> str:
    """The mark's widget key on this pair."""
    return field_key(mark_key(side, index), view.assignment_id)


def asked(view: PairView) -> bool:
    return view.scale is not None and view.scale.aspect_checklist


def reset(view: PairView) -> None:
    """The pair's saved marks (or none) in the stable widgets."""
    state = st.session_state
    if not asked(view):
        return
    for side in SIDES:
        saved = view.aspect_marks.get(side, [])
        for index in range(len(view.rubric_aspects)):
            state[mark_field(view, side, index)] = saved[index] if index < len(saved) else None


def marks(view: PairView) -> aspects.AspectMarks | None:
    """The marks on the page, by side in aspect order (None when the study does not ask)."""
    if not asked(view):
        return None
    n = len(view.rubric_aspects)
    return {
        side: [st.session_state.get(mark_field(view, side, i)) for i in range(n)] for side in SIDES
    }


def missing(view: PairView, given: aspects.AspectMarks | None) -> list[str]:
    """The marks still to be given among `given` (the page's, or the component's)."""
    return aspects.missing(len(view.rubric_aspects), given) if asked(view) else []


def draw(view: PairView) -> None:
    """One line per aspect: its words, then the coverage of Response A and of Response B."""
    if asked(view) and view.rubric_aspects:
        draw_marks(view.rubric_aspects, lambda side, index: mark_field(view, side, index))


def draw_marks(rubric: list[dict[str, Any]], key: Callable[[str, int], str]) -> None:
    """The checklist's widgets (the rating page's and the training's practice pairs'): the
    radio of aspect `index` for `side` has the widget key `key(side, index)`."""
    with st.container(key="aspect_checklist"):
        with st.container(key="aspect_heading"):  # its side names are hidden on a phone
            heading = st.columns(COLUMNS, gap="small")
        heading[0].markdown(f"**{TITLE}**", help=HELP)
        for side, column in zip(SIDES, heading[1:], strict=True):
            column.markdown(f"**Response {side}**")
        for index, aspect in enumerate(rubric):
            text = inert_markdown(aspects.aspect_text(aspect))
            columns = st.columns(COLUMNS, vertical_alignment="center", gap="small")
            columns[0].markdown(f"{index + 1}. {text}")
            for side, column in zip(SIDES, columns[1:], strict=True):
                column.container(key=mark_key(side, index)).radio(
                    f"Response {side}, aspect {index + 1}",  # drawn on a phone only (CSS)
                    COVERAGE_POINTS,
                    index=None,  # the value comes from `reset`
                    format_func=_word,
                    horizontal=True,
                    key=key(side, index),
                )


def _word(value: int) -> str:
    return f"{value} · {COVERAGE_WORDS[value]}"
