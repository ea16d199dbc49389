"""Values from outside that no column, page or report can hold, found with their place.

Refused: NUL characters and lone surrogates in texts or keys (PostgreSQL and UTF-8 cannot store
them), binary data, NaN and infinities (unless the caller keeps them), integers outside 64 bits,
a key repeated in one object, nesting deeper than the caller allows. The JSON decoder hooks here
leave a marker (`Refused`, `RepeatedKey`) where such a value was, so the walk that finds it can
name the field that holds it instead of failing in the middle of the parser.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

MAX_INTEGER = 2**63
"""Integers must lie in [-MAX_INTEGER, MAX_INTEGER): what a 64-bit column and most JSON readers
keep exactly."""
MAX_INTEGER_DIGITS = 20
"""More digits than any 64-bit integer has: refused before `int()` reads them."""

_SURROGATE = re.compile("[\ud800-\udfff]")


class Refused:
    """A value the text spells but the caller may not keep, left by a decoder hook in its place;
    `value_problem` finds it and names the field that holds it."""

    __slots__ = ("message",)

    def __init__(self, message: str):
        self.message = message


class RepeatedKey(dict[str, Any]):
    """An object in which a key appears twice (the decoder keeps the last value)."""

    message = ""
    key = ""


def short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def field_name(key: str) -> str:
    """A key as it may be shown: at most 100 characters, escaped (`\\ud800`) when it holds what
    no page or terminal can print."""
    name = key[:100]
    return name if text_problem(name) is None else ascii(name)[1:-1]


def text_problem(text: str) -> str | None:
    """Why a text cannot be stored (NUL, a lone surrogate), or None."""
    if "\x00" in text:
        return "a text contains the NUL character (\\u0000); expected text without it"
    if _SURROGATE.search(text):
        return "a text contains a lone surrogate (e.g. \\ud800); expected valid Unicode"
    return None


def integer_problem(text: str) -> str | None:
    """Why a decimal integer spelt `text` cannot be kept (its digits are counted before
    `int()` reads them), or None."""
    if len(text.lstrip("+-")) > MAX_INTEGER_DIGITS or not -MAX_INTEGER <= int(text) < MAX_INTEGER:
        return too_large(text)
    return None


def too_large(text: str) -> str:
    return (
        f"the integer {short(text)} ({len(text.lstrip('+-'))} characters) is too large; "
        "expected a 64-bit integer (write larger numbers as strings)"
    )


def json_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """`object_pairs_hook`: a dict, or a `RepeatedKey` naming the first repeated key."""
    value = dict(pairs)
    if len(value) == len(pairs):
        return value
    repeated = RepeatedKey(value)
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            repeated.key = field_name(key)
            repeated.message = (
                f"the key {short(key)!r} appears twice in one object; expected each key once"
            )
            break
        seen.add(key)
    return repeated


def json_constant(name: str) -> Any:
    """`parse_constant`: NaN and the infinities are refused."""
    return Refused(f"{name} is not allowed; expected a finite number")


def json_float(text: str) -> float | Refused:
    """`parse_float`: 1e400 is refused, not read as infinity."""
    value = float(text)
    if not math.isfinite(value):
        return Refused(f"the number {short(text)} is out of range; expected a finite number")
    return value


def json_int(text: str) -> int | Refused:
    """`parse_int`: an integer outside 64 bits is refused before it is converted."""
    problem = integer_problem(text)
    return Refused(problem) if problem else int(text)


STRICT_JSON = json.JSONDecoder(
    object_pairs_hook=json_object,
    parse_float=json_float,
    parse_int=json_int,
    parse_constant=json_constant,
)
"""A JSON decoder that refuses repeated keys, NaN, the infinities, 1e400 and integers outside 64
bits (each decoded as a `Refused` or `RepeatedKey` marker, located by the caller's check)."""


def nesting_problem(max_depth: int) -> str:
    return f"nested too deeply; expected at most {max_depth} levels of lists and objects"


def scalar_problem(item: Any, finite_only: bool = True) -> str | None:
    """Why a decoded value that is not a text, list or object cannot be kept, or None."""
    if isinstance(item, Refused):
        return item.message
    if isinstance(item, bytes | bytearray | memoryview):
        return "binary data; expected text (store the column as a UTF-8 string)"
    if finite_only and isinstance(item, float) and not math.isfinite(item):
        return f"{item} is not allowed; expected a finite number"
    if isinstance(item, int) and not -MAX_INTEGER <= item < MAX_INTEGER:
        return "an integer is too large; expected a 64-bit integer"
    return None


def value_problem(value: Any, max_depth: int, finite_only: bool = True) -> tuple[str, str] | None:
    """The first place in `value` that cannot be kept, as (path such as `anchors.1` or
    `practice_pairs[0].question`, what is wrong), or None. Iterative: a deep value cannot
    exhaust the stack (readers cap nesting earlier; this is the last line)."""
    stack: list[tuple[Any, str, int]] = [(value, "", 1)]
    while stack:
        item, path, level = stack.pop()
        if isinstance(item, str):
            message = text_problem(item)
        elif isinstance(item, dict | list | tuple):
            message = _container_problem(item, path, level, max_depth, stack)
        else:
            message = scalar_problem(item, finite_only)
        if message:
            return (path or "(the whole file)", message)
    return None


def _container_problem(
    item: Any, path: str, level: int, max_depth: int, stack: list[tuple[Any, str, int]]
) -> str | None:
    if level > max_depth:
        return nesting_problem(max_depth)
    if isinstance(item, RepeatedKey):
        return item.message
    if isinstance(item, dict):
        for key, child in item.items():
            name = field_name(str(key))
            message = text_problem(key) if isinstance(key, str) else None
            if message:
                return f"the key '{name}': {message}"
            stack.append((child, f"{path}.{name}" if path else name, level + 1))
        return None
    stack.extend((child, f"{path}[{n}]", level + 1) for n, child in enumerate(item))
    return None
