"""The direct preference's earlier answers (issue 14): `assignment.preference_history`, a JSON
list of {side_preference, rationale, replaced_at}, oldest first, kept when an annotator revises
the preference of a pair they already submitted (scores keep theirs in `ratingrevision`).

Existing assignments get an empty history.

Revision ID: 0013_preference_history
Revises: 0012_adjudication
Create Date: 2026-12-04
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013_preference_history"
down_revision: str | None = "0012_adjudication"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("assignment") as batch:
        batch.add_column(
            sa.Column(
                "preference_history", sa.JSON(), nullable=False, server_default=sa.text("'[]'")
            )
        )
    with op.batch_alter_table("assignment") as batch:
        batch.alter_column("preference_history", server_default=None)


def downgrade() -> None:
    with op.batch_alter_table("assignment") as batch:
        batch.drop_column("preference_history")
