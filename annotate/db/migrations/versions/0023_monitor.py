"""Enrolment that closes itself when the group-sequential plan says stop (issue 34 item 5).

`study.close_at_stop`: the study's option (off for every existing study); `study.enrolment_closed`:
when and why the monitor closed enrolment ({at, look, n_looks, n_observed, reason}; None: it
never did).

Revision ID: 0023_monitor
Revises: 0019_forced_after_data
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0023_monitor"
down_revision: str | None = "0022_platform"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("study") as batch:
        batch.add_column(
            sa.Column("close_at_stop", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch.add_column(sa.Column("enrolment_closed", sa.JSON(), nullable=True))
    with op.batch_alter_table("study") as batch:
        batch.alter_column("close_at_stop", server_default=None)


def downgrade() -> None:
    with op.batch_alter_table("study") as batch:
        batch.drop_column("enrolment_closed")
        batch.drop_column("close_at_stop")
