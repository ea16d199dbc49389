"""Saving an annotator's answers on a pair so that nothing is lost: one mechanism for the scores
(`Rating`) and the aspect marks (`AspectMark`).

An answer given for the first time becomes a new row. An answer given again with the same value
changes nothing. An answer changed keeps its earlier value as a revision row (`RatingRevision`,
`AspectMarkRevision`: the value, its revision number, when it was given and when it was
replaced) before the row takes the new value and the next revision number.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from datetime import datetime
from typing import Any, Protocol, TypeVar

from sqlmodel import Session, SQLModel


class Revisable(Protocol):
    """A stored answer that keeps its history: its revision number and when it was last set."""

    revision: int
    updated_at: datetime


Key = TypeVar("Key", bound=Hashable)
Row = TypeVar("Row", bound=Revisable)


def save_answers(
    session: Session,
    existing: Mapping[Key, Row],
    answers: Mapping[Key, dict[str, Any]],
    compared: str,
    new_row: Callable[[Key, dict[str, Any]], SQLModel],
    earlier: Callable[[Row], SQLModel],
    now: datetime,
) -> int:
    """Store `answers` (the fields of each answer, by key) over the `existing` rows; return how
    many changed. An answer changes when its `compared` field differs; its other fields (a
    score's seconds) are updated with it. `new_row` makes the row of a first answer, `earlier`
    the revision row that keeps a changed row's old value."""
    changed = 0
    for key, fields in answers.items():
        row = existing.get(key)
        if row is None:
            session.add(new_row(key, fields))
        elif getattr(row, compared) != fields[compared]:
            session.add(earlier(row))
            for name, value in fields.items():
                setattr(row, name, value)
            row.revision += 1
            row.updated_at = now
            session.add(row)
            changed += 1
    return changed
