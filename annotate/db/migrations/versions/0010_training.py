"""Training before real work (issue 14, item 3): practice pairs with expected answers and
explanations, a comprehension check with a set number of attempts, and each annotator's
training state in a study.

Off for existing studies: no practice pairs, no comprehension questions (2 attempts, unused).
The new `training` table holds one row per annotator and study, made at their first answer.

Revision ID: 0010_training
Revises: 0009_aspect_checklist
Create Date: 2026-12-04
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010_training"
down_revision: str | None = "0009_aspect_checklist"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _study_columns() -> list[sa.Column[object]]:
    """The new study columns, with the server default that fills existing rows (removed after)."""
    return [
        sa.Column("practice_pairs", sa.JSON(), nullable=False, server_default=sa.text("'[]'")),
        sa.Column(
            "comprehension_questions", sa.JSON(), nullable=False, server_default=sa.text("'[]'")
        ),
        sa.Column(
            "comprehension_attempts", sa.Integer(), nullable=False, server_default=sa.text("2")
        ),
    ]


def upgrade() -> None:
    columns = _study_columns()
    with op.batch_alter_table("study") as batch:
        for column in columns:
            batch.add_column(column)
    with op.batch_alter_table("study") as batch:
        for column in columns:
            batch.alter_column(column.name, server_default=None)
    op.create_table(
        "training",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("annotator_id", sa.Integer(), sa.ForeignKey("annotator.id"), nullable=False),
        sa.Column("study_id", sa.Integer(), sa.ForeignKey("study.id"), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("practice", sa.JSON(), nullable=False),
        sa.Column("attempts", sa.JSON(), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("annotator_id", "study_id", name="uq_training_annotator_study"),
    )
    op.create_index("ix_training_study_id", "training", ["study_id"])


def downgrade() -> None:
    op.drop_index("ix_training_study_id", table_name="training")
    op.drop_table("training")
    with op.batch_alter_table("study") as batch:
        for column in reversed(_study_columns()):
            batch.drop_column(column.name)
