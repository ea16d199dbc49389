"""Quality signals per rating and instructed-response checks (issue 34, point 6).

`assignment.focus_losses` and `assignment.pastes`: how often the page lost focus while the
pair was shown and how many pastes went into its rationale, counted in the browser and sent
with the submit (NULL: not sent, as for every existing assignment; the time on the pair stays
`rating.seconds`). `study.instructed_checks`: the study's checks ({text, options, expected,
after}; none for existing studies). `checkanswer`: a participant's answer to one check, and
whether it was the option asked for.

Revision ID: 0021_signals
Revises: 0019_forced_after_data
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0021_signals"
down_revision: str | None = "0020_outcomes_slots"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("assignment") as batch:
        batch.add_column(sa.Column("focus_losses", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("pastes", sa.Integer(), nullable=True))
    with op.batch_alter_table("study") as batch:
        empty = sa.text("'[]'")
        batch.add_column(
            sa.Column("instructed_checks", sa.JSON(), nullable=False, server_default=empty)
        )
    with op.batch_alter_table("study") as batch:
        batch.alter_column("instructed_checks", server_default=None)
    op.create_table(
        "checkanswer",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("study_id", sa.Integer(), nullable=False),
        sa.Column("annotator_id", sa.Integer(), nullable=False),
        sa.Column("check_index", sa.Integer(), nullable=False),
        sa.Column("answer", sa.String(), nullable=False),
        sa.Column("passed", sa.Boolean(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["annotator_id"], ["annotator.id"]),
        sa.ForeignKeyConstraint(["study_id"], ["study.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("study_id", "annotator_id", "check_index", name="uq_checkanswer_check"),
    )
    op.create_index(op.f("ix_checkanswer_study_id"), "checkanswer", ["study_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_checkanswer_study_id"), table_name="checkanswer")
    op.drop_table("checkanswer")
    with op.batch_alter_table("study") as batch:
        batch.drop_column("instructed_checks")
    with op.batch_alter_table("assignment") as batch:
        batch.drop_column("pastes")
        batch.drop_column("focus_losses")
