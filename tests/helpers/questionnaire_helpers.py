"""Questionnaires other than the default, for the tests of the analysis and the services: three
questions (tie, diverge, describe by choice) and six (two of each role, one describe a choice).
Written as a settings file would write them: nothing in the code knows these keys."""

from __future__ import annotations

from typing import Any

from annotate.questionnaire import Questionnaire, parse_questionnaire


def _question(key: str, role: str) -> dict[str, Any]:
    return {"key": key, "label": key.capitalize(), "text": f"How is the {key}?", "role": role}


THREE: Questionnaire = parse_questionnaire(
    {
        "questions": [
            _question("style", "tie"),
            _question("substance", "diverge"),
            {
                **_question("length", "describe"),
                "choices": ["too short", "about right", "too long"],
            },
        ]
    }
)
SIX: Questionnaire = parse_questionnaire(
    {
        "questions": [
            _question("clarity", "tie"),
            _question("tone", "tie"),
            _question("accuracy", "diverge"),
            _question("safety", "diverge"),
            _question("creativity", "describe"),
            {**_question("format", "describe"), "choices": ["prose", "list", "table", "code"]},
        ]
    }
)
STRONG = 1.6
"""A chosen - rejected effect (scale points) that diverges clearly on 40 pairs by 5 people."""
