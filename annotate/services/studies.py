"""Studies and their settings, with the admin check in the same transaction.

A study is returned as its table row, read in the transaction and detached from it (the
sessions do not expire on commit), so its settings can be shown after the transaction ends.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy.engine import Engine

from annotate.db import read_session
from annotate.db.tables import Study
from annotate.domain import audit, studies
from annotate.domain.enrolment import enrolment_link
from annotate.domain.permissions import Actor, require_admin
from annotate.services.audited import admin_change


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


def create_study(engine: Engine, actor: Actor, name: str, **settings: Any) -> Study:
    with admin_change(engine, actor, "study.create") as change:
        change.study = studies.create_study(change.session, name, **settings)
        change.after = studies.settings_of(change.study)
        return change.study


def update_study(engine: Engine, actor: Actor, name: str, **changes: Any) -> Study:
    with admin_change(engine, actor, "study.update", name) as change:
        before = studies.settings_of(studies.get_study(change.session, name))
        study = studies.update_study(change.session, name, **changes)
        change.before, change.after = audit.changed(before, studies.settings_of(study))
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
