"""Participants' data (issue 24): a database secret for the annotators' pseudonyms, a study's
retention period, a participation's withdrawal time and the log of erasures.

`sitesecret` gets one row, `pseudonym`, a random key made here (HMAC-SHA256 of study and account
id under it names an annotator in everything that leaves the database). Existing studies keep
their data until erased (`retention_days` NULL); no participation is withdrawn; no erasure.

Revision ID: 0016_participants_data
Revises: 0015_analysis_plan
Create Date: 2026-12-05
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016_participants_data"
down_revision: str | None = "0015_analysis_plan"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    secret = op.create_table(
        "sitesecret",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("value", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name"),
    )
    op.bulk_insert(secret, [{"name": "pseudonym", "value": secrets.token_hex(32)}])
    op.create_table(
        "erasure",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("study_id", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.Column("reason", sa.String(), nullable=False),
        sa.Column("n_scores", sa.Integer(), nullable=False),
        sa.Column("after_ratings", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(["study_id"], ["study.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(op.f("ix_erasure_study_id"), "erasure", ["study_id"], unique=False)
    with op.batch_alter_table("study") as batch:
        batch.add_column(sa.Column("retention_days", sa.Integer(), nullable=True))
    with op.batch_alter_table("participation") as batch:
        batch.add_column(sa.Column("withdrawn_at", sa.DateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("participation") as batch:
        batch.drop_column("withdrawn_at")
    with op.batch_alter_table("study") as batch:
        batch.drop_column("retention_days")
    op.drop_index(op.f("ix_erasure_study_id"), table_name="erasure")
    op.drop_table("erasure")
    op.drop_table("sitesecret")
