"""The questionnaire a report was built with: what every renderer, table and design option
reads the questions, their labels and roles from (never a list of its own)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from annotate.questionnaire import DEFAULT_QUESTIONNAIRE, Questionnaire, parse_questionnaire


def report_questionnaire(report: Mapping[str, Any]) -> Questionnaire:
    """The report's questionnaire: the one it stores, else the default (a report of the
    default questionnaire stores none, so that it reads byte for byte as before)."""
    return parse_questionnaire(report.get("questionnaire"))


def target_of(report: Mapping[str, Any]) -> str | None:
    """The report's target question (the first ``diverge``); None without one."""
    return report_questionnaire(report).target


def question_keys(report: Mapping[str, Any]) -> list[str]:
    """The report's scale questions (its ``dimensions``), in the questionnaire's order."""
    return list(report["dimensions"])


def tie_keys(report: Mapping[str, Any]) -> tuple[str, ...]:
    """The report's ``tie`` questions, in order."""
    return report_questionnaire(report).tie_keys


def target_key(questionnaire: Questionnaire) -> str:
    """The target question's key (the first ``diverge``); ValueError without one."""
    if questionnaire.target is None:
        raise ValueError("the questionnaire has no 'diverge' question: no target to read")
    return questionnaire.target


def target_key_of(report: Mapping[str, Any]) -> str:
    """The report's target question; ValueError for a questionnaire without one."""
    return target_key(report_questionnaire(report))


DEFAULT_TARGET = target_key(DEFAULT_QUESTIONNAIRE)


def verdict_claims(report: Mapping[str, Any]) -> tuple[str, str]:
    """What the study verdict claims, in two parts: the ``tie`` questions tie, the ``diverge``
    questions diverge (the default questionnaire's words for it: general quality, rubric
    alignment)."""
    questionnaire = report_questionnaire(report)
    ties = ", ".join(questionnaire.tie_keys) or "none"
    if questionnaire == DEFAULT_QUESTIONNAIRE:
        return f"General quality ties ({ties})", "Rubric alignment diverges"
    diverges = ", ".join(questionnaire.diverge_keys) or "none"
    return f"Every tie question ties ({ties})", f"Every diverge question diverges ({diverges})"


def as_reported(questionnaire: Questionnaire) -> Questionnaire:
    """The questionnaire a report is built with: the default for one asking the benchmark's
    questions (its keys, roles and kinds of answer, whatever their labels, texts or scale), so
    that the report of every study made before questionnaires existed reads byte for byte as
    it did (issue 35.1); any other as it is."""

    def shape(asked: Questionnaire) -> list[tuple[str, str, bool]]:
        return [(q.key, q.role.value, q.is_scale) for q in asked.questions]

    return (
        DEFAULT_QUESTIONNAIRE
        if shape(questionnaire) == shape(DEFAULT_QUESTIONNAIRE)
        else questionnaire
    )
