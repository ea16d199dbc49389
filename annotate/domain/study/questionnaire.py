"""The questionnaire a study asks (annotate.questionnaire), read from the study's row."""

from __future__ import annotations

from annotate.db.tables import Study
from annotate.questionnaire import Questionnaire, parse_questionnaire


def questionnaire_of(study: Study) -> Questionnaire:
    """The study's questionnaire; a row written before it was stored reads as the default."""
    return parse_questionnaire(study.questionnaire or None)
