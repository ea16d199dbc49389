"""Forced stays forced (issue 32 item 3) and the group-sequential plan (issue 33 item 1).

Whether a change of the analysis plan came after data is now recorded with the change
(`after_data` in each entry of `study.margin_history` and `study.rules_history`) and never
recomputed from the ratings, which an erasure can remove. Entries recorded before carry the
`forced` mark the lock wrote at the time: a forced change reads as after data. Entries from
before that mark existed keep no `after_data` (they are still dated against the first rating).

`study.sequential`: the study's group-sequential plan (looks, unit, spending families; None:
none, as every existing study).

Revision ID: 0019_forced_after_data
Revises: 0018_logout
Create Date: 2026-12-05
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0019_forced_after_data"
down_revision: str | None = "0018_logout"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

HISTORIES = ("margin_history", "rules_history")


def upgrade() -> None:
    with op.batch_alter_table("study") as batch:
        batch.add_column(sa.Column("sequential", sa.JSON(), nullable=True))
    connection = op.get_bind()
    study = sa.table("study", sa.column("id"), *(sa.column(h, sa.JSON()) for h in HISTORIES))
    for row in connection.execute(sa.select(study)).mappings().all():
        values = {h: [_marked(e) for e in _entries(row[h])] for h in HISTORIES}
        connection.execute(study.update().where(study.c.id == row["id"]).values(**values))


def _entries(value: Any) -> list[dict[str, Any]]:
    entries = json.loads(value) if isinstance(value, str) else value
    return [dict(e) for e in entries or []]


def _marked(entry: dict[str, Any]) -> dict[str, Any]:
    if "forced" in entry and "after_data" not in entry:
        entry["after_data"] = bool(entry["forced"])
    return entry


def downgrade() -> None:
    with op.batch_alter_table("study") as batch:
        batch.drop_column("sequential")
