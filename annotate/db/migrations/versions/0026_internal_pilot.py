"""An internal pilot pre-registered in the analysis plan (issue 33 item 4).

`study.internal_pilot`: the study's internal pilot, `{first_stage_pairs, tie_alpha}` (the first
stage's pairs before the sample-size look, and the level each tie question's TOST is read at
after it; `annotate.vocabulary.check_internal_pilot`). None: no internal pilot, which every
existing study has.

Revision ID: 0026_internal_pilot
Revises: 0025_conversation
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0026_internal_pilot"
down_revision: str | None = "0025_conversation"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("study") as batch:
        batch.add_column(sa.Column("internal_pilot", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("study") as batch:
        batch.drop_column("internal_pilot")
