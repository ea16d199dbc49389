"""Pools and gold pairs (commit d25d9fd): overlap, reservations, gold pairs, crowd ids.

New NOT NULL columns are added with a server default (the model's default) so existing rows get
a value, and the default is dropped afterwards: the result equals what `create_all` makes.

Revision ID: 0002_pools_and_gold
Revises: 0001_first_schema
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002_pools_and_gold"
down_revision: str | None = "0001_first_schema"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _study_columns() -> tuple[sa.Column, ...]:
    """The new study columns; existing studies get the defaults of the models at this revision."""
    return (
        sa.Column("overlap", sa.Integer(), nullable=False, server_default="3"),
        sa.Column("reservation_minutes", sa.Integer(), nullable=False, server_default="60"),
        sa.Column("gold_rate", sa.Float(), nullable=False, server_default="0"),
    )


EXTERNAL_ID_KEY = "annotator_external_id_key"  # the name PostgreSQL gives `create_all`'s UNIQUE


def upgrade() -> None:
    with op.batch_alter_table("study") as batch:
        for column in _study_columns():
            batch.add_column(column)
    with op.batch_alter_table("study") as batch:
        for column in _study_columns():
            batch.alter_column(column.name, server_default=None)
    with op.batch_alter_table("pair") as batch:
        batch.add_column(sa.Column("gold_preference", sa.String(), nullable=True))
    with op.batch_alter_table("annotator") as batch:
        batch.add_column(sa.Column("external_id", sa.String(), nullable=True))
        batch.create_unique_constraint(EXTERNAL_ID_KEY, ["external_id"])
    with op.batch_alter_table("assignment") as batch:
        batch.add_column(sa.Column("reserved_until", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("assignment") as batch:
        batch.drop_column("reserved_until")
    with op.batch_alter_table("annotator") as batch:
        batch.drop_constraint(EXTERNAL_ID_KEY, type_="unique")
        batch.drop_column("external_id")
    with op.batch_alter_table("pair") as batch:
        batch.drop_column("gold_preference")
    with op.batch_alter_table("study") as batch:
        for column in _study_columns():
            batch.drop_column(column.name)
