"""The rating page's pair drawn by our own component (issue 36;
`annotate.app.participant.pair_component`), behind the server option
$PRB_RATING_VIEW=component (`annotate.config.rating_view`).

The page gives the blinded pair, the context's sections and the two ways a pair is left (save
what was entered, skip with a reason); this module turns the component's one event into them.
What the browser sends is untrusted: an event is taken only for the pair it was drawn for (a
double click or a page still showing an earlier pair sends the old pair's token: ignored, as the
Streamlit view's hidden pair token does), and only the study's questions, by side, with whole
numbers are read from it; the save path checks the rest as for any submit.

The next pair is held (issue 36.2, `draw_held`): the pair a confirmed submit of this one leads
to (`held_id`), its data given to the component ahead, so it is shown the moment the server
names it the current pair, without drawing it then.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from annotate.app.participant import pair_component
from annotate.domain.rating.aspects import AspectMarks
from annotate.domain.rating.queue import PairView, QueueEntry, next_open_after
from annotate.vocabulary import PREFERENCE_POINTS, SIDES

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


def supported(view: PairView) -> bool:
    """Can the component draw this pair's study? Not yet the aspect checklist (drawn by the
    Streamlit view meanwhile)."""
    scale = view.scale
    return scale is not None and not scale.aspect_checklist


def draw(
    view: PairView,
    sections: Sequence[tuple[str, str]],
    *,
    error: str,
    attempt: int,
    on_submit: Callable[[Entered], None],
    on_skip: Callable[[str], None],
) -> None:
    """Draw the pair with the component; a Submit or Skip from it calls `on_submit` or
    `on_skip` (in the callback, before the run that follows). `error`: why this pair's last
    submit was not saved (`attempt` numbers it, so the same message twice is new data)."""
    data = pair_component.pair_data(view, sections, error=error)
    data["attempt"] = attempt

    def on_event() -> None:
        event = pair_component.event_value()
        if not isinstance(event, Mapping) or event.get("pair") != str(view.assignment_id):
            return  # not this pair's (sent by a page still showing another)
        if event.get("action") == "skip":
            on_skip(_text(event.get("reason")))
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


def entered(event: Mapping[str, Any], view: PairView) -> Entered:
    """The entries of a Submit event: the study's questions by side (a whole number or None),
    the preference (one of its points, when asked), the comment, the flag, the rationale and
    the signals field, as text."""
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
        signals=_text(event.get("signals")),
    )


def _whole(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _text(value: object) -> str:
    return value[:MAX_TEXT] if isinstance(value, str) else ""
