"""The questionnaire a study asks (annotate.questionnaire), read from the study's row, and a
questionnaire as a person writes it: a template's name, or a YAML or JSON text (the Studies
page's box, a file given to the CLI)."""

from __future__ import annotations

from typing import Any

import yaml

from annotate.db.tables import Study
from annotate.domain.untrusted.documents import DocumentError, read_yaml
from annotate.errors import Invalid
from annotate.questionnaire import TEMPLATES, Questionnaire, parse_questionnaire


class QuestionnaireError(Invalid):
    """A questionnaire text that cannot be read: where, and what was expected."""


def questionnaire_of(study: Study) -> Questionnaire:
    """The study's questionnaire; a row written before it was stored reads as the default."""
    return parse_questionnaire(study.questionnaire or None)


def read_questionnaire(source: str, text: str) -> Questionnaire:
    """A questionnaire from a YAML (or JSON: YAML reads it) text named `source`: a template's
    name, `{template, span_labels}` or `{questions, span_labels}`; a QuestionnaireError names
    the source and the line or field (`questionnaire.questions[2].points: ...`)."""
    if text.strip() in TEMPLATES:
        return TEMPLATES[text.strip()]
    try:
        value: Any = read_yaml(source, text)
    except DocumentError as error:
        raise QuestionnaireError(str(error)) from None
    if isinstance(value, dict) and set(value) == {"questionnaire"}:
        value = value["questionnaire"]  # a settings file's field, pasted whole
    try:
        return parse_questionnaire(value)
    except ValueError as error:
        raise QuestionnaireError(f"{source}, {error}") from None


def questionnaire_text(questionnaire: Questionnaire) -> str:
    """The questionnaire as YAML, as `read_questionnaire` reads it back."""
    return str(yaml.safe_dump(questionnaire.written(), sort_keys=False, allow_unicode=True))


def template_name(questionnaire: Questionnaire) -> str | None:
    """The template the questionnaire is, if it is one unchanged."""
    return next((name for name, t in TEMPLATES.items() if t == questionnaire), None)
