"""Adjudication (issue 15.3): a study's disagreement threshold and each assignment's purpose.

`study.adjudication_threshold` (None: off) sends a pair to the adjudication queue when the
spread of its annotators' chosen - rejected rubric-alignment differences reaches it;
`assignment.purpose` says whether an assignment is an ordinary rating ('rating', every existing
row) or an adjudication of a disputed pair ('adjudication').

Revision ID: 0012_adjudication
Revises: 0011_exclusion_rules
Create Date: 2026-12-04
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012_adjudication"
down_revision: str | None = "0011_exclusion_rules"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("study") as batch:
        batch.add_column(sa.Column("adjudication_threshold", sa.Float(), nullable=True))
    with op.batch_alter_table("assignment") as batch:
        batch.add_column(
            sa.Column("purpose", sa.String(), nullable=False, server_default=sa.text("'rating'"))
        )
    with op.batch_alter_table("assignment") as batch:
        batch.alter_column("purpose", server_default=None)


def downgrade() -> None:
    with op.batch_alter_table("assignment") as batch:
        batch.drop_column("purpose")
    with op.batch_alter_table("study") as batch:
        batch.drop_column("adjudication_threshold")
