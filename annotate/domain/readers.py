"""Reading benchmark files: JSONL, a JSON array or Parquet, one decoded value per record.

Files are streamed: JSONL line by line, a JSON array element by element (its bytes are read in
chunks and cut at the elements' boundaries), Parquet batch by batch, so memory follows the
largest record, not the file. Each value comes with its location (line or row). A problem that
stops a file from being read (invalid UTF-8 or JSON, a broken Parquet file) is raised as
`DatasetError` with its file, line and column; a record whose value can be read but not kept
(see `check_value`: too deeply nested, a duplicate key, NaN, a huge number, NUL, a lone
surrogate, binary data) is yielded as a `Problem` in its place, and reading goes on. Validating
the values against the record format is `annotate.domain.importer`'s job.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from annotate.errors import Invalid

ProgressCallback = Callable[[int], None]
"""Called with the number of bytes just read."""

MAX_PROBLEMS_SHOWN = 20
"""Problems written out in a DatasetError's message (the CLI prints it)."""
MAX_PROBLEMS_KEPT = 1000
"""Problems an import keeps (the page lists them); the rest are only counted."""
MAX_NESTING = 32
"""Deepest nesting of lists and objects a record may have (the record itself is level 1)."""
MAX_INTEGER = 2**63
"""Integers must lie in [-MAX_INTEGER, MAX_INTEGER): what a 64-bit column and most JSON
readers keep exactly."""
CHUNK_BYTES = 1 << 20
PARQUET_BATCH_ROWS = 32  # rows of ~35 KB become ~10x that as Python objects

_SURROGATE = re.compile("[\ud800-\udfff]")
_NON_SPACE = re.compile(rb"[^ \t\r\n]")
_STRUCTURE = re.compile(rb'["\[\]{}]')
_STRING_END = re.compile(rb'["\\]')
_SCALAR_END = re.compile(rb"[,\] \t\r\n]")
_BOM = b"\xef\xbb\xbf"
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}:]')


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the input, located as precisely as the format allows."""

    file: str
    location: str
    message: str
    field: str | None = None

    def __str__(self) -> str:
        where = f"{self.file}, {self.location}"
        if self.field:
            where += f", field '{self.field}'"
        return f"{where}: {self.message}"


class DatasetError(Invalid):
    """The input could not be imported; `problems` says exactly why (at most MAX_PROBLEMS_KEPT
    of them, the first ones), `total` how many there were in all."""

    def __init__(self, problems: Sequence[Problem], total: int | None = None):
        self.problems = list(problems)
        self.total = max(total or 0, len(self.problems))
        shown = [str(p) for p in self.problems[:MAX_PROBLEMS_SHOWN]]
        more = self.total - len(shown)
        if more:
            shown.append(f"... and {more} more problem(s)")
        super().__init__("\n".join(shown))


class ProblemLog:
    """The problems of one import: the first `limit` kept, every one counted, so that a file of
    a million bad lines never builds millions of messages."""

    def __init__(self, limit: int = MAX_PROBLEMS_KEPT):
        self.limit = limit
        self.kept: list[Problem] = []
        self.total = 0

    def add(self, problem: Problem) -> None:
        self.total += 1
        if len(self.kept) < self.limit:
            self.kept.append(problem)

    @property
    def full(self) -> bool:
        """No more problems are kept: count them (`count`) rather than describe them."""
        return len(self.kept) >= self.limit

    def count(self, more: int) -> None:
        self.total += more

    def extend(self, problems: Iterable[Problem]) -> None:
        for problem in problems:
            self.add(problem)

    def absorb(self, error: DatasetError) -> None:
        """Take over another error's problems, counting those it did not keep."""
        self.extend(error.problems)
        self.total += error.total - len(error.problems)

    def __bool__(self) -> bool:
        return self.total > 0

    def error(self) -> DatasetError:
        return DatasetError(self.kept, self.total)


# ---------------------------------------------------------------- decoding JSON strictly


class _Refused:
    """A value JSON can spell but a record may not hold, left by the decoder's hooks in its
    place; `check_value` finds it and names the record's field that holds it."""

    __slots__ = ("message",)

    def __init__(self, message: str):
        self.message = message


