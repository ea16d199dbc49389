"""A study's settings as a file (issue 14, item 6): exported as YAML or JSON, imported back.

`StudySettings` is the part of the study's settings model (`annotate.domain.study.
settings_model`) a file carries: a setting declared there with `file=True` joins the file. Left
out on purpose: the name and the seed (each study draws its own), and the switches that open a study
to people (the open pool, crowd enrolment), which an admin turns on deliberately.

Reading is all or nothing: the file's syntax (with its line), then every field's type (with the
field's path, e.g. `practice_pairs[0].expected.factuality.A`), then the study's own checks; each
problem names the file. A file may give only some settings: the others are kept. The
questionnaire is given whole (a template's name or the mapping of its questions), never merged.
The text is read by `annotate.domain.untrusted.documents`: nesting and the number of values are
capped before the parser can recurse, aliases (no "billion laughs"), tags, repeated keys, huge
integers, NaN and infinities, NUL and lone surrogates are refused with their place. The study's
checks (`annotate.domain.study.studies.study_problems`) then bound every number and refuse
practice scores that answer no question of the questionnaire.
"""

from __future__ import annotations

import json
from pathlib import PurePath
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from annotate.db.tables import Study
from annotate.domain.study.questionnaire import template_name
from annotate.domain.study.settings_model import (
    FILE_SETTINGS,
    Settings,
    default,
    setting,
    settings_where,
)
from annotate.domain.study.training_rules import validation_messages
from annotate.domain.untrusted.documents import DocumentError, read_json, read_yaml
from annotate.errors import Conflict, Invalid
from annotate.questionnaire import parse_questionnaire

FORMATS = ("yaml", "json")
SUFFIXES = {".yaml": "yaml", ".yml": "yaml", ".json": "json"}
MAX_FILE_BYTES = 5 * 2**20
VERSION_KEY = "prb_annotate_settings"


class SettingsFileError(Invalid):
    """A settings file that cannot be applied; one line per problem, each naming the file."""


def file_model(model: type[BaseModel] = Settings) -> type[BaseModel]:
    """The settings file's model: the `file` settings of `model`, in its order, after the
    format's version."""
    fields: dict[str, Any] = {
        name: (field.annotation, _file_field(model, name))
        for name, field in model.model_fields.items()
        if name in settings_where(lambda s: s.file, model)
    }
    return create_model(
        "StudySettings",
        __config__=ConfigDict(extra="forbid", strict=True),
        __doc__="Every setting a study's settings file carries (the types a file must give).",
        prb_annotate_settings=(int, Field(default=1, description="the file format's version")),
        **fields,
    )


def _file_field(model: type[BaseModel], name: str) -> Any:
    return Field(
        default_factory=lambda: default(name, model), description=setting(name, model).help
    )


StudySettings = file_model()
SETTINGS = FILE_SETTINGS
"""The study settings a file carries, in the file's order."""


def settings_of(study: Study) -> BaseModel:
    values = {name: getattr(study, name) for name in SETTINGS}
    values["questionnaire"] = questionnaire_as_written(study.questionnaire)
    return StudySettings.model_validate(values)


def questionnaire_as_written(stored: dict[str, Any]) -> str | dict[str, Any]:
    """A stored questionnaire as a file writes it: a template's name when it is one."""
    return template_name(parse_questionnaire(stored)) or stored


def settings_text(study: Study, fmt: str) -> str:
    """The study's settings as a YAML or JSON document."""
    data = settings_of(study).model_dump(mode="json")
    if fmt == "json":
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    if fmt == "yaml":
        return str(yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100))
    raise SettingsFileError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")


def format_of(file: str) -> str:
    """'yaml' or 'json', from the file's name (.yaml, .yml or .json)."""
    fmt = SUFFIXES.get(PurePath(file).suffix.lower())
    if fmt is None:
        raise SettingsFileError(f"{file}: expected a .yaml, .yml or .json file")
    return fmt


def read_settings(file: str, data: bytes) -> dict[str, Any]:
    """The settings a file gives (only those it gives), checked for their types; a
    SettingsFileError lists every problem, each with the file and the field's path."""
    fmt = format_of(file)
    if len(data) > MAX_FILE_BYTES:
        raise SettingsFileError(f"{file}: at most {MAX_FILE_BYTES // 2**20} MB")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise SettingsFileError(f"{file}, byte {error.start}: not UTF-8 text") from None
    parsed = _parsed(file, fmt, text)
    if not isinstance(parsed, dict):
        raise SettingsFileError(f"{file}: expected a mapping of setting names to values")
    try:
        settings: Any = StudySettings.model_validate(parsed)
    except ValidationError as error:
        raise SettingsFileError(
            "\n".join(f"{file}, {message}" for message in validation_messages(error))
        ) from None
    if settings.prb_annotate_settings != 1:
        raise SettingsFileError(
            f"{file}, field '{VERSION_KEY}': expected 1, not {settings.prb_annotate_settings}"
        )
    given = settings.model_fields_set - {VERSION_KEY}
    if "questionnaire" in given:
        try:  # named with the question's field: questionnaire.questions[2].points: ...
            parse_questionnaire(settings.questionnaire)
        except ValueError as error:
            raise SettingsFileError(f"{file}, {error}") from None
    sesoi = settings.smallest_effect
    if "smallest_effect" in given and sesoi is not None and not sesoi > 0:
        raise SettingsFileError(
            f"{file}, field 'smallest_effect': expected a number above 0 (or empty: the "
            f"margin), got {sesoi!r}: at 0 any positive difference would diverge"
        )
    return dict(settings.model_dump(include=given))


def _parsed(file: str, fmt: str, text: str) -> object:
    """The document's value, its nesting and size capped before the parser runs."""
    try:
        return read_json(file, text) if fmt == "json" else read_yaml(file, text)
    except DocumentError as error:
        raise SettingsFileError(str(error)) from None


def located(file: str, error: Invalid | Conflict) -> SettingsFileError:
    """A study's own refusal of the file's settings, each problem prefixed with the file."""
    return SettingsFileError("\n".join(f"{file}: {p}" for p in str(error).split("; ")))
