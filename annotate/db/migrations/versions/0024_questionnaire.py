"""A study's questionnaire as data (issue 35.1).

`study.questionnaire`: the study's questions, their scales and roles in the verdict, and its span
labels, as `annotate.questionnaire.Questionnaire.stored()` writes them. Every existing study gets
this benchmark's four dimensions (the `prb` template), which is what it was asked.

Revision ID: 0024_questionnaire
Revises: 0023_monitor
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from annotate.questionnaire import DEFAULT_QUESTIONNAIRE

revision: str = "0024_questionnaire"
down_revision: str | None = "0023_monitor"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("study") as batch:
        batch.add_column(sa.Column("questionnaire", sa.JSON(), nullable=True))
    study = sa.table("study", sa.column("questionnaire", sa.JSON()))
    op.get_bind().execute(study.update().values(questionnaire=DEFAULT_QUESTIONNAIRE.stored()))
    with op.batch_alter_table("study") as batch:
        batch.alter_column("questionnaire", existing_type=sa.JSON(), nullable=False)


def downgrade() -> None:
    with op.batch_alter_table("study") as batch:
        batch.drop_column("questionnaire")