class _RepeatedKey(dict[str, Any]):
    """An object in which a key appears twice (the decoder keeps the last value)."""

    message = ""
    key = ""


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value = dict(pairs)
    if len(value) == len(pairs):
        return value
    repeated = _RepeatedKey(value)
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            repeated.key = field_name(key)
            repeated.message = (
                f"the key {_short(key)!r} appears twice in one object; expected each key once"
            )
            break
        seen.add(key)
    return repeated


def _constant(name: str) -> Any:
    return _Refused(f"{name} is not allowed; expected a finite number")


def _float(text: str) -> float | _Refused:
    value = float(text)
    if not math.isfinite(value):
        return _Refused(f"the number {_short(text)} is out of range; expected a finite number")
    return value


def _int(text: str) -> int | _Refused:
    if len(text) > 20 or not -MAX_INTEGER <= (value := int(text)) < MAX_INTEGER:
        return _Refused(
            f"the integer {_short(text)} ({len(text.lstrip('-'))} digits) is too large; "
            "expected a 64-bit integer (write larger numbers as strings)"
        )
    return value


_DECODER = json.JSONDecoder(
    object_pairs_hook=_object, parse_float=_float, parse_int=_int, parse_constant=_constant
)


def field_name(key: str) -> str:
    """A record's key as it may be shown: at most 100 characters, escaped (`\\ud800`) when it
    holds what no page or terminal can print."""
    name = key[:100]
    return name if _text_problem(name) is None else ascii(name)[1:-1]


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def _nesting_problem() -> str:
    return f"nested too deeply; expected at most {MAX_NESTING} levels of lists and objects"


def check_value(value: Any) -> tuple[str | None, str] | None:
    """Why a decoded record cannot be stored, as (top-level field or None, message); None if
    it can. Refused: nesting deeper than MAX_NESTING, NUL characters and lone surrogates in
    texts or keys (PostgreSQL and UTF-8 cannot store them), binary data, NaN and infinities,
    integers outside 64 bits."""
    if isinstance(value, _RepeatedKey):
        return (value.key, value.message)
    if isinstance(value, dict):
        for key, item in value.items():
            message = _text_problem(key) if isinstance(key, str) else None
            message = message or _walk(item, 2)
            if message:
                return (field_name(str(key)), message)
        return None
    message = _walk(value, 1)
    return (None, message) if message else None


def _walk(value: Any, depth: int) -> str | None:
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
                message = _text_problem(item)
                if message:
                    return message
            continue
        if kind is list or kind is dict or kind is tuple or isinstance(item, dict | list):
            if level > MAX_NESTING:
                return _nesting_problem()
            if isinstance(item, _RepeatedKey):
                return item.message
            if isinstance(item, dict):
                message = _keys_problem(item)
                if message:
                    return message
                item = item.values()
            stack.extend([(child, level + 1) for child in item])
            continue
        message = _scalar_problem(item)
        if message:
            return message
    return None


def _keys_problem(item: dict[Any, Any]) -> str | None:
    for key in item:
        if type(key) is str and ("\x00" in key or not key.isascii()):
            message = _text_problem(key)
            if message:
                return message
    return None


def _text_problem(text: str) -> str | None:
    if "\x00" in text:
        return "a text contains the NUL character (\\u0000); expected text without it"
    if _SURROGATE.search(text):
        return "a text contains a lone surrogate (e.g. \\ud800); expected valid Unicode"
    return None


def _scalar_problem(item: Any) -> str | None:
    if isinstance(item, _Refused):
        return item.message
    if isinstance(item, bytes | bytearray | memoryview):
        return "binary data; expected text (store the column as a UTF-8 string)"
    if isinstance(item, float) and not math.isfinite(item):
        return f"{item} is not allowed; expected a finite number"
    if isinstance(item, int) and not -MAX_INTEGER <= item < MAX_INTEGER:
        return "an integer is too large; expected a 64-bit integer"
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


