"""A study's questionnaire as data: what each response is asked, on which scale, and what the
verdict expects of it.

Every question has a role in the verdict: ``tie`` (chosen and rejected expected equal within the
margin), ``diverge`` (the chosen response expected better by more than the smallest effect of
interest) or ``describe`` (reported, no hypothesis). The study's verdict holds when every ``tie``
question ties and every ``diverge`` question diverges. The first ``diverge`` question is the
*target*: the one the human-accuracy headline and the reward-model comparison read.

A questionnaire is written once (the settings file, the Studies page or the CLI give it as a
mapping or a template's name) and stored on the study as the mapping :meth:`Questionnaire.stored`
returns. The default is this benchmark's four dimensions, so a study that never named one reads
exactly as before.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator, model_validator

from annotate.vocabulary import (
    DEFAULT_ANCHORS,
    DIMENSION_DEFINITIONS,
    DIMENSION_LABELS,
    DIMENSIONS,
    GENERAL_DIMENSIONS,
    PERSONAL_DIMENSION,
    SCALE_MAX,
    SCALE_MIN,
)

KEY_PATTERN = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
MAX_QUESTIONS = 12
MAX_SPAN_LABELS = 8


def _checked_key(key: str) -> str:
    if not KEY_PATTERN.match(key):
        raise ValueError(
            "expected a lower-case name of letters, digits and '_' starting with a letter "
            f"(at most 40 characters), got {key!r}"
        )
    return key


class QuestionRole(StrEnum):
    """What the verdict expects of one question."""

    TIE = "tie"
    DIVERGE = "diverge"
    DESCRIBE = "describe"


QUESTION_ROLES: tuple[str, ...] = tuple(r.value for r in QuestionRole)


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Question(_Frozen):
    """One question asked of each response: a scale (``points`` with ``anchors``) or, for a
    ``describe`` question only, a ``choices`` list (stored as the choice's position, 1-based)."""

    key: str
    label: str
    text: str
    points: tuple[int, ...] = tuple(range(SCALE_MIN, SCALE_MAX + 1))
    anchors: dict[int, str] = {}
    choices: tuple[str, ...] = ()
    role: QuestionRole = QuestionRole.DESCRIBE

    _key = field_validator("key")(lambda key: _checked_key(key))

    @field_validator("label", "text")
    @classmethod
    def _words(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("expected some words, got an empty text")
        return value.strip()

    @model_validator(mode="after")
    def _scale_or_choices(self) -> Question:
        if self.choices:
            if len(self.choices) < 2 or len(set(self.choices)) != len(self.choices):
                raise ValueError("choices: expected at least two different choices")
            if self.role is not QuestionRole.DESCRIBE:
                raise ValueError("role: a choice question can only be 'describe'")
            return self
        points = self.points
        consecutive = all(b == a + 1 for a, b in itertools.pairwise(points))
        if not 2 <= len(points) <= 11 or not consecutive:
            raise ValueError(
                f"points: expected 2 to 11 consecutive whole numbers, got {list(points)!r}"
            )
        unknown = sorted(set(self.anchors) - set(points))
        if unknown:
            raise ValueError(f"anchors: {unknown!r} are not points of the scale")
        return self

    @property
    def is_scale(self) -> bool:
        return not self.choices

    @property
    def values(self) -> tuple[int, ...]:
        """The stored values an answer may take: the scale's points, or 1..len(choices)."""
        return self.points if self.is_scale else tuple(range(1, len(self.choices) + 1))

    def word_for(self, value: int) -> str:
        """What a stored value says: its anchor word or choice, else the number itself."""
        if not self.is_scale:
            return self.choices[value - 1]
        return self.anchors.get(value, str(value))


class SpanLabel(_Frozen):
    """A label an annotator may put on a stretch of a response (e.g. "breaks the rubric")."""

    key: str
    label: str

    _key = field_validator("key")(lambda key: _checked_key(key))


class Questionnaire(_Frozen):
    """The questions of a study, in the order they are asked, and its span labels."""

    questions: tuple[Question, ...]
    span_labels: tuple[SpanLabel, ...] = ()

    @model_validator(mode="after")
    def _unique(self) -> Questionnaire:
        if not 1 <= len(self.questions) <= MAX_QUESTIONS:
            raise ValueError(f"questions: expected 1 to {MAX_QUESTIONS} questions")
        keys = [q.key for q in self.questions]
        if len(set(keys)) != len(keys):
            raise ValueError(f"questions: each key once, got {keys!r}")
        if len(self.span_labels) > MAX_SPAN_LABELS:
            raise ValueError(f"span_labels: at most {MAX_SPAN_LABELS}")
        spans = [s.key for s in self.span_labels]
        if len(set(spans)) != len(spans):
            raise ValueError(f"span_labels: each key once, got {spans!r}")
        return self

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(q.key for q in self.questions)

    def with_role(self, role: QuestionRole) -> tuple[str, ...]:
        return tuple(q.key for q in self.questions if q.role is role)

    @property
    def tie_keys(self) -> tuple[str, ...]:
        return self.with_role(QuestionRole.TIE)

    @property
    def diverge_keys(self) -> tuple[str, ...]:
        return self.with_role(QuestionRole.DIVERGE)

    @property
    def describe_keys(self) -> tuple[str, ...]:
        return self.with_role(QuestionRole.DESCRIBE)

    @property
    def target(self) -> str | None:
        """The first ``diverge`` question: the one human accuracy and the models are read on."""
        diverge = self.diverge_keys
        return diverge[0] if diverge else None

    @property
    def labels(self) -> dict[str, str]:
        return {q.key: q.label for q in self.questions}

    def question(self, key: str) -> Question:
        for question in self.questions:
            if question.key == key:
                return question
        raise KeyError(key)

    @property
    def scale_question(self) -> Question | None:
        """The question whose scale the analysis plan reads: the target, else the first scale
        question (None for a questionnaire of choices only)."""
        scales = [q for q in self.questions if q.is_scale]
        return next((q for q in scales if q.key == self.target), scales[0] if scales else None)

    @property
    def scale(self) -> tuple[int, int]:
        """The lowest and highest point of `scale_question`'s scale ((1, 2) without one)."""
        first = self.scale_question
        return (first.points[0], first.points[-1]) if first else (1, 2)

    def stored(self) -> dict[str, Any]:
        """The mapping kept on the study (JSON-safe, every field)."""
        return self.model_dump(mode="json", exclude_defaults=False)

    def written(self) -> dict[str, Any]:
        """The mapping as a person writes it (the Studies page's box): fields at their
        defaults left out, and a choice question's unused scale; read back, the same
        questionnaire."""
        questions = []
        for question in self.questions:
            fields = question.model_dump(mode="json", exclude_defaults=True)
            if question.choices:
                fields.pop("points", None)
                fields.pop("anchors", None)
            questions.append({"key": question.key, **fields})
        written: dict[str, Any] = {"questions": questions}
        if self.span_labels:
            written["span_labels"] = [s.model_dump(mode="json") for s in self.span_labels]
        return written


def prb_with(
    labels: Mapping[str, str],
    texts: Mapping[str, str],
    points: tuple[int, ...],
    anchors: Mapping[int, str],
) -> Questionnaire:
    """This benchmark's four dimensions (their roles fixed) with a study's own labels, texts,
    scale and anchor words; a dimension without a label or text keeps the default one."""
    role = dict.fromkeys(GENERAL_DIMENSIONS, QuestionRole.TIE)
    role[PERSONAL_DIMENSION] = QuestionRole.DIVERGE
    return Questionnaire(
        questions=tuple(
            Question(
                key=key,
                label=labels.get(key) or DIMENSION_LABELS[key],
                text=texts.get(key) or DIMENSION_DEFINITIONS[key],
                points=points,
                anchors=dict(anchors),
                role=role[key],
            )
            for key in DIMENSIONS
        )
    )


def _prb() -> Questionnaire:
    points = tuple(range(SCALE_MIN, SCALE_MAX + 1))
    return prb_with(DIMENSION_LABELS, DIMENSION_DEFINITIONS, points, DEFAULT_ANCHORS)


def _rmbench() -> Questionnaire:
    return Questionnaire(
        questions=(
            Question(
                key="style",
                label="Style and presentation",
                text="How clear, well organised and well formatted is the response, whatever "
                "its content?",
                anchors=DEFAULT_ANCHORS,
                role=QuestionRole.TIE,
            ),
            Question(
                key="substance",
                label="Correctness and substance",
                text="Is what the response says correct, and does it do what was asked?",
                anchors=DEFAULT_ANCHORS,
                role=QuestionRole.DIVERGE,
            ),
        )
    )


def _pairwise() -> Questionnaire:
    return Questionnaire(
        questions=(
            Question(
                key="overall",
                label="Overall quality",
                text="All things considered, how good is this response to the prompt?",
                anchors=DEFAULT_ANCHORS,
                role=QuestionRole.DIVERGE,
            ),
        )
    )


TEMPLATES: dict[str, Questionnaire] = {
    "prb": _prb(),
    "rmbench": _rmbench(),
    "pairwise": _pairwise(),
}
"""Questionnaires that ship: this benchmark's four dimensions (the default), RM-Bench's (style
ties, substance diverges) and a plain pairwise preference study."""
DEFAULT_TEMPLATE = "prb"
DEFAULT_QUESTIONNAIRE = TEMPLATES[DEFAULT_TEMPLATE]


def parse_questionnaire(value: object) -> Questionnaire:
    """A questionnaire from what a person wrote: a template's name, a mapping with
    ``template`` (optionally with ``span_labels``), or a full mapping of ``questions`` (and
    ``span_labels``). An empty value is the default. Raises ValueError naming the field and what
    was expected."""
    if value is None or value == "" or value == {}:
        return DEFAULT_QUESTIONNAIRE
    if isinstance(value, str):
        return _template(value)
    if not isinstance(value, Mapping):
        raise ValueError(
            "questionnaire: expected a template's name "
            f"({', '.join(TEMPLATES)}) or a mapping of questions, got {type(value).__name__}"
        )
    fields = dict(value)
    if "template" in fields:
        base = _template(fields.pop("template"))
        if set(fields) - {"span_labels"}:
            raise ValueError("questionnaire: with 'template', only 'span_labels' may be given")
        fields = {**base.stored(), **fields}
    try:
        return Questionnaire.model_validate(fields)
    except ValidationError as error:
        raise ValueError(_located(error)) from None


def _template(name: object) -> Questionnaire:
    if not isinstance(name, str) or name.strip() not in TEMPLATES:
        raise ValueError(
            f"questionnaire: expected a template's name ({', '.join(TEMPLATES)}), got {name!r}"
        )
    return TEMPLATES[name.strip()]


def _located(error: ValidationError) -> str:
    """Pydantic's first error as 'questionnaire.questions[2].points: what was expected'."""
    first = error.errors()[0]
    path = "questionnaire"
    for part in first["loc"]:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    message = str(first["msg"]).removeprefix("Value error, ")
    return f"{path}: {message}"
