"""The per-aspect checklist (issue 14, item 1): an annotator marks how well each response covers
each rubric aspect of the pair (0 not covered, 1 partly, 2 well), and an LLM judge's aspect
scores can be imported to compare with them.

Off for existing studies (`aspect_checklist` false). New tables: `aspectmark` (one mark per
assignment, response and aspect, with a revision count), `aspectjudge` (one imported judge per
study and name) and `aspectjudgescore` (its score per pair, response and aspect).

Revision ID: 0009_aspect_checklist
Revises: 0008_study_designs
Create Date: 2026-12-04
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009_aspect_checklist"
down_revision: str | None = "0008_study_designs"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    column: sa.Column[bool] = sa.Column(
        "aspect_checklist", sa.Boolean(), nullable=False, server_default=sa.false()
    )
    with op.batch_alter_table("study") as batch:
        batch.add_column(column)
    with op.batch_alter_table("study") as batch:
        batch.alter_column("aspect_checklist", server_default=None)
    op.create_table(
        "aspectmark",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("assignment_id", sa.Integer(), sa.ForeignKey("assignment.id"), nullable=False),
        sa.Column("response", sa.String(), nullable=False),
        sa.Column("aspect_index", sa.Integer(), nullable=False),
        sa.Column("coverage", sa.Integer(), nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint(
            "assignment_id", "response", "aspect_index", name="uq_aspectmark_assignment_aspect"
        ),
    )
    op.create_index("ix_aspectmark_assignment_id", "aspectmark", ["assignment_id"])
    op.create_table(
        "aspectmarkrevision",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("mark_id", sa.Integer(), sa.ForeignKey("aspectmark.id"), nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.Column("coverage", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("replaced_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_aspectmarkrevision_mark_id", "aspectmarkrevision", ["mark_id"])
    op.create_table(
        "aspectjudge",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("study_id", sa.Integer(), sa.ForeignKey("study.id"), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("source_file", sa.String(), nullable=False),
        sa.Column("content_hash", sa.String(), nullable=False),
        sa.Column("n_pairs", sa.Integer(), nullable=False),
        sa.Column("imported_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("study_id", "name", name="uq_aspectjudge_study_name"),
    )
    op.create_index("ix_aspectjudge_study_id", "aspectjudge", ["study_id"])
    op.create_table(
        "aspectjudgescore",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("judge_id", sa.Integer(), sa.ForeignKey("aspectjudge.id"), nullable=False),
        sa.Column("pair_id", sa.Integer(), sa.ForeignKey("pair.id"), nullable=False),
        sa.Column("response", sa.String(), nullable=False),
        sa.Column("aspect_index", sa.Integer(), nullable=False),
        sa.Column("coverage", sa.Integer(), nullable=False),
        sa.UniqueConstraint(
            "judge_id", "pair_id", "response", "aspect_index", name="uq_aspectjudgescore_aspect"
        ),
    )
    op.create_index("ix_aspectjudgescore_judge_id", "aspectjudgescore", ["judge_id"])


def downgrade() -> None:
    op.drop_index("ix_aspectjudgescore_judge_id", table_name="aspectjudgescore")
    op.drop_table("aspectjudgescore")
    op.drop_index("ix_aspectjudge_study_id", table_name="aspectjudge")
    op.drop_table("aspectjudge")
    op.drop_index("ix_aspectmarkrevision_mark_id", table_name="aspectmarkrevision")
    op.drop_table("aspectmarkrevision")
    op.drop_index("ix_aspectmark_assignment_id", table_name="aspectmark")
    op.drop_table("aspectmark")
    with op.batch_alter_table("study") as batch:
        batch.drop_column("aspect_checklist")
