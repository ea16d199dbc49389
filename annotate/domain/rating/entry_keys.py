"""Entry keys (issue 36.4): each send of a pair's entries from the rating component carries a
key the browser made for it (a random UUID per submit or skip attempt). The write stores the
key in its own transaction (`EntryKey`, unique by assignment and key); a resend of the same
key, whose first send was stored but whose answer was lost in an outage, is recognised here
and stores nothing again: no second revision, no second count of anything that follows from
the pair's status (progress, quota, completion code, bonus), no signals added twice.

Work in the caller's transaction (`annotate.services.participant.rating`).
"""

from __future__ import annotations

import re

from sqlmodel import Session, col, select

from annotate.db.tables import EntryKey
from annotate.domain.rating.ratings import RatingError

KEY_SHAPE = re.compile(r"[A-Za-z0-9-]{16,64}")  # a UUID (36) or any random token like it
SUBMIT = "submit"
SKIP = "skip"


class BadEntryKey(RatingError):
    """A key the browser could not have made: refused before anything is written."""


def checked_key(key: str) -> str:
    """The key as sent, if it has the shape of one (letters, digits, dashes; 16-64)."""
    if not isinstance(key, str) or KEY_SHAPE.fullmatch(key) is None:
        raise BadEntryKey("this entry's key is not one the page makes; please reload the page")
    return key


def recorded(session: Session, assignment_id: int, key: str) -> EntryKey | None:
    """The earlier write of this key on this assignment (None: a new send)."""
    return session.exec(
        select(EntryKey).where(
            col(EntryKey.assignment_id) == assignment_id, col(EntryKey.key) == key
        )
    ).first()


def record(session: Session, assignment_id: int, key: str, action: str, outcome: str) -> None:
    """Store the key with what its write did, in the same transaction as the write (flushed:
    a racing second row fails here, on the unique constraint, before the commit)."""
    session.add(EntryKey(assignment_id=assignment_id, key=key, action=action, outcome=outcome))
    session.flush()
