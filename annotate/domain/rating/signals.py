"""Quality signals of a rating (issue 34, point 6), counted in the browser and stored with the
pair's submit.

While a pair is shown, the rating page's script (`annotate/app/rate.js`) counts how often the
page lost focus (the tab hidden or the window left: `visibilitychange` and `blur`, one loss per
time away) and how many times something was pasted into the rationale (the count only; the
pasted text is never read). It writes them into a hidden field of the pair's form as
`<assignment id>:<focus losses>:<pastes>`, so they travel with the submit of that pair and no
other: `read_signals` accepts them only for the pair being saved. The time on the pair is the
rating's own `seconds` (display to submit), not repeated here.

A pair submitted again (a revision, after going back to it) adds the counts of that showing:
the assignment holds the sums over every showing whose submit was saved (a refused submit saves
nothing; its counts go on with the next try, since the browser keeps counting).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from annotate.db.tables import Assignment

MAX_COUNT = 10_000
"""Counts above this are taken as this (a page open for days)."""
_FIELD = re.compile(r"^([0-9]{1,12}):([0-9]{1,9}):([0-9]{1,9})$")


@dataclass(frozen=True)
class Signals:
    """What the browser counted while one pair was shown."""

    focus_losses: int
    pastes: int


def read_signals(text: str | None, assignment_id: int) -> Signals | None:
    """The counts the hidden field carries for `assignment_id`; None when it carries none or
    another pair's (a page that had not reset its counts yet), or anything malformed."""
    found = _FIELD.match((text or "").strip())
    if found is None or int(found.group(1)) != assignment_id:
        return None
    return Signals(min(int(found.group(2)), MAX_COUNT), min(int(found.group(3)), MAX_COUNT))


def add_signals(assignment: Assignment, signals: Signals | None) -> None:
    """Add one showing's counts to the assignment's (nothing when the browser sent none)."""
    if signals is None:
        return
    assignment.focus_losses = min((assignment.focus_losses or 0) + signals.focus_losses, MAX_COUNT)
    assignment.pastes = min((assignment.pastes or 0) + signals.pastes, MAX_COUNT)
