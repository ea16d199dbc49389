"""The questionnaire as data (annotate.questionnaire): templates, round trips, located errors."""

from __future__ import annotations

import json
import re

import pytest

from annotate.questionnaire import (
    DEFAULT_QUESTIONNAIRE,
    TEMPLATES,
    QuestionRole,
    parse_questionnaire,
)
from annotate.vocabulary import DIMENSIONS, GENERAL_DIMENSIONS, PERSONAL_DIMENSION


def test_the_default_is_the_benchmarks_four_dimensions_with_their_roles() -> None:
    assert DEFAULT_QUESTIONNAIRE.keys == DIMENSIONS
    assert DEFAULT_QUESTIONNAIRE.tie_keys == GENERAL_DIMENSIONS
    assert DEFAULT_QUESTIONNAIRE.target == PERSONAL_DIMENSION
    assert parse_questionnaire("") is DEFAULT_QUESTIONNAIRE
    assert parse_questionnaire(None) is DEFAULT_QUESTIONNAIRE


@pytest.mark.parametrize("name", sorted(TEMPLATES))
def test_every_template_survives_its_stored_form(name: str) -> None:
    stored = json.loads(json.dumps(TEMPLATES[name].stored()))
    assert parse_questionnaire(stored) == TEMPLATES[name]
    assert parse_questionnaire(name) == TEMPLATES[name]


def test_rm_bench_ties_on_style_and_diverges_on_substance() -> None:
    rmbench = parse_questionnaire(
        {"template": "rmbench", "span_labels": [{"key": "error", "label": "Factual error"}]}
    )
    assert rmbench.tie_keys == ("style",)
    assert rmbench.diverge_keys == ("substance",)
    assert [s.label for s in rmbench.span_labels] == ["Factual error"]


def test_a_choice_question_describes_and_reads_its_words() -> None:
    questionnaire = parse_questionnaire(
        {
            "questions": [
                {
                    "key": "tone",
                    "label": "Tone",
                    "text": "Which tone?",
                    "choices": ["Formal", "Casual"],
                },
                {
                    "key": "overall",
                    "label": "Overall",
                    "text": "How good?",
                    "role": "diverge",
                    "points": [1, 2, 3],
                },
            ]
        }
    )
    tone = questionnaire.question("tone")
    assert tone.values == (1, 2)
    assert tone.word_for(2) == "Casual"
    assert questionnaire.question("overall").role is QuestionRole.DIVERGE
    assert questionnaire.describe_keys == ("tone",)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("likert", "questionnaire: expected a template's name"),
        ([1], "questionnaire: expected a template's name"),
        ({"questions": []}, "questionnaire: "),
        (
            {"questions": [{"key": "Bad", "label": "x", "text": "y"}]},
            "questionnaire.questions[0].key",
        ),
        (
            {"questions": [{"key": "a", "label": "x", "text": "y", "points": [1, 3]}]},
            "points: expected 2 to 11",
        ),
        (
            {"questions": [{"key": "a", "label": "x", "text": "y", "anchors": {"9": "z"}}]},
            "anchors",
        ),
        (
            {
                "questions": [
                    {"key": "a", "label": "x", "text": "y", "choices": ["p", "q"], "role": "tie"}
                ]
            },
            "choice question",
        ),
        ({"questions": [{"key": "a", "label": "x", "text": "y"}] * 2}, "each key once"),
        (
            {"questions": [{"key": "a", "label": "x", "text": "y", "role": "better"}]},
            "questionnaire.questions[0].role",
        ),
        (
            {"questions": [{"key": "a", "label": "x", "text": "y", "colour": 1}]},
            "questionnaire.questions[0].colour",
        ),
        ({"template": "prb", "questions": []}, "only 'span_labels'"),
    ],
)
def test_a_bad_questionnaire_says_where_and_what_was_expected(value: object, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_questionnaire(value)


@pytest.mark.parametrize("name", sorted(TEMPLATES))
def test_the_written_form_reads_back_as_the_same_questionnaire(name: str) -> None:
    assert parse_questionnaire(TEMPLATES[name].written()) == TEMPLATES[name]


def test_a_choice_question_is_written_without_a_scale() -> None:
    choice = {"key": "tone", "label": "Tone", "text": "Which?", "choices": ["Warm", "Cold"]}
    written = parse_questionnaire({"questions": [choice]}).written()
    assert written == {"questions": [choice]}
