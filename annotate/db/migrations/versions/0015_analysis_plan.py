"""The locked analysis plan (issue 23 item 3) and simulated data kept apart (issue 24 item 6).

`study` gains the plan fields beside the margin: `smallest_effect` (None: the margin),
`alpha`, `planned_pairs` and `stopping_rule`; the margin record (`margin_set_at`,
`margin_history`) becomes the record of the whole plan. `study.count_simulated` says whether
simulated annotators' ratings count in the verdict and the card; `annotator.simulated` marks
simulated accounts.

A study from before keeps its behaviour: alpha 0.05, a smallest effect of interest of 0 (rubric
alignment diverged as soon as chosen beat rejected: the test it was set up with; a new study's
default is the margin), no planned size (so no verdict is interim), and its simulated ratings
still counted (`count_simulated` true). Existing accounts named as `prb-annotate synth
ratings` named them (`sim-01`, `sim-02`, ...) are marked simulated.

Revision ID: 0015_analysis_plan
Revises: 0014_pool_order_and_roles
Create Date: 2026-12-05
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015_analysis_plan"
down_revision: str | None = "0014_pool_order_and_roles"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SIMULATED_NAME = re.compile(r"sim-[0-9]+")  # annotate.services.admin.simulated.simulated_names


def upgrade() -> None:
    with op.batch_alter_table("study") as batch:
        batch.add_column(sa.Column("smallest_effect", sa.Float(), nullable=True))
        batch.add_column(
            sa.Column("alpha", sa.Float(), nullable=False, server_default=sa.text("0.05"))
        )
        batch.add_column(sa.Column("planned_pairs", sa.Integer(), nullable=True))
        batch.add_column(
            sa.Column("stopping_rule", sa.Text(), nullable=False, server_default=sa.text("''"))
        )
        batch.add_column(
            sa.Column("count_simulated", sa.Boolean(), nullable=False, server_default=sa.true())
        )
    with op.batch_alter_table("study") as batch:
        batch.alter_column("alpha", server_default=None)
        batch.alter_column("stopping_rule", server_default=None)
        batch.alter_column("count_simulated", server_default=None)
    with op.batch_alter_table("annotator") as batch:
        batch.add_column(
            sa.Column("simulated", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    with op.batch_alter_table("annotator") as batch:
        batch.alter_column("simulated", server_default=None)
    connection = op.get_bind()
    connection.execute(sa.text("UPDATE study SET smallest_effect = 0"))
    accounts = connection.execute(sa.text("SELECT id, name FROM annotator")).all()
    made_up = [row.id for row in accounts if SIMULATED_NAME.fullmatch(row.name)]
    for account_id in made_up:
        connection.execute(
            sa.text("UPDATE annotator SET simulated = :yes WHERE id = :id"),
            {"yes": True, "id": account_id},
        )


def downgrade() -> None:
    with op.batch_alter_table("annotator") as batch:
        batch.drop_column("simulated")
    with op.batch_alter_table("study") as batch:
        batch.drop_column("count_simulated")
        batch.drop_column("stopping_rule")
        batch.drop_column("planned_pairs")
        batch.drop_column("alpha")
        batch.drop_column("smallest_effect")
