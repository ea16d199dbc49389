"""Downstream outputs and comparison studies (issue 25): `downstreamcondition` and
`downstreamoutput` hold the benchmark's Best-of-N and PPO outputs with the LLM judge's scores;
`study.comparison` marks a study built from two conditions (empty for every existing study, which
keeps its tie/divergence verdict); `aspectjudge.unparsed` keeps the judge answers of an eval-shape
import that were not given properly (empty for every judge imported before).

Revision ID: 0017_downstream
Revises: 0016_participants_data
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017_downstream"
down_revision: str | None = "0016_participants_data"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("study") as batch:
        batch.add_column(
            sa.Column("comparison", sa.JSON(), nullable=False, server_default=sa.text("'{}'"))
        )
    with op.batch_alter_table("study") as batch:
        batch.alter_column("comparison", server_default=None)
    with op.batch_alter_table("aspectjudge") as batch:
        batch.add_column(
            sa.Column("unparsed", sa.JSON(), nullable=False, server_default=sa.text("'[]'"))
        )
    with op.batch_alter_table("aspectjudge") as batch:
        batch.alter_column("unparsed", server_default=None)
    op.create_table(
        "downstreamcondition",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("study_id", sa.Integer(), sa.ForeignKey("study.id"), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("model", sa.String(), nullable=False),
        sa.Column("variant", sa.String(), nullable=False),
        sa.Column("k", sa.Integer(), nullable=True),
        sa.Column("source_files", sa.JSON(), nullable=False),
        sa.Column("content_hash", sa.String(), nullable=False),
        sa.Column("n_records", sa.Integer(), nullable=False),
        sa.Column("n_unknown", sa.Integer(), nullable=False),
        sa.Column("n_judged", sa.Integer(), nullable=False),
        sa.Column("n_unparsed", sa.Integer(), nullable=False),
        sa.Column("imported_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("study_id", "name", name="uq_downstreamcondition_study_name"),
    )
    op.create_index("ix_downstreamcondition_study_id", "downstreamcondition", ["study_id"])
    op.create_table(
        "downstreamoutput",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column(
            "condition_id",
            sa.Integer(),
            sa.ForeignKey("downstreamcondition.id"),
            nullable=False,
        ),
        sa.Column("pair_id", sa.Integer(), sa.ForeignKey("pair.id"), nullable=False),
        sa.Column("output", sa.Text(), nullable=False),
        sa.Column("rm_score", sa.Float(), nullable=True),
        sa.Column("judge_scores", sa.JSON(), nullable=True),
        sa.Column("judge_average", sa.Float(), nullable=True),
        sa.Column("judge_status", sa.String(), nullable=True),
        sa.UniqueConstraint("condition_id", "pair_id", name="uq_downstreamoutput_condition_pair"),
    )
    op.create_index("ix_downstreamoutput_condition_id", "downstreamoutput", ["condition_id"])
    op.create_index("ix_downstreamoutput_pair_id", "downstreamoutput", ["pair_id"])


def downgrade() -> None:
    op.drop_index("ix_downstreamoutput_pair_id", table_name="downstreamoutput")
    op.drop_index("ix_downstreamoutput_condition_id", table_name="downstreamoutput")
    op.drop_table("downstreamoutput")
    op.drop_index("ix_downstreamcondition_study_id", table_name="downstreamcondition")
    op.drop_table("downstreamcondition")
    with op.batch_alter_table("aspectjudge") as batch:
        batch.drop_column("unparsed")
    with op.batch_alter_table("study") as batch:
        batch.drop_column("comparison")
