"""Spans marked in a response (issue 36 item 3).

New table `span`: one row per stretch of a response an annotator marked with one of the study's
span labels (`start`, `end`: code points of the stored text), by response; a span removed by a
revision keeps its row with `removed_at` set. Existing studies have no span labels, so no rows.

Revision ID: 0027_spans
Revises: 0026_internal_pilot
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0027_spans"
down_revision: str | None = "0026_internal_pilot"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "span",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("assignment_id", sa.Integer(), sa.ForeignKey("assignment.id"), nullable=False),
        sa.Column("response", sa.String(), nullable=False),
        sa.Column("label", sa.String(), nullable=False),
        sa.Column("start", sa.Integer(), nullable=False),
        sa.Column("end", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("removed_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_span_assignment_id", "span", ["assignment_id"])


def downgrade() -> None:
    op.drop_index("ix_span_assignment_id", table_name="span")
    op.drop_table("span")
