"""Study designs beyond four scores (issue 14): consent and a short survey, the crowd's
completion URL and screen-out code, and a direct preference with a rationale.

Every option is off for existing studies: no consent text, no survey questions, no completion URL
or screen-out code, no preference asked. A participant's consent and survey answers go to the new
`participation` table (one row per annotator and study); an assignment's preference is stored in
terms of the sides shown (`side_preference`, -2 = A much better .. 0 tie .. +2 = B much better).

Revision ID: 0008_study_designs
Revises: 0007_study_operations
Create Date: 2026-12-04
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008_study_designs"
down_revision: str | None = "0007_study_operations"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _study_columns() -> list[sa.Column[object]]:
    """The new study columns, with the server default that fills existing rows (removed after)."""
    return [
        sa.Column("consent_text", sa.Text(), nullable=False, server_default=sa.text("''")),
        sa.Column("survey_questions", sa.JSON(), nullable=False, server_default=sa.text("'[]'")),
        sa.Column("screenout_code", sa.String(), nullable=True),
        sa.Column("completion_url", sa.String(), nullable=True),
        sa.Column("ask_preference", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("rationale", sa.String(), nullable=False, server_default=sa.text("'off'")),
    ]


def upgrade() -> None:
    columns = _study_columns()
    with op.batch_alter_table("study") as batch:
        for column in columns:
            batch.add_column(column)
    with op.batch_alter_table("study") as batch:
        for column in columns:
            if column.server_default is not None:
                batch.alter_column(column.name, server_default=None)
    with op.batch_alter_table("assignment") as batch:
        batch.add_column(sa.Column("side_preference", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("rationale", sa.Text(), nullable=True))
    op.create_table(
        "participation",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("annotator_id", sa.Integer(), sa.ForeignKey("annotator.id"), nullable=False),
        sa.Column("study_id", sa.Integer(), sa.ForeignKey("study.id"), nullable=False),
        sa.Column("consent", sa.String(), nullable=False),
        sa.Column("consent_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("survey", sa.JSON(), nullable=True),
        sa.Column("survey_at", sa.DateTime(timezone=True), nullable=True),
        sa.UniqueConstraint("annotator_id", "study_id", name="uq_participation_annotator_study"),
    )
    op.create_index("ix_participation_study_id", "participation", ["study_id"])


def downgrade() -> None:
    op.drop_index("ix_participation_study_id", table_name="participation")
    op.drop_table("participation")
    with op.batch_alter_table("assignment") as batch:
        batch.drop_column("rationale")
        batch.drop_column("side_preference")
    with op.batch_alter_table("study") as batch:
        for column in reversed(_study_columns()):
            batch.drop_column(column.name)
