"""What a study's training is made of (issue 14, item 3), checked without a database.

A practice pair is a made-up pair, not a benchmark pair: its two responses are given as A and B,
with the answers the study expects to each question of its questionnaire and an explanation of
them, shown as feedback after the annotator's own attempt. A comprehension question has options
and the indices of the correct ones (one: a single choice; several: "choose all that apply"). The
study's number of attempts bounds the check; `training_problems` names every problem.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from annotate.questionnaire import Questionnaire
from annotate.vocabulary import COVERAGE_POINTS, PREFERENCE_POINTS, SIDES

MAX_PRACTICE_PAIRS = 20
MAX_QUESTIONS = 20
MAX_OPTIONS = 12
MAX_ATTEMPTS = 10
ITEM_ID = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$"

Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=20_000)]
ItemId = Annotated[str, StringConstraints(pattern=ITEM_ID)]

# Where an annotator is in a study's training.
PRACTICE = "practice"
CHECK = "check"
PASSED = "passed"
FAILED = "failed"
ENDED = (PASSED, FAILED)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class ProfilePost(_Strict):
    """An earlier post of the user, as in the benchmark's records (`id` optional)."""

    id: str = ""
    category: str = ""
    text: Text


class RubricAspect(_Strict):
    aspect: Text
    evidence: str = ""
    reason: str = ""


class PracticePair(_Strict):
    """A practice pair as the settings file and the study hold it."""

    id: ItemId
    question: Text
    category: str = ""
    narrative: str = ""
    profile: list[ProfilePost] = Field(default_factory=list)
    rubric_aspects: list[RubricAspect] = Field(default_factory=list)
    response_a: Text
    response_b: Text
    expected: dict[str, dict[str, int]] = Field(
        description="question key -> {'A': score, 'B': score}: the answers the study expects"
    )
    explanations: dict[str, str] = Field(
        default_factory=dict,
        description="question key (or 'aspects', 'preference') -> why (shown as feedback)",
    )
    expected_aspects: dict[str, list[int]] = Field(
        default_factory=dict,
        description="for a study with the aspect checklist: 'A' / 'B' -> the coverage (0-2) "
        "of each rubric aspect, in order",
    )
    expected_preference: int | None = Field(
        default=None,
        description="for a study with the direct preference: -2 A much better .. +2 B much better",
    )


class ComprehensionQuestion(_Strict):
    """A question about the task; `correct` holds the 0-based indices of the right options."""

    id: ItemId
    text: Text
    options: list[Text] = Field(min_length=2, max_length=MAX_OPTIONS)
    correct: list[int] = Field(min_length=1)


def training_problems(
    practice_pairs: object,
    questions: object,
    attempts: object,
    questionnaire: Questionnaire,
) -> list[str]:
    """Everything wrong with a study's training settings, each naming the item and field."""
    problems = _list_problems(
        "practice pair", practice_pairs, PracticePair, MAX_PRACTICE_PAIRS, questionnaire
    )
    problems += _list_problems(
        "comprehension question", questions, ComprehensionQuestion, MAX_QUESTIONS, questionnaire
    )
    if not isinstance(attempts, int) or isinstance(attempts, bool):
        problems.append("comprehension attempts: expected a whole number")
    elif not 1 <= attempts <= MAX_ATTEMPTS:
        problems.append(f"comprehension attempts: expected 1 to {MAX_ATTEMPTS}, not {attempts}")
    return problems


def _list_problems(
    what: str,
    items: object,
    model: type[PracticePair] | type[ComprehensionQuestion],
    limit: int,
    questionnaire: Questionnaire,
) -> list[str]:
    if not isinstance(items, list):
        return [f"{what}s: expected a list"]
    problems = [f"{what}s: at most {limit}, not {len(items)}"] if len(items) > limit else []
    seen: set[str] = set()
    for number, item in enumerate(items, 1):
        name = item.get("id") if isinstance(item, dict) else None
        where = f"{what} {number}" + (f" ({name!r})" if isinstance(name, str) else "")
        try:
            parsed = model.model_validate(item)
        except ValidationError as error:
            problems += [f"{where}, {located}" for located in validation_messages(error)]
            continue
        item_id = parsed.id
        if item_id in seen:
            problems.append(f"{where}, field 'id': {item_id!r} is used twice")
        seen.add(item_id)
        if isinstance(parsed, PracticePair):
            problems += [f"{where}, {p}" for p in _practice_problems(parsed, questionnaire)]
        elif isinstance(parsed, ComprehensionQuestion):
            problems += [f"{where}, {p}" for p in _question_problems(parsed)]
    return problems


