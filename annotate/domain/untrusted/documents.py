"""JSON and YAML documents from outside, read with their nesting and size capped before the
parser can recurse: a located `DocumentError` ("file, line 3, column 7: ..." or "file, field
'a.b[0]': ...") instead of a RecursionError, minutes of CPU or a silently kept duplicate.

JSON: a scan of the text's brackets, commas and colons (outside strings) refuses nesting deeper
than the cap and more values than the node limit before `json` decodes it; the decoder's hooks
refuse huge integers, NaN, infinities and repeated keys.
YAML: the document is built from the parser's events (libyaml's C parser when installed, which
does not recurse), stopping at the first event deeper than the cap or past the node limit;
aliases, tags other than the plain ones, repeated keys and several documents are refused, and an
integer's digits are counted before `int()` reads them. Both then check every text and number
(`annotate.domain.untrusted.values.value_problem`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from annotate.domain.untrusted.values import (
    MAX_INTEGER_DIGITS,
    STRICT_JSON,
    field_name,
    nesting_problem,
    short,
    too_large,
    value_problem,
)
from annotate.errors import Invalid

MAX_DEPTH = 32
"""Deepest nesting of lists and objects a document may have (the document itself is level 1)."""
MAX_NODES = 50_000
"""Most values (texts, numbers, lists, objects) a YAML document may hold."""

# A text's body is matched as runs between escapes ("unrolled"): an alternation repeated per
# character would keep a backtracking frame per character (a 4.9 MB text cost 630 MB).
_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{},:]')
_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_INT_TAG = "tag:yaml.org,2002:int"
_PLAIN_TAGS = {None, "!", "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"}


class DocumentError(Invalid):
    """A document that cannot be read; the message names the file and the place."""


def read_json(file: str, text: str, max_depth: int = MAX_DEPTH, max_nodes: int = MAX_NODES) -> Any:
    """The value of a JSON document (see the module's docstring)."""
    depth = values = 0
    for token in _TOKENS.finditer(text):
        mark = token.group()
        if mark in "[{":
            depth += 1
            if depth > max_depth:
                raise DocumentError(
                    f"{file}, {_where(text, token.start())}: {nesting_problem(max_depth)}"
                )
        elif mark in "]}":
            depth -= 1
        elif mark in ",:":  # a value follows each, but the first of a list or an object: a
            values += 1  # key and its value count as two, as in a YAML document
            if values > max_nodes:
                raise DocumentError(
                    f"{file}, {_where(text, token.start())}: "
                    f"more than {max_nodes:,} values; expected fewer"
                )
    try:
        value = STRICT_JSON.decode(text)
    except json.JSONDecodeError as error:
        raise DocumentError(
            f"{file}, line {error.lineno}, column {error.colno}: not valid JSON ({error.msg})"
        ) from None
    return _checked(file, value, max_depth)


def _where(text: str, offset: int) -> str:
    line = text.count("\n", 0, offset) + 1
    return f"line {line}, column {offset - (text.rfind(chr(10), 0, offset) + 1) + 1}"


def _checked(file: str, value: Any, max_depth: int) -> Any:
    found = value_problem(value, max_depth)
    if found is not None:
        raise DocumentError(f"{file}, field '{found[0]}': {found[1]}")
    return value


def read_yaml(file: str, text: str, max_depth: int = MAX_DEPTH, max_nodes: int = MAX_NODES) -> Any:
    """The value of a YAML document (see the module's docstring); an empty document is None."""
    loader = _LOADER(text)
    try:
        value = _Builder(file, loader, max_depth, max_nodes).build()
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f", line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(error, "problem", None) or str(error)
        if "nesting depth" in problem:  # libyaml's own cap, met while it looks ahead
            raise DocumentError(f"{file}{where}: {nesting_problem(max_depth)}") from None
        raise DocumentError(f"{file}{where}: not valid YAML ({problem})") from None
    finally:
        loader.dispose()
    return _checked(file, value, max_depth)


@dataclass
class _Frame:
    container: dict[Any, Any] | list[Any]
    key: Any = None
    key_mark: Any = None
    has_key: bool = False


@dataclass
class _Builder:
    """Builds a YAML document's value from the parser's events, one at a time."""

    file: str
    loader: Any
    max_depth: int
    max_nodes: int
    stack: list[_Frame] = field(default_factory=list)
    nodes: int = 0
    documents: int = 0
    root: Any = None

    def build(self) -> Any:
        while True:
            event = self.loader.get_event()
            if isinstance(event, yaml.StreamEndEvent):
                return self.root
            self._take(event)

    def _fail(self, event: Any, message: str) -> DocumentError:
        mark = event.start_mark
        where = f", line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        return DocumentError(f"{self.file}{where}: {message}")

    def _take(self, event: Any) -> None:
        if isinstance(event, yaml.DocumentStartEvent):
            self.documents += 1
            if self.documents > 1:
                raise self._fail(event, "a second document (---); expected one document")
        elif isinstance(event, yaml.AliasEvent):  # a few bytes can stand for millions of items
            raise self._fail(event, "YAML aliases (*name) are not allowed")
        elif isinstance(event, yaml.MappingStartEvent | yaml.SequenceStartEvent):
            self._open(event)
        elif isinstance(event, yaml.MappingEndEvent | yaml.SequenceEndEvent):
            self._add(self.stack.pop().container, event)
        elif isinstance(event, yaml.ScalarEvent):
            self._count(event)
            self._add(self._scalar(event), event)

    def _count(self, event: Any) -> None:
        self.nodes += 1
        if self.nodes > self.max_nodes:
            raise self._fail(event, f"more than {self.max_nodes:,} values; expected fewer")

    def _open(self, event: Any) -> None:
        self._count(event)
        if event.tag not in _PLAIN_TAGS:
            raise self._fail(event, f"the tag {short(event.tag)!r} is not allowed")
        if len(self.stack) >= self.max_depth:
            raise self._fail(event, nesting_problem(self.max_depth))
        mapping = isinstance(event, yaml.MappingStartEvent)
        self.stack.append(_Frame({} if mapping else []))

    def _scalar(self, event: Any) -> Any:
        tag = event.tag
        if tag is None or tag == "!":
            tag = self.loader.resolve(yaml.ScalarNode, event.value, event.implicit)
        if tag == _INT_TAG and len(event.value) > MAX_INTEGER_DIGITS + 4:  # before int() reads it
            raise self._fail(event, too_large(event.value))
        node = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark, event.style)
        return self.loader.construct_object(node)

    def _add(self, value: Any, event: Any) -> None:
        if not self.stack:
            self.root = value
            return
        frame = self.stack[-1]
        if isinstance(frame.container, list):
            frame.container.append(value)
        elif not frame.has_key:
            if isinstance(value, dict | list):
                raise self._fail(event, "a key must be a plain value, not a list or a mapping")
            frame.key, frame.key_mark, frame.has_key = value, event, True
        else:
            if frame.key in frame.container:
                name = field_name(str(frame.key))
                raise self._fail(
                    frame.key_mark, f"the key '{name}' appears twice; expected each key once"
                )
            frame.container[frame.key] = value
            frame.has_key = False
