"""Studies and their settings, with the admin check in the same transaction.

A study is returned as its table row, read in the transaction and detached from it (the
sessions do not expire on commit), so its settings can be shown after the transaction ends.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session

from annotate.db import read_session
from annotate.db.tables import Study
from annotate.domain.crowd.enrolment import enrolment_link
from annotate.domain.operations import exclusion_rules
from annotate.domain.study import audit, studies
from annotate.domain.study.permissions import Actor, require_admin
from annotate.services.audited import admin_change

RULES = (
    "exclusion_rules"  # a setting set through annotate.domain.operations.exclusion_rules.set_rules
)


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


def apply_changes(session: Session, name: str, changes: dict[str, Any]) -> Study:
    """Change some settings of a study; exclusion rules given among them are set through their
    pre-registration check (refused once the study has ratings)."""
    others = dict(changes)
    rules = others.pop(RULES, None)
    study = studies.update_study(session, name, **others)
    if rules is not None:
        exclusion_rules.set_rules(session, study, rules)
    return study


def create_study(engine: Engine, actor: Actor, name: str, **settings: Any) -> Study:
    rules = settings.pop(RULES, None)
    with admin_change(engine, actor, "study.create") as change:
        change.study = studies.create_study(change.session, name, **settings)
        if rules:
            exclusion_rules.set_rules(change.session, change.study, rules)
        change.after = settings_with_rules(change.study)
        return change.study


def update_study(engine: Engine, actor: Actor, name: str, **changes: Any) -> Study:
    with admin_change(engine, actor, "study.update", name) as change:
        before = settings_with_rules(studies.get_study(change.session, name))
        study = apply_changes(change.session, name, changes)
        change.before, change.after = audit.changed(before, settings_with_rules(study))
        change.changed = bool(change.after)
        return study


def preview_study_changes(
    engine: Engine, actor: Actor, name: str, **changes: Any
) -> dict[str, tuple[Any, Any]]:
    """What `update_study` with these changes would change (setting -> (now, after)); nothing
    is written. The settings page shows it and asks for a confirmation."""
    with read_session(engine) as session:
        require_admin(session, actor)
        return studies.preview_changes(studies.get_study(session, name), changes)


def study_enrolment_link(
    engine: Engine, actor: Actor, name: str, base_url: str | None = None
) -> str:
    with read_session(engine) as session:
        require_admin(session, actor)
        study = studies.get_study(session, name)
        return enrolment_link(study.name, study.enrolment_key or "", base_url)