def _practice_problems(pair: PracticePair, questionnaire: Questionnaire) -> list[str]:
    problems = []
    if not pair.expected:
        problems.append("field 'expected': expected the scores of at least one question")
    for dim, by_side in pair.expected.items():
        if dim not in questionnaire.keys:
            keys = ", ".join(questionnaire.keys)
            problems.append(f"field 'expected.{dim}': expected one of {keys}")
            continue
        if sorted(by_side) != sorted(SIDES):
            problems.append(f"field 'expected.{dim}': expected the scores of A and B")
        values = questionnaire.question(dim).values
        for side, score in by_side.items():
            if side in SIDES and score not in values:
                problems.append(
                    f"field 'expected.{dim}.{side}': expected a score from {values[0]} to "
                    f"{values[-1]}, not {score}"
                )
    problems += _expected_answer_problems(pair)
    for dim in pair.explanations:
        if dim not in pair.expected and not _explains_an_answer(pair, dim):
            problems.append(f"field 'explanations.{dim}': explains no expected score")
    return problems


def _explains_an_answer(pair: PracticePair, key: str) -> bool:
    return (key == "aspects" and bool(pair.expected_aspects)) or (
        key == "preference" and pair.expected_preference is not None
    )


def _expected_answer_problems(pair: PracticePair) -> list[str]:
    """The expected aspect marks and preference, when given (issue 22.8)."""
    problems = []
    if pair.expected_aspects:
        n = len(pair.rubric_aspects)
        if sorted(pair.expected_aspects) != sorted(SIDES):
            problems.append("field 'expected_aspects': expected the marks of A and B")
        for side, marks in pair.expected_aspects.items():
            if len(marks) != n or any(m not in COVERAGE_POINTS for m in marks):
                problems.append(
                    f"field 'expected_aspects.{side}': expected {n} marks from 0 to 2 (one "
                    "per rubric aspect)"
                )
    if pair.expected_preference is not None and pair.expected_preference not in PREFERENCE_POINTS:
        problems.append("field 'expected_preference': expected -2 to 2")
    return problems


def _question_problems(question: ComprehensionQuestion) -> list[str]:
    problems = []
    if len(set(question.options)) != len(question.options):
        problems.append("field 'options': expected distinct options")
    wrong = [i for i in question.correct if not 0 <= i < len(question.options)]
    if wrong:
        problems.append(
            f"field 'correct': expected indices of options (0 to {len(question.options) - 1}), "
            f"not {wrong}"
        )
    elif len(set(question.correct)) != len(question.correct):
        problems.append("field 'correct': an index is given twice")
    return problems


def validation_messages(error: ValidationError) -> list[str]:
    """pydantic's errors as "field 'a.b[0]': expected ..., got ...", one per problem."""
    located = []
    for item in error.errors():
        path = field_path(item["loc"])
        got = item.get("input")
        shown = f", got {got!r}" if not isinstance(got, dict | list) else ""
        if item["type"] == "missing":
            located.append(f"field '{path}': missing")
        elif item["type"] == "extra_forbidden":
            located.append(f"field '{path}': unknown field")
        else:
            located.append(f"field '{path}': expected {_expected(item['msg'])}{shown}")
    return located


def field_path(loc: tuple[Any, ...]) -> str:
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path


def _expected(message: str) -> str:
    """pydantic's 'Input should be a valid integer' -> 'a valid integer'."""
    return re.sub(r"^(Input should be|Value should have|String should have)\s+", "", message)
