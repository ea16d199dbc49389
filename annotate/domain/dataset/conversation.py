"""Conversations as turns, and the canonical pair every input shape is turned into.

A pair's `conversation` holds the turns *before* the compared responses, each
`{"role": "user" | "assistant" | "system", "content": str}`; it is empty for a single-turn pair
(one user turn: its `question`), so every pair imported before conversations existed keeps its
content hash. The question is always the conversation's last user turn.

`ShapeProblems` collects what is wrong with one input record (field, what was expected), so
that every shape reports like the benchmark's own records do.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from pydantic_core import to_json

from annotate.domain.dataset.strict_json import describe_type

ROLES = ("user", "assistant", "system")
Turn = dict[str, str]


class ShapeProblems(Exception):
    """What is wrong with one input record: (field path, what was expected) each."""

    def __init__(self, found: list[tuple[str, str]]):
        self.found = found
        super().__init__("; ".join(f"{f}: {m}" for f, m in found))


@dataclass
class Canonical:
    """One pair from an input record, in the benchmark's terms (`record`: the fields of
    `records.BenchmarkRecord`, extra fields kept), with its conversation, the domain the
    record itself names (None: from the file) and, for a pair drawn among several from one
    record, (the record's id, this pair's index, how many there are)."""

    record: dict[str, Any]
    conversation: list[Turn] = field(default_factory=list)
    domain: str | None = None
    draw: tuple[str, int, int] | None = None


@dataclass
class Exchange:
    """A conversation and the two responses that end it."""

    turns: list[Turn]
    chosen: str
    rejected: str


def _turns(value: Any, where: str, problems: list[tuple[str, str]]) -> list[Turn]:
    """`value` as a list of turns; its problems added to `problems` (located in `where`)."""
    if not isinstance(value, list):
        problems.append((where, f"expected a list of messages, got {describe_type(value)}"))
        return []
    turns: list[Turn] = []
    for index, message in enumerate(value):
        at = f"{where}[{index}]"
        if not isinstance(message, dict):
            expected = "expected a message {role, content}"
            problems.append((at, f"{expected}, got {describe_type(message)}"))
            continue
        role, content = message.get("role"), message.get("content")
        if role not in ROLES:
            shown = repr(role)[:40] if isinstance(role, str) else describe_type(role)
            problems.append((f"{at}.role", f"expected one of {', '.join(ROLES)}, got {shown}"))
        if not isinstance(content, str):
            problems.append((f"{at}.content", f"expected a string, got {describe_type(content)}"))
        if isinstance(role, str) and isinstance(content, str):
            turns.append({"role": role, "content": content})
    return turns


def _response(value: Any, where: str, problems: list[tuple[str, str]]) -> tuple[list[Turn], str]:
    """A compared response: text, or a message list whose last turn (the assistant's) is it."""
    if isinstance(value, str):
        return [], value
    before = len(problems)
    turns = _turns(value, where, problems)
    if len(problems) > before:
        return [], ""
    if not turns or turns[-1]["role"] != "assistant":
        problems.append((where, "expected the last message to be the assistant's response"))
        return [], ""
    return turns[:-1], turns[-1]["content"]


def exchange(
    prompt: Any, chosen: Any, rejected: Any, names: dict[str, str] | None = None
) -> Exchange:
    """The conversation and responses of a preference record: `prompt` text, a message list or
    None; `chosen` and `rejected` texts, or message lists whose last assistant turn is the
    compared response and whose earlier turns continue the prompt (the same in both).

    `names` renames the fields in the problems ("prompt" -> the input's own field). Raises
    ShapeProblems.
    """
    name = {"prompt": "prompt", "chosen": "chosen", "rejected": "rejected", **(names or {})}
    problems: list[tuple[str, str]] = []
    if isinstance(chosen, str) != isinstance(rejected, str):
        expected = "expected the same kind as chosen (both texts or both message lists)"
        raise ShapeProblems([(name["rejected"], expected)])
    before_chosen, chosen_text = _response(chosen, name["chosen"], problems)
    before_rejected, rejected_text = _response(rejected, name["rejected"], problems)
    if not problems and before_chosen != before_rejected:
        problems.append(
            (
                name["rejected"],
                "its turns before the last assistant response differ from chosen's; "
                "expected the same conversation",
            )
        )
    if prompt is None:
        opening: list[Turn] = []
    elif isinstance(prompt, str):
        opening = [{"role": "user", "content": prompt}]
    else:
        opening = _turns(prompt, name["prompt"], problems)
    if problems:
        raise ShapeProblems(problems)
    # Some sets repeat the prompt as the message lists' first turns (UltraFeedback binarized):
    # the lists then hold the whole conversation.
    repeated = opening and before_chosen[: len(opening)] == opening
    turns = before_chosen if repeated else opening + before_chosen
    if not turns or turns[-1]["role"] != "user":
        expected = (
            "missing; this field is required (text or messages)"
            if not turns
            else "expected the conversation to end with a user turn"
        )
        raise ShapeProblems([(name["prompt"], expected)])
    return Exchange(turns, chosen_text, rejected_text)


def stored_conversation(turns: list[Turn]) -> list[Turn]:
    """What `pair.conversation` keeps: nothing for one user turn (the question says it all)."""
    return [] if len(turns) == 1 else turns


def stable_id(turns: list[Turn], chosen: str, rejected: str) -> str:
    """An id for a record without one, from its content: the same content, the same id."""
    digest = hashlib.sha256(to_json([turns, chosen, rejected])).hexdigest()
    return f"sha256-{digest[:16]}"


def canonical_record(
    record_id: str, found: Exchange, extra: dict[str, Any], **fields: str
) -> dict[str, Any]:
    """The benchmark record of a pair from another shape: no profile or rubric; `fields` may
    give category and narrative. Extra fields named like the record's own get a `source_`
    prefix rather than replace them."""
    record: dict[str, Any] = {
        "id": record_id,
        "question": found.turns[-1]["content"],
        "profile": [],
        "rubric_aspects": [],
        "narrative": fields.get("narrative", ""),
        "category": fields.get("category", ""),
        "chosen": found.chosen,
        "rejected": found.rejected,
    }
    for key, value in extra.items():
        record[f"source_{key}" if key in record or key == "conversation" else key] = value
    return record
