"""A study's pre-registered exclusion rules (admin, audited): read them with their record, and
set or clear them (once ratings exist only with `force`, and the audit entry says so)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy.engine import Engine

from annotate.db import read_session
from annotate.db.tables import stored_id
from annotate.domain.operations import exclusion_rules
from annotate.domain.study import studies
from annotate.domain.study.permissions import Actor, require_admin
from annotate.services.audited import admin_change


def study_rules(engine: Engine, actor: Actor, study: str) -> dict[str, Any]:
    """The study's rules and their record: ``rules``, ``set_at``, ``history``,
    ``first_rating_at``."""
    with read_session(engine) as session:
        require_admin(session, actor)
        return exclusion_rules.rules_record(session, studies.get_study(session, study))


def set_study_rules(
    engine: Engine, actor: Actor, study: str, rules: Mapping[str, Any], *, force: bool = False
) -> dict[str, Any]:
    """Replace the study's exclusion rules (`{}` clears them); return the new record. The
    audit entry records the rules before and after and whether ratings existed already."""
    with admin_change(engine, actor, "study.rules", study) as change:
        assert change.study is not None  # admin_change found the named study
        target = change.study
        before = dict(target.exclusion_rules)
        first = exclusion_rules.first_rating_at(change.session, stored_id(target))
        change.changed = exclusion_rules.set_rules(change.session, target, rules, force=force)
        change.before = {"exclusion_rules": before}
        change.after = {"exclusion_rules": dict(target.exclusion_rules)}
        if first is not None:
            change.after["after_data"] = f"ratings since {first.isoformat(timespec='seconds')}"
        return exclusion_rules.rules_record(change.session, target)
