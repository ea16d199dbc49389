"""Admin settings of a study (commit 7bce4cd): open pool, pool quota, crowd enrolment.

Revision ID: 0003_admin
Revises: 0002_pools_and_gold
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003_admin"
down_revision: str | None = "0002_pools_and_gold"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Existing studies keep working as before: no open pool, no enrolment (the models' defaults).
FLAGS = ("pool_open", "enrolment_open")


def _flag(name: str) -> sa.Column:
    return sa.Column(name, sa.Boolean(), nullable=False, server_default=sa.false())


def upgrade() -> None:
    with op.batch_alter_table("study") as batch:
        batch.add_column(_flag("pool_open"))
        batch.add_column(sa.Column("pool_quota", sa.Integer(), nullable=True))
        batch.add_column(_flag("enrolment_open"))
    with op.batch_alter_table("study") as batch:
        for name in FLAGS:
            batch.alter_column(name, server_default=None)


def downgrade() -> None:
    with op.batch_alter_table("study") as batch:
        for column in ("enrolment_open", "pool_quota", "pool_open"):
            batch.drop_column(column)
