"""The first schema, as released (commit 16b6f3f): studies, pairs, accounts, assignments, ratings.

Revision ID: 0001_first_schema
Revises:
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001_first_schema"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _id() -> sa.Column:
    return sa.Column("id", sa.Integer(), primary_key=True)


def _text(name: str, nullable: bool = False) -> sa.Column:
    return sa.Column(name, sa.String(), nullable=nullable)


def _json(name: str) -> sa.Column:
    return sa.Column(name, sa.JSON(), nullable=False)


def _time(name: str, nullable: bool = False) -> sa.Column:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def _int(name: str) -> sa.Column:
    return sa.Column(name, sa.Integer(), nullable=False)


def _float(name: str) -> sa.Column:
    return sa.Column(name, sa.Float(), nullable=False)


def _fk(name: str, target: str) -> sa.Column:
    return sa.Column(name, sa.Integer(), sa.ForeignKey(target), nullable=False)


def upgrade() -> None:
    op.create_table(
        "study",
        _id(),
        _text("name"),
        _int("seed"),
        _int("scale_min"),
        _int("scale_max"),
        _json("anchors"),
        _json("dimension_labels"),
        _json("dimension_definitions"),
        sa.Column("guidelines", sa.Text(), nullable=False),
        _float("equivalence_margin"),
        _text("completion_code", nullable=True),
        _time("created_at"),
    )
    op.create_index("ix_study_name", "study", ["name"], unique=True)

    op.create_table(
        "annotator",
        _id(),
        _text("name"),
        _text("role"),
        _text("token_hash"),
        sa.Column("active", sa.Boolean(), nullable=False),
        _time("created_at"),
    )
    op.create_index("ix_annotator_token_hash", "annotator", ["token_hash"], unique=True)
    op.create_index("ix_annotator_name", "annotator", ["name"], unique=True)

    op.create_table(
        "pair",
        _id(),
        _fk("study_id", "study.id"),
        _text("record_id"),
        _text("domain"),
        _text("category"),
        sa.Column("question", sa.Text(), nullable=False),
        sa.Column("narrative", sa.Text(), nullable=False),
        _json("profile"),
        _json("rubric_aspects"),
        sa.Column("chosen", sa.Text(), nullable=False),
        sa.Column("rejected", sa.Text(), nullable=False),
        _json("extra"),
        _text("content_hash"),
        _time("created_at"),
        sa.UniqueConstraint("study_id", "record_id", name="uq_pair_study_record"),
    )
    op.create_index("ix_pair_domain", "pair", ["domain"])
    op.create_index("ix_pair_study_id", "pair", ["study_id"])

    op.create_table(
        "assignment",
        _id(),
        _fk("study_id", "study.id"),
        _fk("annotator_id", "annotator.id"),
        _fk("pair_id", "pair.id"),
        _int("position"),
        _text("chosen_side"),
        _text("status"),
        _text("skip_reason", nullable=True),
        sa.Column("flagged", sa.Boolean(), nullable=False),
        _text("flag_reason", nullable=True),
        _text("comment", nullable=True),
        _time("completed_at", nullable=True),
        _time("created_at"),
        sa.UniqueConstraint("annotator_id", "pair_id", name="uq_assignment_annotator_pair"),
    )
    op.create_index("ix_assignment_pair_id", "assignment", ["pair_id"])
    op.create_index("ix_assignment_queue", "assignment", ["annotator_id", "study_id", "position"])
    op.create_index("ix_assignment_study_id", "assignment", ["study_id"])

    op.create_table(
        "rating",
        _id(),
        _fk("assignment_id", "assignment.id"),
        _text("response"),
        _text("dimension"),
        _int("score"),
        _float("seconds"),
        _int("revision"),
        _time("created_at"),
        _time("updated_at"),
        sa.UniqueConstraint("assignment_id", "response", "dimension", name="uq_rating_score"),
    )
    op.create_index("ix_rating_assignment_id", "rating", ["assignment_id"])

    op.create_table(
        "ratingrevision",
        _id(),
        _fk("rating_id", "rating.id"),
        _int("revision"),
        _int("score"),
        _float("seconds"),
        _time("created_at"),
        _time("replaced_at"),
    )
    op.create_index("ix_ratingrevision_rating_id", "ratingrevision", ["rating_id"])


def downgrade() -> None:
    for table in ("ratingrevision", "rating", "assignment", "pair", "annotator", "study"):
        op.drop_table(table)