def decode_record(file: str, location: str, text: str, line: int = 1, column: int = 1) -> Any:
    """Decode one record's JSON text strictly: a value, or a located `Problem` for a value
    that cannot be kept; DatasetError for text that is not JSON. `line` and `column` say where
    the text starts in its file (for the location of a syntax error)."""
    try:
        value = _DECODER.decode(text)
    except RecursionError:
        return Problem(file, location, _nesting_problem(), field=_deep_field(text))
    except json.JSONDecodeError as error:
        at_line = line + error.lineno - 1
        at_column = error.colno + (column - 1 if error.lineno == 1 else 0)
        raise DatasetError(
            [Problem(file, f"line {at_line}, column {at_column}", f"invalid JSON: {error.msg}")]
        ) from None
    found = check_value(value)
    if found is not None:
        return Problem(file, location, found[1], field=found[0])
    return value


# ---------------------------------------------------------------- reading raw objects


def read_raw(path: Path, on_progress: ProgressCallback | None = None) -> Iterator[tuple[str, Any]]:
    """Yield (location, decoded JSON value, or the Problem that replaces it) for each record.

    Raises DatasetError for a problem that stops the file from being read any further.
    """
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        yield from _read_jsonl(path, on_progress)
    elif suffix == ".json":
        yield from _read_json_array(path, on_progress)
    elif suffix == ".parquet":
        yield from _read_parquet(path, on_progress)
    else:
        raise DatasetError(
            [
                Problem(
                    str(path),
                    "file",
                    f"unsupported file type {suffix!r}; "
                    "expected .jsonl, .json (an array) or .parquet",
                )
            ]
        )


