"""Reward models: a model's imported results on a study's pairs (issue 13).

Two new tables, nothing changed in the old ones: `rewardmodel` (one per study and model name)
and `modelprediction` (one per model and pair).

Revision ID: 0005_reward_models
Revises: 0004_enrolment_secrets
Create Date: 2026-12-04
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005_reward_models"
down_revision: str | None = "0004_enrolment_secrets"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _count(name: str) -> sa.Column:
    return sa.Column(name, sa.Integer(), nullable=False)


def upgrade() -> None:
    op.create_table(
        "rewardmodel",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("study_id", sa.Integer(), sa.ForeignKey("study.id"), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("source_files", sa.JSON(), nullable=False),
        sa.Column("content_hash", sa.String(), nullable=False),
        _count("n_records"),
        _count("n_unknown"),
        _count("n_missing_score"),
        _count("n_non_finite"),
        _count("n_parse_failed"),
        sa.Column("imported_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("study_id", "name", name="uq_rewardmodel_study_name"),
    )
    op.create_index("ix_rewardmodel_study_id", "rewardmodel", ["study_id"])
    op.create_table(
        "modelprediction",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("model_id", sa.Integer(), sa.ForeignKey("rewardmodel.id"), nullable=False),
        sa.Column("pair_id", sa.Integer(), sa.ForeignKey("pair.id"), nullable=False),
        sa.Column("score_chosen", sa.Float(), nullable=True),
        sa.Column("score_rejected", sa.Float(), nullable=True),
        sa.Column("prediction", sa.String(), nullable=True),
        sa.Column("pos_in_a", sa.Boolean(), nullable=True),
        sa.Column("correct", sa.Boolean(), nullable=True),
        sa.Column("parse_failed", sa.Boolean(), nullable=False),
        sa.Column("raw_output", sa.Text(), nullable=True),
        sa.Column("status", sa.String(), nullable=False),
        sa.UniqueConstraint("model_id", "pair_id", name="uq_modelprediction_model_pair"),
    )
    op.create_index("ix_modelprediction_model_id", "modelprediction", ["model_id"])
    op.create_index("ix_modelprediction_pair_id", "modelprediction", ["pair_id"])


def downgrade() -> None:
    op.drop_index("ix_modelprediction_pair_id", table_name="modelprediction")
    op.drop_index("ix_modelprediction_model_id", table_name="modelprediction")
    op.drop_table("modelprediction")
    op.drop_index("ix_rewardmodel_study_id", table_name="rewardmodel")
    op.drop_table("rewardmodel")
