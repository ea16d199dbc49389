"""The open pool's order (issue 22.3): `study.pool_order`, 'depth' (partly rated pairs are
filled to k before new ones open) or 'breadth' (the pairs with the fewest slots first).

Studies from before keep 'breadth', the order they were run with; new studies get 'depth'.

One adjudication per pair and round (issue 22.5, 24.10): the partial unique index
`uq_assignment_live_adjudication` on `assignment(pair_id)` where the purpose is 'adjudication'
and the status is not 'released'. A database that already holds two live adjudications of one
pair keeps one before the index is made: an unfinished one is released when a finished or an
older one exists, then of several finished ones the oldest stays.
The adjudicator role needs no column (`annotator.role` is text).

A crowd participant's way to finish (issue 22.4): `study.finish_minimum` (pairs rated before
Finish is offered; None: at the pool quota, as before) and `participation.finished_at`.

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

LIVE = "purpose = 'adjudication' AND status <> 'released'"
_OTHER = (
    "SELECT 1 FROM assignment other WHERE other.pair_id = assignment.pair_id "
    "AND other.id <> assignment.id AND other.purpose = 'adjudication' "
    "AND other.status <> 'released'"
)
RELEASE_OPEN_DUPLICATES = (
    "UPDATE assignment SET status = 'released' WHERE purpose = 'adjudication' "
    f"AND status IN ('pending', 'skipped') AND EXISTS ({_OTHER} "
    "AND (other.status = 'done' OR other.id < assignment.id))"
)
RELEASE_LATER_DONE = (
    "UPDATE assignment SET status = 'released' WHERE purpose = 'adjudication' "
    f"AND status = 'done' AND EXISTS ({_OTHER} AND other.id < assignment.id)"
)


def upgrade() -> None:
    with op.batch_alter_table("study") as batch:
        batch.add_column(
            sa.Column("pool_order", sa.String(), nullable=False, server_default="breadth")
        )
    with op.batch_alter_table("study") as batch:
        batch.alter_column("pool_order", server_default=None)
        batch.add_column(sa.Column("finish_minimum", sa.Integer(), nullable=True))
    with op.batch_alter_table("participation") as batch:
        batch.add_column(sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True))
    for sql in (RELEASE_OPEN_DUPLICATES, RELEASE_LATER_DONE):
        op.execute(sql)
    op.create_index(
        "uq_assignment_live_adjudication",
        "assignment",
        ["pair_id"],
        unique=True,
        sqlite_where=sa.text(LIVE),
        postgresql_where=sa.text(LIVE),
    )


def downgrade() -> None:
    op.drop_index("uq_assignment_live_adjudication", table_name="assignment")
    with op.batch_alter_table("participation") as batch:
        batch.drop_column("finished_at")
    with op.batch_alter_table("study") as batch:
        batch.drop_column("finish_minimum")
        batch.drop_column("pool_order")
