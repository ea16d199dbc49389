"""Saving an annotator's answers on a pair so that nothing is lost: one mechanism for the scores
(`Rating`) and the aspect marks (`AspectMark`).

An answer given for the first time becomes a new row. An answer given again with the same value
changes nothing. An answer changed keeps its earlier value as a revision row (`RatingRevision`,
`AspectMarkRevision`: the value, its revision number, when it was given and when it was
replaced) before the row takes the new value and the next revision number.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from sqlmodel import Session, select

from annotate.db.tables import stored_id

Key = TypeVar("Key", bound=tuple[Hashable, ...])


@dataclass(frozen=True)
class AnswerTable:
    """Where one kind of answer is stored: one row per assignment and `key` (e.g. response
    and dimension), whose `compared` field is the answer; its revision table keeps the
    `kept` fields of a replaced answer, linked to the row by `revision_of`."""

    row: type[Any]
    key: tuple[str, ...]
    compared: str
    revision: type[Any]
    revision_of: str
    kept: tuple[str, ...]


def save_answers(
    session: Session,
    table: AnswerTable,
    assignment_id: int,
    answers: Mapping[Key, dict[str, Any]],
    now: datetime,
) -> tuple[bool, int]:
    """Store `answers` (the fields of each answer, by key) over the assignment's rows in
    `table`; return (any row stored before, how many answers changed). An answer changes when
    its `compared` field differs; its other fields (a score's seconds) are updated with it."""
    rows = session.exec(select(table.row).where(table.row.assignment_id == assignment_id))
    existing = {tuple(getattr(row, name) for name in table.key): row for row in rows}
    changed = 0
    for key, fields in answers.items():
        row = existing.get(key)
        if row is None:
            named = dict(zip(table.key, key, strict=True))
            first = {"created_at": now, "updated_at": now}
            session.add(table.row(assignment_id=assignment_id, **named, **first, **fields))
        elif getattr(row, table.compared) != fields[table.compared]:
            kept = {name: getattr(row, name) for name in table.kept}
            session.add(
                table.revision(
                    **{table.revision_of: stored_id(row)},
                    revision=row.revision,
                    created_at=row.updated_at,
                    replaced_at=now,
                    **kept,
                )
            )
            for name, value in fields.items():
                setattr(row, name, value)
            row.revision += 1
            row.updated_at = now
            session.add(row)
            changed += 1
    return bool(existing), changed
