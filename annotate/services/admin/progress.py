"""Progress, quality and gold pairs of a study, with the admin check in the same transaction."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlalchemy.engine import Engine

from annotate.db import read_session
from annotate.db.tables import stored_id
from annotate.domain import assignment
from annotate.domain.rating import quality
from annotate.domain.rating.progress import (
    DomainProgress,
    FlaggedPair,
    ProgressRow,
    ShortPair,
    Totals,
    annotator_progress,
    domain_progress,
    flagged_pairs,
    short_pairs,
    totals,
)
from annotate.domain.rating.quality import AnnotatorQuality, GoldPair
from annotate.domain.study import studies
from annotate.domain.study.permissions import Actor, require_admin
from annotate.services.audited import admin_change


def set_gold(
    engine: Engine, actor: Actor, *, study: str, record_ids: Sequence[str], expect: str | None
) -> int:
    """Mark pairs gold with `expect`, or make them ordinary again with expect=None."""
    with admin_change(engine, actor, "gold.set", study) as change:
        session, target = change.session, studies.get_study(change.session, study)
        change.after = {"record_ids": list(record_ids), "expect": expect}
        if expect is None:
            return quality.unmark_gold(session, target, record_ids)
        return quality.mark_gold(session, target, record_ids, expect)


def list_gold(engine: Engine, actor: Actor, study: str) -> list[GoldPair]:
    with read_session(engine) as session:
        require_admin(session, actor)
        return quality.list_gold(session, stored_id(studies.get_study(session, study)))


@dataclass(frozen=True)
class Dashboard:
    study: str
    overlap: int
    annotators: list[ProgressRow]
    domains: list[DomainProgress]
    quality: list[AnnotatorQuality]
    flagged: list[FlaggedPair]
    gold: list[GoldPair]
    coverage: dict[str, int]  # record id -> slots taken
    totals: Totals
    short: list[ShortPair] = field(default_factory=list)  # pairs that cannot reach k, and why


def dashboard(engine: Engine, actor: Actor, study: str) -> Dashboard:
    with read_session(engine) as session:
        require_admin(session, actor)
        target = studies.get_study(session, study)
        study_id = stored_id(target)
        return Dashboard(
            study=target.name,
            overlap=target.overlap,
            annotators=annotator_progress(session, study_id),
            domains=domain_progress(session, study_id),
            quality=quality.annotator_quality(session, study_id),
            flagged=flagged_pairs(session, study_id),
            gold=quality.list_gold(session, study_id),
            coverage=assignment.pair_coverage(session, study_id),
            totals=totals(session, target),
            short=short_pairs(session, target),
        )
