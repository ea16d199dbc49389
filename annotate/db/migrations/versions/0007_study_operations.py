"""Study operations (issue 15): the audit log of admin actions, pairs excluded from the
analysis, and what an admin did with a flagged or skipped pair.

Three new tables, nothing changed in the old ones: `auditentry`, `pairexclusion` and
`flagresolution`.

Revision ID: 0007_study_operations
Revises: 0006_margin_record
Create Date: 2026-12-04
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007_study_operations"
down_revision: str | None = "0006_margin_record"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _when(name: str, nullable: bool = False) -> sa.Column:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    op.create_table(
        "auditentry",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("study_id", sa.Integer(), sa.ForeignKey("study.id"), nullable=True),
        sa.Column("who", sa.String(), nullable=False),
        _when("at"),
        sa.Column("action", sa.String(), nullable=False),
        sa.Column("before", sa.JSON(), nullable=False),
        sa.Column("after", sa.JSON(), nullable=False),
    )
    op.create_index("ix_auditentry_study_id", "auditentry", ["study_id"])
    op.create_table(
        "pairexclusion",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("pair_id", sa.Integer(), sa.ForeignKey("pair.id"), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("by", sa.String(), nullable=False),
        _when("at"),
        _when("reversed_at", nullable=True),
        sa.Column("reversed_by", sa.String(), nullable=True),
    )
    op.create_index("ix_pairexclusion_pair_id", "pairexclusion", ["pair_id"])
    op.create_table(
        "flagresolution",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("assignment_id", sa.Integer(), sa.ForeignKey("assignment.id"), nullable=False),
        sa.Column("action", sa.String(), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("by", sa.String(), nullable=False),
        _when("at"),
        sa.UniqueConstraint("assignment_id", name="uq_flagresolution_assignment"),
    )


def downgrade() -> None:
    op.drop_table("flagresolution")
    op.drop_index("ix_pairexclusion_pair_id", table_name="pairexclusion")
    op.drop_table("pairexclusion")
    op.drop_index("ix_auditentry_study_id", table_name="auditentry")
    op.drop_table("auditentry")
