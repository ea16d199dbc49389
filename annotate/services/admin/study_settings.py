"""A study's settings file (admin): export it, preview it, import it in one audited transaction
(`annotate.domain.study.study_settings` reads and checks the file)."""

from __future__ import annotations

from typing import Any

from sqlalchemy.engine import Engine

from annotate.db import read_session
from annotate.db.tables import Study
from annotate.domain.operations import exclusion_rules
from annotate.domain.study import audit, studies, study_settings
from annotate.domain.study.permissions import Actor, require_admin
from annotate.domain.study.studies import StudyError
from annotate.services.admin.studies import RULES, apply_changes, settings_with_rules
from annotate.services.audited import admin_change


def export_settings(engine: Engine, actor: Actor, name: str, fmt: str) -> str:
    """The study's settings as a YAML or JSON document."""
    with read_session(engine) as session:
        require_admin(session, actor)
        return study_settings.settings_text(studies.get_study(session, name), fmt)


def preview_settings_file(
    engine: Engine, actor: Actor, name: str, file: str, data: bytes
) -> tuple[dict[str, Any], dict[str, tuple[Any, Any]]]:
    """The settings the file gives and what they would change (setting -> (now, after));
    nothing is written. SettingsFileError lists every problem, each naming the file."""
    with read_session(engine) as session:
        require_admin(session, actor)
        settings = study_settings.read_settings(file, data)
        study = studies.get_study(session, name)
        rules, others = _split_rules(settings)
        try:
            changes = studies.preview_changes(study, others)
            if rules is not None:
                exclusion_rules.parse_rules(rules)  # checked like `set_rules` will
        except (StudyError, exclusion_rules.RulesError) as error:
            raise study_settings.located(file, error) from None
        if rules is not None and rules != dict(study.exclusion_rules):
            changes[RULES] = (dict(study.exclusion_rules), rules)
        return settings, changes


def _split_rules(settings: dict[str, Any]) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """(the exclusion rules the file gives or None, the other settings): the rules are set
    through their own pre-registration check, not as an ordinary setting."""
    others = dict(settings)
    return others.pop(RULES, None), others


def import_settings(engine: Engine, actor: Actor, name: str, file: str, data: bytes) -> Study:
    """Apply a settings file to a study, all or nothing, with an audit entry naming the file."""
    with read_session(engine) as session:
        require_admin(session, actor)  # before reading what a non-admin sent
    return apply_settings(engine, actor, name, file, study_settings.read_settings(file, data))


def apply_settings(
    engine: Engine, actor: Actor, name: str, file: str, settings: dict[str, Any]
) -> Study:
    """Apply settings read from `file` (see `import_settings`)."""
    with admin_change(engine, actor, "study.settings_import", name) as change:
        before = settings_with_rules(studies.get_study(change.session, name))
        try:
            study = apply_changes(change.session, name, settings)
        except (StudyError, exclusion_rules.RulesError, exclusion_rules.RulesAfterData) as error:
            raise study_settings.located(file, error) from None
        change.before, change.after = audit.changed(before, settings_with_rules(study))
        change.after["settings_file"] = file
        change.changed = len(change.after) > 1
        return study
