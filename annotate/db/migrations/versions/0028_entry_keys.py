"""Entries kept through an outage (issue 36 item 4): `entrykey`, the idempotency key of each
send of a pair's entries from the rating component, stored in the write's own transaction
(`annotate.domain.rating.entry_keys`); unique by assignment and key, so a resend of an entry
that was stored but whose answer was lost stores nothing twice. Deleted with its assignment.

Revision ID: 0028_entry_keys
Revises: 0027_spans
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0028_entry_keys"
down_revision: str | None = "0027_spans"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "entrykey",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("assignment_id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("action", sa.String(), nullable=False),
        sa.Column("outcome", sa.String(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["assignment_id"], ["assignment.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("assignment_id", "key", name="uq_entrykey_key"),
    )
    op.create_index(op.f("ix_entrykey_assignment_id"), "entrykey", ["assignment_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_entrykey_assignment_id"), table_name="entrykey")
    op.drop_table("entrykey")
