"""Logging out: `annotator.session_epoch`, raised at each logout, is part of the session values'
MAC, so every value issued before a logout stops working (0 for every existing account, whose
session values keep working).

Revision ID: 0018_logout
Revises: 0017_downstream
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018_logout"
down_revision: str | None = "0017_downstream"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("annotator") as batch:
        batch.add_column(
            sa.Column("session_epoch", sa.Integer(), nullable=False, server_default=sa.text("0"))
        )
    with op.batch_alter_table("annotator") as batch:
        batch.alter_column("session_epoch", server_default=None)


def downgrade() -> None:
    with op.batch_alter_table("annotator") as batch:
        batch.drop_column("session_epoch")
