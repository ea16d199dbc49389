"""A study's settings as a file (issue 14, item 6): exported as YAML or JSON, imported back.

`StudySettings` lists, in one place, every setting a file carries; a setting added to studies
later (in `annotate.domain.studies.EDITABLE`) joins the file with one line here. Left out on
purpose: the name and the seed (each study draws its own), and the switches that open a study
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
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from annotate.db.tables import Study
from annotate.domain.study.questionnaire import template_name
from annotate.domain.study.training_rules import (
    ComprehensionQuestion,
    PracticePair,
    validation_messages,
)
from annotate.domain.untrusted.documents import DocumentError, read_json, read_yaml
from annotate.errors import Conflict, Invalid
from annotate.questionnaire import DEFAULT_TEMPLATE, TEMPLATES, parse_questionnaire
from annotate.vocabulary import DEFAULT_EQUIVALENCE_MARGIN

FORMATS = ("yaml", "json")
SUFFIXES = {".yaml": "yaml", ".yml": "yaml", ".json": "json"}
MAX_FILE_BYTES = 5 * 2**20
VERSION_KEY = "prb_annotate_settings"


class SettingsFileError(Invalid):
    """A settings file that cannot be applied; one line per problem, each naming the file."""


class StudySettings(BaseModel):
    """Every setting a study's settings file carries (the types a file must give)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    prb_annotate_settings: int = Field(default=1, description="the file format's version")
    questionnaire: str | dict[str, Any] = Field(
        default=DEFAULT_TEMPLATE,
        description="what annotators are asked (annotate.questionnaire): a template's name "
        f"({', '.join(TEMPLATES)}), {{template, span_labels}}, or {{questions, span_labels}} "
        "with each question's key, label, text, points and anchors or choices, and role (tie, "
        "diverge or describe); locked once the study has ratings",
    )
    guidelines: str = ""
    equivalence_margin: float = DEFAULT_EQUIVALENCE_MARGIN
    margin_unit: str = "points"
    smallest_effect: float | None = Field(
        default=None, description="pre-registered: in the margin's unit (empty: the margin)"
    )
    alpha: float = Field(default=0.05, description="pre-registered significance level")
    planned_pairs: int | None = Field(default=None, description="pre-registered sample size")
    stopping_rule: str = Field(default="", description="pre-registered stopping rule in words")
    sequential: dict[str, Any] | None = Field(
        default=None,
        description="pre-registered group-sequential plan: looks (cumulative counts), unit "
        "(pairs or ratings), alpha_spending and futility (obrien-fleming or pocock), beta, binding",
    )
    internal_pilot: dict[str, Any] | None = Field(
        default=None,
        description="pre-registered internal pilot: first_stage_pairs, tie_alpha (each tie "
        "question's TOST level after the sample-size look)",
    )
    count_simulated: bool = False
    overlap: int = 3
    reservation_minutes: int = 60
    gold_rate: float = 0.0
    pool_quota: int | None = None
    finish_minimum: int | None = None
    finish_counts_flags: bool = False
    finish_counts_skips: bool = False
    skip_limit: int | None = Field(
        default=None, description="crowd: pairs one may set aside (empty: the pairs per person)"
    )
    pool_order: str = "depth"
    completion_code: str | None = None
    close_at_stop: bool = Field(
        default=False,
        description="crowd enrolment closes itself when the group-sequential plan says stop",
    )
    consent_text: str = ""
    survey_questions: list[dict[str, Any]] = Field(default_factory=list)
    screenout_code: str | None = None
    completion_url: str | None = None
    ask_preference: bool = False
    rationale: str = "off"
    practice_pairs: list[PracticePair] = Field(default_factory=list)
    comprehension_questions: list[ComprehensionQuestion] = Field(default_factory=list)
    comprehension_attempts: int = 2
    instructed_checks: list[dict[str, Any]] = Field(
        default_factory=list,
        description="crowd: instructed-response checks in the rating flow: {text, options, "
        "expected, after (pairs)}; a participant who fails two ends with 'failed checks'",
    )
    aspect_checklist: bool = False
    adjudication_threshold: float | None = None
    retention_days: int | None = None
    platform: str | None = Field(default=None, description="prolific, completion_url or empty")
    platform_study_id: str | None = None
    reward: int | None = Field(default=None, description="per completed participant, minor units")
    currency: str = "GBP"
    platform_fee_percent: float = 0.0
    bonus_rule: str = Field(default="", description="'' or 'per_extra_pair:N' (minor units)")
    exclusion_rules: dict[str, int | float] = Field(
        default_factory=dict,
        description="pre-registered: set through annotate.domain.operations.exclusion_rules "
        "(refused once the study has ratings)",
    )


SETTINGS = tuple(name for name in StudySettings.model_fields if name != VERSION_KEY)
"""The study settings a file carries, in the file's order."""


def settings_of(study: Study) -> StudySettings:
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
        settings = StudySettings.model_validate(parsed)
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
    return settings.model_dump(include=given)


def _parsed(file: str, fmt: str, text: str) -> object:
    """The document's value, its nesting and size capped before the parser runs."""
    try:
        return read_json(file, text) if fmt == "json" else read_yaml(file, text)
    except DocumentError as error:
        raise SettingsFileError(str(error)) from None


def located(file: str, error: Invalid | Conflict) -> SettingsFileError:
    """A study's own refusal of the file's settings, each problem prefixed with the file."""
    return SettingsFileError("\n".join(f"{file}: {p}" for p in str(error).split("; ")))
