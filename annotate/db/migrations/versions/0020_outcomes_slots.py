"""One stored outcome per participant, the finish rule, and slots that come back (issue 34).

`participation.outcome`, `outcome_code`, `outcome_reason`, `outcome_at`: how a participation
ended, written once by `annotate.domain.crowd.outcomes.settle`. Existing participations get the
outcome their record already says: withdrawn, screened out (declined consent, the screen-out
code) or completed (chose Finish, the completion code); the others stay unsettled until their
next page view concludes them.

`study.finish_counts_flags`, `finish_counts_skips` (False) and `skip_limit` (NULL: the pool
quota): the finish rule's settings.

`assignment.released_at`, `release_reason`: an assignment whose slot went back to the pool. A
skipped or flagged row keeps its status (data for the analysis and the flag queue) and no longer
holds a slot; existing skipped rating rows are released here, so their pairs can reach k.

Revision ID: 0020_outcomes_slots
Revises: 0019_forced_after_data
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0020_outcomes_slots"
down_revision: str | None = "0019_forced_after_data"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_CODE = "(SELECT COALESCE(study.{0}, '') FROM study WHERE study.id = participation.study_id)"
SETTLE_EXISTING = (
    "UPDATE participation SET outcome = 'withdrawn', outcome_at = withdrawn_at "
    "WHERE withdrawn_at IS NOT NULL AND outcome IS NULL",
    "UPDATE participation SET outcome = 'screened out', outcome_at = consent_at, "
    "outcome_reason = 'You declined to take part in this study.', "
    f"outcome_code = {_CODE.format('screenout_code')} "
    "WHERE consent = 'declined' AND outcome IS NULL",
    "UPDATE participation SET outcome = 'completed', outcome_at = finished_at, "
    f"outcome_code = {_CODE.format('completion_code')} "
    "WHERE finished_at IS NOT NULL AND outcome IS NULL",
    "UPDATE assignment SET released_at = CURRENT_TIMESTAMP, release_reason = "
    "CASE WHEN flagged THEN 'flagged' ELSE 'skipped' END "
    "WHERE status = 'skipped' AND purpose = 'rating' AND released_at IS NULL",
)


def upgrade() -> None:
    with op.batch_alter_table("study") as batch:
        batch.add_column(
            sa.Column(
                "finish_counts_flags", sa.Boolean(), nullable=False, server_default=sa.false()
            )
        )
        batch.add_column(
            sa.Column(
                "finish_counts_skips", sa.Boolean(), nullable=False, server_default=sa.false()
            )
        )
        batch.add_column(sa.Column("skip_limit", sa.Integer(), nullable=True))
    with op.batch_alter_table("study") as batch:
        batch.alter_column("finish_counts_flags", server_default=None)
        batch.alter_column("finish_counts_skips", server_default=None)
    with op.batch_alter_table("assignment") as batch:
        batch.add_column(sa.Column("released_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("release_reason", sa.String(), nullable=True))
    with op.batch_alter_table("participation") as batch:
        batch.add_column(sa.Column("outcome", sa.String(), nullable=True))
        batch.add_column(
            sa.Column("outcome_code", sa.String(), nullable=False, server_default=sa.text("''"))
        )
        batch.add_column(
            sa.Column("outcome_reason", sa.Text(), nullable=False, server_default=sa.text("''"))
        )
        batch.add_column(sa.Column("outcome_at", sa.DateTime(timezone=True), nullable=True))
    with op.batch_alter_table("participation") as batch:
        batch.alter_column("outcome_code", server_default=None)
        batch.alter_column("outcome_reason", server_default=None)
    for sql in SETTLE_EXISTING:
        op.execute(sql)


def downgrade() -> None:
    with op.batch_alter_table("participation") as batch:
        for column in ("outcome_at", "outcome_reason", "outcome_code", "outcome"):
            batch.drop_column(column)
    with op.batch_alter_table("assignment") as batch:
        batch.drop_column("release_reason")
        batch.drop_column("released_at")
    with op.batch_alter_table("study") as batch:
        for column in ("skip_limit", "finish_counts_skips", "finish_counts_flags"):
            batch.drop_column(column)
