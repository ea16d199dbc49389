"""The equivalence margin's record: its unit (scale points or standard deviations), when it was
set, and its earlier values, so the report can show a margin changed after data arrived
(pre-registration, issue 12).

Existing studies keep their margin in points; it counts as set when the study was created (what
happened to it since is not known).

Revision ID: 0006_margin_record
Revises: 0005_reward_models
Create Date: 2026-12-04
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006_margin_record"
down_revision: str | None = "0005_reward_models"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("study") as batch:
        batch.add_column(
            sa.Column("margin_unit", sa.String(), nullable=False, server_default="points")
        )
        batch.add_column(sa.Column("margin_set_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(
            sa.Column("margin_history", sa.JSON(), nullable=False, server_default=sa.text("'[]'"))
        )
    with op.batch_alter_table("study") as batch:
        batch.alter_column("margin_unit", server_default=None)
        batch.alter_column("margin_history", server_default=None)
    study = sa.table("study", sa.column("margin_set_at"), sa.column("created_at"))
    op.get_bind().execute(study.update().values(margin_set_at=study.c.created_at))


def downgrade() -> None:
    with op.batch_alter_table("study") as batch:
        batch.drop_column("margin_history")
        batch.drop_column("margin_set_at")
        batch.drop_column("margin_unit")
