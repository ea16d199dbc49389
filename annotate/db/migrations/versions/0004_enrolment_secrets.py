"""Crowd enrolment secrets: the study link's key, and the platform session a participant used.

Studies whose enrolment is open get a fresh key here, so their link works again once the admin
posts the new one (links without the key are refused from this version on).

Revision ID: 0004_enrolment_secrets
Revises: 0003_admin
Create Date: 2026-12-03
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004_enrolment_secrets"
down_revision: str | None = "0003_admin"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("study") as batch:
        batch.add_column(sa.Column("enrolment_key", sa.String(), nullable=True))
    with op.batch_alter_table("annotator") as batch:
        batch.add_column(sa.Column("enrolment_session_hash", sa.String(), nullable=True))
    study = sa.table(
        "study", sa.column("id"), sa.column("enrolment_open"), sa.column("enrolment_key")
    )
    connection = op.get_bind()
    open_studies = connection.execute(sa.select(study.c.id).where(study.c.enrolment_open)).all()
    for (study_id,) in open_studies:
        connection.execute(
            study.update()
            .where(study.c.id == study_id)
            .values(enrolment_key=secrets.token_urlsafe(16))
        )


def downgrade() -> None:
    with op.batch_alter_table("annotator") as batch:
        batch.drop_column("enrolment_session_hash")
    with op.batch_alter_table("study") as batch:
        batch.drop_column("enrolment_key")
