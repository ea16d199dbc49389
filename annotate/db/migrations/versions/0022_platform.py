"""The crowd platform in the loop (issue 34, point 3).

`study.platform`, `platform_study_id`, `reward` (minor units), `currency`,
`platform_fee_percent` and `bonus_rule`: the study's platform and its money (existing studies:
no platform, GBP, no fee, no bonus). `platformaction`: the ledger of what is sent to the
platform, each action recorded before it is sent (annotate.domain.platforms.ledger).

Revision ID: 0022_platform
Revises: 0019_forced_after_data
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0022_platform"
down_revision: str | None = "0021_signals"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

DEFAULTED = (
    ("currency", sa.String(), "GBP"),
    ("platform_fee_percent", sa.Float(), sa.text("0")),
    ("bonus_rule", sa.String(), ""),
)


def upgrade() -> None:
    with op.batch_alter_table("study") as batch:
        batch.add_column(sa.Column("platform", sa.String(), nullable=True))
        batch.add_column(sa.Column("platform_study_id", sa.String(), nullable=True))
        batch.add_column(sa.Column("reward", sa.Integer(), nullable=True))
        for name, kind, default in DEFAULTED:
            batch.add_column(sa.Column(name, kind, nullable=False, server_default=default))
    with op.batch_alter_table("study") as batch:
        for name, _, _ in DEFAULTED:
            batch.alter_column(name, server_default=None)
    op.create_table(
        "platformaction",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("study_id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("annotator_id", sa.Integer(), nullable=True),
        sa.Column("submission_id", sa.String(), nullable=True),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("amount", sa.Integer(), nullable=False),
        sa.Column("state", sa.String(), nullable=False),
        sa.Column("platform_ref", sa.String(), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("error", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["annotator_id"], ["annotator.id"]),
        sa.ForeignKeyConstraint(["study_id"], ["study.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("study_id", "key", name="uq_platformaction_key"),
    )
    op.create_index(
        op.f("ix_platformaction_study_id"), "platformaction", ["study_id"], unique=False
    )
    op.create_index(
        op.f("ix_platformaction_annotator_id"), "platformaction", ["annotator_id"], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_platformaction_annotator_id"), table_name="platformaction")
    op.drop_index(op.f("ix_platformaction_study_id"), table_name="platformaction")
    op.drop_table("platformaction")
    with op.batch_alter_table("study") as batch:
        for name in ("bonus_rule", "platform_fee_percent", "currency", "reward"):
            batch.drop_column(name)
        batch.drop_column("platform_study_id")
        batch.drop_column("platform")
