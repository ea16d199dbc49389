"""The open pool's order (issue 22.3): `study.pool_order`, 'depth' (partly rated pairs are
filled to k before new ones open) or 'breadth' (the pairs with the fewest slots first).

Studies from before keep 'breadth', the order they were run with; new studies get 'depth'.

Revision ID: 0014_pool_order_and_roles
Revises: 0013_preference_history
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014_pool_order_and_roles"
down_revision: str | None = "0013_preference_history"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("study") as batch:
        batch.add_column(
            sa.Column("pool_order", sa.String(), nullable=False, server_default="breadth")
        )
    with op.batch_alter_table("study") as batch:
        batch.alter_column("pool_order", server_default=None)


def downgrade() -> None:
    with op.batch_alter_table("study") as batch:
        batch.drop_column("pool_order")
