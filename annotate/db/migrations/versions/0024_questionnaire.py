"""A study's questionnaire as data (issue 35.1).

`study.questionnaire`: the study's questions, their scales and roles in the verdict, and its span
labels, as `annotate.questionnaire.Questionnaire.stored()` writes them. It replaces the five
columns that customised the four fixed dimensions (`scale_min`, `scale_max`, `anchors`,
`dimension_labels`, `dimension_definitions`): each existing study gets this benchmark's four
dimensions (the `prb` roles) with its own labels, texts, scale and anchor words, and the columns
are dropped (no setting kept twice). The downgrade writes them back from the questionnaire (a
questionnaire other than the four dimensions keeps the default words where it has none).

Revision ID: 0024_questionnaire
Revises: 0023_monitor
Create Date: 2026-12-06
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

from annotate.questionnaire import parse_questionnaire, prb_with
from annotate.vocabulary import DIMENSION_DEFINITIONS, DIMENSION_LABELS, DIMENSIONS

revision: str = "0024_questionnaire"
down_revision: str | None = "0023_monitor"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_OLD = ("scale_min", "scale_max", "anchors", "dimension_labels", "dimension_definitions")


def _plain(value: Any) -> Any:
    """A JSON column's value (SQLite may hand back its text)."""
    return json.loads(value) if isinstance(value, str) else (value or {})


def _built(row: Any) -> dict[str, Any]:
    low, high = int(row.scale_min), int(row.scale_max)
    anchors = {int(k): str(v) for k, v in _plain(row.anchors).items() if str(v).strip()}
    return prb_with(
        {k: str(v) for k, v in _plain(row.dimension_labels).items() if str(v).strip()},
        {k: str(v) for k, v in _plain(row.dimension_definitions).items() if str(v).strip()},
        tuple(range(low, high + 1)),
        {k: v for k, v in anchors.items() if low <= k <= high},
    ).stored()


def upgrade() -> None:
    with op.batch_alter_table("study") as batch:
        batch.add_column(sa.Column("questionnaire", sa.JSON(), nullable=True))
    bind = op.get_bind()
    study = sa.table("study", sa.column("id"), sa.column("questionnaire", sa.JSON()))
    for row in bind.execute(sa.text(f"SELECT id, {', '.join(_OLD)} FROM study")).all():
        bind.execute(study.update().where(study.c.id == row.id).values(questionnaire=_built(row)))
    with op.batch_alter_table("study") as batch:
        batch.alter_column("questionnaire", existing_type=sa.JSON(), nullable=False)
        for name in _OLD:
            batch.drop_column(name)


def _old_columns(stored: Any) -> dict[str, Any]:
    questionnaire = parse_questionnaire(_plain(stored) or None)
    low, high = questionnaire.scale
    asked = {q.key: q for q in questionnaire.questions if q.key in DIMENSIONS}
    first = next((q for q in questionnaire.questions if q.is_scale), None)
    return {
        "scale_min": low,
        "scale_max": high,
        "anchors": {str(k): v for k, v in (first.anchors if first else {}).items()},
        "dimension_labels": {
            d: asked[d].label if d in asked else DIMENSION_LABELS[d] for d in DIMENSIONS
        },
        "dimension_definitions": {
            d: asked[d].text if d in asked else DIMENSION_DEFINITIONS[d] for d in DIMENSIONS
        },
    }


def downgrade() -> None:
    with op.batch_alter_table("study") as batch:
        batch.add_column(sa.Column("scale_min", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("scale_max", sa.Integer(), nullable=True))
        for name in _OLD[2:]:
            batch.add_column(sa.Column(name, sa.JSON(), nullable=True))
    bind = op.get_bind()
    study = sa.table(
        "study",
        sa.column("id"),
        *(sa.column(n, sa.Integer() if n.startswith("scale") else sa.JSON()) for n in _OLD),
    )
    for row in bind.execute(sa.text("SELECT id, questionnaire FROM study")).all():
        values = _old_columns(row.questionnaire)
        bind.execute(study.update().where(study.c.id == row.id).values(**values))
    with op.batch_alter_table("study") as batch:
        for name in _OLD:
            kind = sa.Integer() if name.startswith("scale") else sa.JSON()
            batch.alter_column(name, existing_type=kind, nullable=False)
        batch.drop_column("questionnaire")
