"""Conversations stored as turns (issue 35.2).

`pair.conversation`: the turns before the compared responses, a JSON list of
`{"role": "user" | "assistant" | "system", "content": str}`. Empty for a single-turn pair, which
every existing pair is (its `question` is the one user turn).

Revision ID: 0025_conversation
Revises: 0024_questionnaire
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0025_conversation"
down_revision: str | None = "0024_questionnaire"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("pair") as batch:
        batch.add_column(sa.Column("conversation", sa.JSON(), nullable=True))
    pair = sa.table("pair", sa.column("conversation", sa.JSON()))
    op.get_bind().execute(pair.update().values(conversation=[]))
    with op.batch_alter_table("pair") as batch:
        batch.alter_column("conversation", existing_type=sa.JSON(), nullable=False)


def downgrade() -> None:
    with op.batch_alter_table("pair") as batch:
        batch.drop_column("conversation")
