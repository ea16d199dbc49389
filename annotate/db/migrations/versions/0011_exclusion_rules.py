"""Pre-registered exclusion rules (issue 15 item 4, issue 14 item 3): per study, the rules that
exclude annotators from the analysis (gold accuracy, gold failures, straight-lining, seconds per
pair), when they were set, and their earlier values.

Existing studies have no rules (`{}`) that were never set (`rules_set_at` empty).

Revision ID: 0011_exclusion_rules
Revises: 0010_training
Create Date: 2026-12-04
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011_exclusion_rules"
down_revision: str | None = "0010_training"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("study") as batch:
        batch.add_column(
            sa.Column("exclusion_rules", sa.JSON(), nullable=False, server_default=sa.text("'{}'"))
        )
        batch.add_column(sa.Column("rules_set_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(
            sa.Column("rules_history", sa.JSON(), nullable=False, server_default=sa.text("'[]'"))
        )
    with op.batch_alter_table("study") as batch:
        batch.alter_column("exclusion_rules", server_default=None)
        batch.alter_column("rules_history", server_default=None)


def downgrade() -> None:
    with op.batch_alter_table("study") as batch:
        batch.drop_column("rules_history")
        batch.drop_column("rules_set_at")
        batch.drop_column("exclusion_rules")
