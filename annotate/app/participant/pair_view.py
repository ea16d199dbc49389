"""The rating page's pair drawn by our own component (issue 36;
`annotate.app.participant.pair_component`), the default view ($PRB_RATING_VIEW=component,
`annotate.config.rating_view`; "streamlit" is the fallback).

The page gives the blinded pair, the context's sections and the two ways a pair is left (save
what was entered, skip with a reason); this module turns the component's one event into them.
What the browser sends is untrusted: an event is taken only for the pair it was drawn for (a
double click or a page still showing an earlier pair sends the old pair's token: ignored, as the
Streamlit view's hidden pair token does), and only the study's questions, by side, with whole
numbers are read from it, and the spans by side as (start, end, label); the save path checks
the rest as for any submit (`annotate.domain.rating.spans.problems` the spans).

Entries kept through an outage (issue 36.4, the script's outbox: `assets/outbox.js`): each
event carries the key the browser made for that entry, passed to the save
(`annotate.domain.rating.entry_keys`); the data tell the script whether the last refusal was
an outage (`outage`: it sends again by itself) and which entry the server last stored
(`confirmed`: the script forgets it).

The next pair is held (issue 36.2, `draw_held`): the pair a confirmed submit of this one leads
to (`held_id`), its data given to the component ahead, so it is shown the moment the server
names it the current pair, without drawing it then.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from annotate.app.participant import aspect_checklist, pair_component
from annotate.domain.rating.aspects import AspectMarks
from annotate.domain.rating.queue import PairView, QueueEntry, next_open_after
from annotate.domain.rating.spans import MAX_SPANS, SideSpans, SpanMark
from annotate.vocabulary import PREFERENCE_POINTS, SIDES

MAX_KEY = 100  # characters kept of an entry key (the save refuses any but 16-64)
MAX_TEXT = 20_000  # characters kept of a text sent by the browser (the save path checks less)


@dataclass(frozen=True)
class Entered:
    """What the annotator entered on one pair, as the save path takes it."""

    scores: dict[str, dict[str, int | None]]
    comment: str
    flag_reason: str
    side_preference: int | None = None
    rationale: str | None = None
    aspect_marks: AspectMarks | None = field(default=None)
    signals: str = ""
    spans: SideSpans | None = None  # None: not sent (the Streamlit view, a study without labels)
    entry_key: str | None = None


def supported(view: PairView) -> bool:
    """Can the component draw this pair's study? Every study's (its questions, the aspect
    checklist, the direct preference); only a pair without its study's scale is not."""
    return view.scale is not None


def draw(
    view: PairView,
    sections: Sequence[tuple[str, str]],
    *,
    error: str,
    attempt: int,
    on_submit: Callable[[Entered], None],
    on_skip: Callable[[str, str | None], None],
    outage: bool = False,
    confirmed: Mapping[str, str] | None = None,
) -> None:
    """Draw the pair with the component; a Submit or Skip from it calls `on_submit` or
    `on_skip(reason, entry key)` (in the callback, before the run that follows). `error`: why
    this pair's last submit was not saved (`attempt` numbers it, so the same message twice is
    new data); `outage`: that was because the database did not answer; `confirmed`: the pair
    and entry key of the last write stored (the module's docstring)."""
    data = pair_component.pair_data(view, sections, error=error)
    data["attempt"] = attempt
    data["outage"] = outage
    data["confirmed"] = dict(confirmed) if confirmed else None

    def on_event() -> None:
        event = pair_component.event_value()
        if not isinstance(event, Mapping) or event.get("pair") != str(view.assignment_id):
            return  # not this pair's (sent by a page still showing another)
        if event.get("action") == "skip":
            on_skip(_text(event.get("reason")), _key(event))
        elif event.get("action") == "submit":
            on_submit(entered(event, view))

    pair_component.draw_pair(data, on_event)


def held_id(
    entries: Sequence[QueueEntry], view: PairView, hold: Callable[[], int | None]
) -> int | None:
    """The pair held behind `view`: where a confirmed submit or skip of it goes (the next open
    pair of the queue after it, else the first: `queue.next_open_after`), else, while it is
    still to do, the one `hold` reserves (`work.hold_next`: the open pool's next)."""
    done = [
        e._replace(status="done") if e.assignment_id == view.assignment_id else e for e in entries
    ]
    after = next_open_after(done, view.assignment_id)
    if after is not None:
        return after.assignment_id
    return hold() if view.status == "pending" else None


