"""Spans (issue 36.3): an annotator marks stretches of Response A or B with the study's span
labels (its questionnaire's `span_labels`, e.g. "breaks the rubric", "factual error").

A span is `(start, end, label)`: `start` and `end` count Unicode code points of the response's
STORED text (Python's `text[start:end]`, not the browser's UTF-16 units), so the stored slice is
what was marked: from the first selected character to the last, with any Markdown markup that
lies between them inside it (a selection of "bold words here" in `**bold words** here` is
stored as the slice `bold words** here`). The page maps its selection back to these places
(`annotate.app.participant.pair_component.text_tree`).

What the browser sends is untrusted: `problems` refuses a span outside the text, with an empty
range or a label the study does not have, more than `MAX_SPANS` per side, and any span at all
in a study without span labels. Blinding: the page sends spans by side; `save_spans` maps each
side to its response here, on the server, like the scores. A revision keeps what it replaces:
a span no longer sent gets `removed_at` (its row stays), a new one a row of its own. These
functions work in the caller's transaction.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from sqlmodel import Session, col, select

from annotate.db.tables import Assignment, Span, stored_id
from annotate.domain.assignment.blinding import response_on, side_of
from annotate.questionnaire import Questionnaire
from annotate.vocabulary import SIDES

MAX_SPANS = 50  # per response: more is refused, not cut
SpanMark = tuple[int, int, str]  # (start, end, label key)
SideSpans = Mapping[str, Sequence[SpanMark]]
"""side ('A' or 'B') -> the spans marked in that response."""


def problems(questionnaire: Questionnaire, texts: Mapping[str, str], spans: SideSpans) -> list[str]:
    """What is wrong with submitted spans (empty: they can be saved). `texts`: the stored
    text by side."""
    labels = {s.key for s in questionnaire.span_labels}
    if not labels:
        return ["this study has no span labels"] if any(spans.values()) else []
    found: list[str] = []
    for side, marks in spans.items():
        if side not in SIDES:
            found.append(f"spans: {side!r} is not a response")
            continue
        if len(marks) > MAX_SPANS:
            found.append(f"Response {side}: at most {MAX_SPANS} spans, got {len(marks)}")
            continue
        size = len(texts[side])
        for start, end, label in marks:
            if label not in labels:
                found.append(f"Response {side}: {label!r} is not a span label of this study")
            elif not 0 <= start < end <= size:
                found.append(
                    f"Response {side}: the span {start}-{end} is not within the text "
                    f"(0-{size} characters)"
                )
    return found


def _current(session: Session, assignment_id: int) -> list[Span]:
    query = select(Span).where(Span.assignment_id == assignment_id, col(Span.removed_at).is_(None))
    return list(session.exec(query))


def save_spans(session: Session, assignment: Assignment, spans: SideSpans, now: datetime) -> int:
    """Make the assignment's current spans the checked `spans` (by side); return how many
    were added or removed. The same spans again change nothing."""
    wanted: set[tuple[str, int, int, str]] = set()
    for side in SIDES:
        response = str(response_on(side, assignment.chosen_side))
        wanted |= {(response, start, end, label) for start, end, label in spans.get(side, ())}
    current = {
        (s.response, s.start, s.end, s.label): s for s in _current(session, stored_id(assignment))
    }
    for key, row in current.items():
        if key not in wanted:
            row.removed_at = now
            session.add(row)
    for response, start, end, label in sorted(wanted - set(current)):
        session.add(
            Span(
                assignment_id=stored_id(assignment),
                response=response,
                label=label,
                start=start,
                end=end,
                created_at=now,
            )
        )
    return len(set(current) ^ wanted)


def spans_by_side(session: Session, assignment: Assignment) -> dict[str, list[SpanMark]]:
    """The current spans, by side (for the page), in text order."""
    by_side: dict[str, list[SpanMark]] = {s: [] for s in SIDES}
    for row in _current(session, stored_id(assignment)):
        by_side[side_of(row.response, assignment.chosen_side)].append(
            (row.start, row.end, row.label)
        )
    return {side: sorted(marks) for side, marks in by_side.items()}
