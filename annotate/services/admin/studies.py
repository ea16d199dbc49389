"""Studies and their settings, with the admin check in the same transaction.

A study is returned as its table row, read in the transaction and detached from it (the
sessions do not expire on commit), so its settings can be shown after the transaction ends.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session

from annotate.db import read_session
from annotate.db.tables import Study, stored_id
from annotate.domain.crowd.enrolment import enrolment_link
from annotate.domain.operations import exclusion_rules
from annotate.domain.study import audit, plan, studies
from annotate.domain.study.permissions import Actor, require_admin
from annotate.domain.study.settings_model import PLAN_SETTINGS
from annotate.services.audited import AdminChange, admin_change

RULES = (
    "exclusion_rules"  # a setting set through annotate.domain.operations.exclusion_rules.set_rules
)
PLAN_AUDITED = {*PLAN_SETTINGS, RULES}


@dataclass(frozen=True)
class StudyLine:
    """A study in a listing, with its pair count."""

    name: str
    pairs: int
    overlap: int
    pool_open: bool


def list_studies(engine: Engine, actor: Actor) -> list[Study]:
    with read_session(engine) as session:
        require_admin(session, actor)
        return studies.list_studies(session)


def study_lines(engine: Engine, actor: Actor) -> list[StudyLine]:
    with read_session(engine) as session:
        require_admin(session, actor)
        return [
            StudyLine(s.name, studies.pair_count(session, s), s.overlap, s.pool_open)
            for s in studies.list_studies(session)
        ]


def get_study(engine: Engine, actor: Actor, name: str) -> Study:
    with read_session(engine) as session:
        require_admin(session, actor)
        return studies.get_study(session, name)


def settings_with_rules(study: Study) -> dict[str, Any]:
    """The study's settings and its exclusion rules (what a settings change is audited with)."""
    return {**studies.settings_of(study), RULES: dict(study.exclusion_rules)}


def apply_changes(
    session: Session, name: str, changes: dict[str, Any], *, force: bool = False
) -> Study:
    """Change some settings of a study; the analysis plan (margin, smallest effect, alpha,
    planned size, exclusion rules) goes through its pre-registration lock (refused once the
    study has ratings unless `force`)."""
    others = dict(changes)
    rules = others.pop(RULES, None)
    study = studies.update_study(session, name, force=force, **others)
    if rules is not None:
        exclusion_rules.set_rules(session, study, rules, force=force)
    return study


def note_forced(change: AdminChange, first: datetime | None) -> None:
    """A change made once ratings existed: the audit entry says so (with `force`)."""
    if first is not None and change.after:
        change.after["after_data"] = f"forced: ratings since {first.isoformat(timespec='seconds')}"


def create_study(engine: Engine, actor: Actor, name: str, **settings: Any) -> Study:
    rules = settings.pop(RULES, None)
    with admin_change(engine, actor, "study.create") as change:
        change.study = studies.create_study(change.session, name, **settings)
        if rules:
            exclusion_rules.set_rules(change.session, change.study, rules)
        change.after = settings_with_rules(change.study)
        return change.study


def update_study(
    engine: Engine, actor: Actor, name: str, *, force: bool = False, **changes: Any
) -> Study:
    """Change some settings; a plan change once ratings exist needs `force` and its audit entry
    says it was forced after data."""
    with admin_change(engine, actor, "study.update", name) as change:
        target = studies.get_study(change.session, name)
        before = settings_with_rules(target)
        first = plan.first_rating_at(change.session, stored_id(target))
        study = apply_changes(change.session, name, changes, force=force)
        change.before, change.after = audit.changed(before, settings_with_rules(study))
        change.changed = bool(change.after)
        if set(change.after) & PLAN_AUDITED:
            note_forced(change, first)
        return study


def preview_study_changes(
    engine: Engine, actor: Actor, name: str, **changes: Any
) -> dict[str, tuple[Any, Any]]:
    """What `update_study` with these changes would change (setting -> (now, after)); nothing
    is written. The settings page shows it and asks for a confirmation."""
    others = dict(changes)
    rules = others.pop(RULES, None)
    with read_session(engine) as session:
        require_admin(session, actor)
        study = studies.get_study(session, name)
        preview = studies.preview_changes(study, others)
    if rules is not None:
        now = dict(study.exclusion_rules)
        after = exclusion_rules.parse_rules(rules).as_dict()
        if after != now:
            preview[RULES] = (now, after)
    return preview


def study_plan(engine: Engine, actor: Actor, name: str) -> dict[str, Any]:
    """The study's analysis plan with its record and changes, stamped with the time (the
    pre-registration document: `annotate.domain.study.plan.plan_document`)."""
    with read_session(engine) as session:
        require_admin(session, actor)
        return plan.plan_document(session, studies.get_study(session, name))


def study_enrolment_link(
    engine: Engine, actor: Actor, name: str, base_url: str | None = None
) -> str:
    with read_session(engine) as session:
        require_admin(session, actor)
        study = studies.get_study(session, name)
        return enrolment_link(study.name, study.enrolment_key or "", base_url)