def draw_held(held: PairView | None, sections: Sequence[tuple[str, str]]) -> None:
    """Give the component the held pair (None: none), built as the pair drawn is (blinded)."""
    pair_component.draw_held(pair_component.pair_data(held, sections) if held else None)


PRACTICE_SUBMIT = "Submit and see the feedback"


def draw_practice(
    view: PairView,
    sections: Sequence[tuple[str, str]],
    *,
    token: str,
    error: str,
    attempt: int,
    on_submit: Callable[[Entered], None],
) -> None:
    """A training's practice pair drawn by the same component: the same questions, checklist
    and preference, no comment, flag or skip; Submit calls `on_submit` with the entries (only
    for the practice pair drawn: `token`, which names it)."""
    data = pair_component.pair_data(view, sections, error=error)
    data.update(pair=token, attempt=attempt, can_skip=False, notes=False, submit=PRACTICE_SUBMIT)

    def on_event() -> None:
        event = pair_component.event_value(pair_component.PRACTICE_KEY)
        if not isinstance(event, Mapping) or event.get("pair") != token:
            return  # not this practice pair's
        if event.get("action") == "submit":
            on_submit(entered(event, view))

    pair_component.draw_pair(data, on_event, key=pair_component.PRACTICE_KEY)


def entered(event: Mapping[str, Any], view: PairView) -> Entered:
    """The entries of a Submit event: the study's questions by side (a whole number or None),
    the preference (one of its points, when asked), the aspect marks (by side, one whole
    number or None per aspect of the pair, when asked), the comment, the flag, the rationale
    and the signals field, as text."""
    assert view.scale is not None
    keys = view.scale.questionnaire.keys
    sent = event.get("scores")
    sent = sent if isinstance(sent, Mapping) else {}
    scores: dict[str, dict[str, int | None]] = {}
    for side in SIDES:
        given = sent.get(side)
        given = given if isinstance(given, Mapping) else {}
        scores[side] = {key: _whole(given.get(key)) for key in keys}
    asked = view.scale.ask_preference
    preference = event.get("preference")
    return Entered(
        scores=scores,
        comment=_text(event.get("comment")).strip(),
        flag_reason=_text(event.get("flag")).strip(),
        side_preference=_whole(preference) if asked and preference in PREFERENCE_POINTS else None,
        rationale=_text(event.get("rationale")).strip() if asked else None,
        aspect_marks=_marks(event, view),
        signals=_text(event.get("signals")),
        spans=_spans(event.get("spans")) if view.scale.questionnaire.span_labels else None,
        entry_key=_key(event),
    )


def _marks(event: Mapping[str, Any], view: PairView) -> AspectMarks | None:
    """The aspect marks sent, by side in the pair's aspect order (as many as it has aspects;
    anything but a whole number is None: missing), or None when the study does not ask."""
    if not aspect_checklist.asked(view):
        return None
    sent = event.get("marks")
    sent = sent if isinstance(sent, Mapping) else {}
    n = len(view.rubric_aspects)
    marks: dict[str, list[int | None]] = {}
    for side in SIDES:
        given = sent.get(side)
        given = given if isinstance(given, list) else []
        marks[side] = [_whole(given[i]) if i < len(given) else None for i in range(n)]
    return marks


def _spans(sent: object) -> SideSpans:
    """The spans of a Submit event by side, as `(start, end, label)`; a malformed one becomes
    a span the save path refuses (-1, -1) rather than being dropped unseen; a list longer than
    `MAX_SPANS` is read one item past it, which the save path refuses."""
    by_side = sent if isinstance(sent, Mapping) else {}
    spans: dict[str, list[SpanMark]] = {}
    for side in SIDES:
        given = by_side.get(side)
        items = given[: MAX_SPANS + 1] if isinstance(given, list) else []
        spans[side] = [_span(item) for item in items]
    return spans


def _span(item: object) -> SpanMark:
    if isinstance(item, list) and len(item) == 3:
        start, end, label = _whole(item[0]), _whole(item[1]), item[2]
        if start is not None and end is not None and isinstance(label, str):
            return (start, end, label[:100])
    return (-1, -1, "")


def _key(event: Mapping[str, Any]) -> str | None:
    """The entry's key as sent (checked by the save); None for an event without one."""
    key = event.get("key")
    return key[:MAX_KEY] if isinstance(key, str) and key else None


def _whole(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _text(value: object) -> str:
    return value[:MAX_TEXT] if isinstance(value, str) else ""
