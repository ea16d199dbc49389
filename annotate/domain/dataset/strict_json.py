"""Decoding one record's JSON strictly: values a record may not hold become located problems.

Refused: nesting deeper than MAX_NESTING, a key repeated in one object (the decoder would keep
the last value silently), NaN and infinities (unless the caller keeps them, as the reward-model
import does), integers outside 64 bits, NUL characters and lone surrogates in texts or keys, and
binary data. `describe_type` names a decoded value's type in the words of the error messages.
"""

from __future__ import annotations

import json
import re
from typing import Any

from annotate.domain.dataset.problems import DatasetError, Problem, ProblemLog
from annotate.domain.untrusted.values import (
    MAX_INTEGER,
    STRICT_JSON,
    RepeatedKey,
    field_name,
    json_int,
    json_object,
    nesting_problem,
    scalar_problem,
    text_problem,
)

__all__ = [
    "MAX_INTEGER",
    "MAX_NESTING",
    "check_value",
    "decode_record",
    "describe_type",
    "field_name",
]

MAX_NESTING = 32
"""Deepest nesting of lists and objects a record may have (the record itself is level 1)."""

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}:]')

# For files where a non-finite number is data to count, not an error (a reward model's NaN
# score): NaN, Infinity and 1e400 decode to floats.
_NON_FINITE_DECODER = json.JSONDecoder(object_pairs_hook=json_object, parse_int=json_int)


def _nesting_problem() -> str:
    return nesting_problem(MAX_NESTING)


def check_value(value: Any, finite_only: bool = True) -> tuple[str | None, str] | None:
    """Why a decoded record cannot be stored, as (top-level field or None, message); None if
    it can. Refused: nesting deeper than MAX_NESTING, NUL characters and lone surrogates in
    texts or keys (PostgreSQL and UTF-8 cannot store them), binary data, NaN and infinities,
    integers outside 64 bits."""
    if isinstance(value, RepeatedKey):
        return (value.key, value.message)
    if isinstance(value, dict):
        for key, item in value.items():
            message = text_problem(key) if isinstance(key, str) else None
            message = message or _walk(item, 2, finite_only)
            if message:
                return (field_name(str(key)), message)
        return None
    message = _walk(value, 1, finite_only)
    return (None, message) if message else None


def _walk(value: Any, depth: int, finite_only: bool) -> str | None:
    """The first reason `value` (at nesting level `depth`) cannot be stored, or None.

    Iterative (a deep value cannot exhaust the stack) and run on every record, so the common
    cases are tested first: plain texts (`isascii` is O(1)), lists and objects.
    """
    stack = [(value, depth)]
    while stack:
        item, level = stack.pop()
        kind = type(item)
        if kind is str:
            if "\x00" in item or not item.isascii():
                message = text_problem(item)
                if message:
                    return message
            continue
        if kind is list or kind is dict or kind is tuple or isinstance(item, dict | list):
            if level > MAX_NESTING:
                return _nesting_problem()
            if isinstance(item, RepeatedKey):
                return item.message
            if isinstance(item, dict):
                message = _keys_problem(item)
                if message:
                    return message
                item = item.values()
            stack.extend([(child, level + 1) for child in item])
            continue
        message = scalar_problem(item, finite_only)
        if message:
            return message
    return None


def _keys_problem(item: dict[Any, Any]) -> str | None:
    for key in item:
        if type(key) is str and ("\x00" in key or not key.isascii()):
            message = text_problem(key)
            if message:
                return message
    return None


def _deep_field(text: str) -> str | None:
    """The top-level key under which `text` (a JSON object) nests deeper than MAX_NESTING, for
    a record too deep for the decoder itself."""
    depth, key, last_text = 0, None, None
    for token in _TOKEN.finditer(text):
        mark = token.group()
        if mark in "[{":
            depth += 1
            if depth > MAX_NESTING:
                return key
        elif mark in "]}":
            depth -= 1
        elif mark == ":" and depth == 1 and last_text is not None:
            key = field_name(json.loads(last_text))
        last_text = mark if mark.startswith('"') else None
    return None


def decode_record(
    file: str, location: str, text: str, line: int = 1, column: int = 1, finite_only: bool = True
) -> Any:
    """Decode one record's JSON text strictly: a value, or a located `Problem` for a value
    that cannot be kept; DatasetError for text that is not JSON. `line` and `column` say where
    the text starts in its file (for the location of a syntax error)."""
    try:
        value = (STRICT_JSON if finite_only else _NON_FINITE_DECODER).decode(text)
    except RecursionError:
        return Problem(file, location, _nesting_problem(), field=_deep_field(text))
    except json.JSONDecodeError as error:
        at_line = line + error.lineno - 1
        at_column = error.colno + (column - 1 if error.lineno == 1 else 0)
        raise DatasetError(
            [Problem(file, f"line {at_line}, column {at_column}", f"invalid JSON: {error.msg}")]
        ) from None
    found = check_value(value, finite_only)
    if found is not None:
        return Problem(file, location, found[1], field=found[0])
    return value


_TYPE_WORDS = {
    "NoneType": "null",
    "str": "a string",
    "int": "a number",
    "float": "a number",
    "dict": "an object",
    "list": "a list",
    "bool": "true/false",
}


def describe_type(value: Any) -> str:
    """What a decoded JSON value is, in the words of the error messages ("a string", "null")."""
    name = type(value).__name__
    return _TYPE_WORDS.get(name, name)


def record_with_id(
    log: ProblemLog, file: str, location: str, value: Any, whose: str
) -> dict[str, Any] | None:
    """`value` when it is a JSON object with a non-empty string `id` (`whose` id: "the
    pair's"); else None, with the problem logged at `location`."""
    if not isinstance(value, dict):
        log.add(Problem(file, location, f"expected a JSON object, got {describe_type(value)}"))
        return None
    record_id = value.get("id")
    if not isinstance(record_id, str) or not record_id:
        got = describe_type(record_id)
        log.add(Problem(file, location, f"expected {whose} id as a string, got {got}", "id"))
        return None
    return value