def _utf8(file: str, data: bytes, line: int) -> str:
    """`data` decoded; DatasetError naming the line of the first invalid byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        at = line + data.count(b"\n", 0, error.start)
        start = data.rfind(b"\n", 0, error.start) + 1
        raise DatasetError(
            [
                Problem(
                    file,
                    f"line {at}",
                    f"invalid UTF-8 (byte {error.start - start + 1} of the line); "
                    "the file must be UTF-8 encoded",
                )
            ]
        ) from None


def _read_jsonl(path: Path, on_progress: ProgressCallback | None) -> Iterator[tuple[str, Any]]:
    file = str(path)
    unreported = 0  # progress is reported a chunk at a time: a call per line would cost more
    with path.open("rb") as handle:
        for number, raw_line in enumerate(handle, start=1):
            unreported += len(raw_line)
            if on_progress and unreported >= CHUNK_BYTES:
                on_progress(unreported)
                unreported = 0
            text = _utf8(file, raw_line.removeprefix(_BOM) if number == 1 else raw_line, number)
            if not text.strip():
                continue
            location = f"line {number}"
            yield location, decode_record(file, location, text, number)
    if on_progress and unreported:
        on_progress(unreported)


def _read_json_array(path: Path, on_progress: ProgressCallback | None) -> Iterator[tuple[str, Any]]:
    """Read a JSON array element by element, so that each record knows its line number."""
    file = str(path)
    with path.open("rb") as handle:
        for line, column, data in _ArrayScanner(file, handle, on_progress).elements():
            location = f"line {line}"
            text = _utf8(file, data, line)
            yield location, decode_record(file, location, text, line, column)


class _ArrayScanner:
    """Cuts a JSON array read in chunks into its elements' bytes, without decoding them.

    JSON's structural characters are ASCII and never part of a multi-byte UTF-8 sequence, so
    the bytes can be scanned as they are. Only the current element is held in memory.
    """

    def __init__(self, file: str, handle: IO[bytes], on_progress: ProgressCallback | None):
        self.file = file
        self.handle = handle
        self.on_progress = on_progress
        self.buf = bytearray()
        self.line = 1  # line and column of buf[0] in the file
        self.column = 1

    def _more(self) -> bool:
        chunk = self.handle.read(CHUNK_BYTES)
        if self.on_progress and chunk:
            self.on_progress(len(chunk))
        self.buf += chunk
        return bool(chunk)

    def _drop(self, upto: int) -> None:
        """Forget buf[:upto], keeping track of where buf now starts."""
        newlines = self.buf.count(b"\n", 0, upto)
        if newlines:
            self.line += newlines
            self.column = upto - self.buf.rfind(b"\n", 0, upto)
        else:
            self.column += upto
        del self.buf[:upto]

    def _fail(self, position: int, message: str) -> DatasetError:
        line = self.line + self.buf.count(b"\n", 0, position)
        newline = self.buf.rfind(b"\n", 0, position)
        column = position - newline if newline >= 0 else self.column + position
        return DatasetError([Problem(self.file, f"line {line}, column {column}", message)])

    def _search(self, pattern: re.Pattern[bytes], position: int, inside: str) -> int:
        """Where `pattern` next matches from `position`, reading more as needed."""
        while True:
            found = pattern.search(self.buf, position)
            if found is not None:
                return found.start()
            position = max(position, len(self.buf))
            if not self._more():
                if inside:
                    raise self._fail(len(self.buf), f"invalid JSON: the file ends inside {inside}")
                return len(self.buf)

    def _at(self, position: int) -> int | None:
        return self.buf[position] if position < len(self.buf) else None

    def elements(self) -> Iterator[tuple[int, int, bytes]]:
        """Yield (line, column, bytes) of each element of the array."""
        while len(self.buf) < len(_BOM) and self._more():
            pass
        if self.buf.startswith(_BOM):
            del self.buf[: len(_BOM)]
        position = self._search(_NON_SPACE, 0, "")
        if self._at(position) != ord("["):
            raise self._fail(
                position, "expected a JSON array of records (or use .jsonl, one per line)"
            )
        position = self._search(_NON_SPACE, position + 1, "the array")
        if self._at(position) == ord("]"):
            self._finish(position)
            return
        while True:
            self._drop(position)
            end = self._element_end()
            yield self.line, self.column, bytes(self.buf[:end])
            position = self._search(_NON_SPACE, end, "the array")
            if self._at(position) == ord("]"):
                self._finish(position)
                return
            if self._at(position) != ord(","):
                raise self._fail(position, "invalid JSON: expected ',' or ']' after a record")
            position = self._search(_NON_SPACE, position + 1, "the array")
            if self._at(position) == ord("]"):
                raise self._fail(position, "invalid JSON: expected a record after ','")

    def _finish(self, position: int) -> None:
        end = self._search(_NON_SPACE, position + 1, "")
        if end < len(self.buf):
            raise self._fail(end, "invalid JSON: extra data after the array")

    def _element_end(self) -> int:
        """The index just past the element that starts at buf[0]."""
        first = self.buf[0]
        if first == ord('"'):
            return self._string_end(1)
        if first not in b"{[":
            return self._search(_SCALAR_END, 1, "the array")
        depth, position = 0, 0
        while True:
            position = self._search(_STRUCTURE, position, "a record")
            byte = self.buf[position]
            if byte == ord('"'):
                position = self._string_end(position + 1)
                continue
            depth += 1 if byte in b"{[" else -1
            position += 1
            if depth == 0:
                return position

    def _string_end(self, position: int) -> int:
        while True:
            position = self._search(_STRING_END, position, "a text")
            if self.buf[position] == ord('"'):
                return position + 1
            position += 2  # a backslash and the character it escapes


def _read_parquet(path: Path, on_progress: ProgressCallback | None) -> Iterator[tuple[str, Any]]:
    import pyarrow.parquet as pq

    file = str(path)
    try:
        # read a column chunk at a time, on this thread: ~half the memory, no slower
        parquet = pq.ParquetFile(path, pre_buffer=False, buffer_size=CHUNK_BYTES)
    except Exception as error:  # pyarrow raises several types for a broken file
        problem = Problem(file, "file", f"not a readable Parquet file ({error})")
        raise DatasetError([problem]) from None
    size = path.stat().st_size
    row = reported = 0
    batches = parquet.iter_batches(batch_size=PARQUET_BATCH_ROWS, use_threads=False)
    while True:
        try:
            batch = next(batches, None)
            values = [] if batch is None else batch.to_pylist()
        except Exception as error:  # a corrupt page, or a type pyarrow cannot convert
            raise DatasetError(
                [Problem(file, f"row {row + 1}", f"unreadable Parquet data ({error})")]
            ) from None
        if batch is None:
            return
        for value in values:
            row += 1
            found = check_value(value)
            location = f"row {row}"
            yield location, value if found is None else Problem(file, location, found[1], found[0])
        if on_progress:  # progress is counted in bytes: the share of the file read so far
            done = size * row // max(1, parquet.metadata.num_rows)
            on_progress(done - reported)
            reported = done
