"""Reading benchmark files: JSONL, a JSON array or Parquet, one decoded value per record.

Each value comes with its location (line or row), and a problem that stops a file from being read
(invalid UTF-8 or JSON, a broken Parquet file) is raised as `DatasetError` with its file, line and
column. Validating the values is `annotate.domain.importer`'s job.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from annotate.errors import Invalid

ProgressCallback = Callable[[int], None]
"""Called with the number of bytes just read."""

MAX_PROBLEMS_SHOWN = 20


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
    """The input could not be imported; `problems` says exactly why."""

    def __init__(self, problems: Sequence[Problem]):
        self.problems = list(problems)
        shown = [str(p) for p in self.problems[:MAX_PROBLEMS_SHOWN]]
        more = len(self.problems) - len(shown)
        if more:
            shown.append(f"... and {more} more problem(s)")
        super().__init__("\n".join(shown))


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


# ---------------------------------------------------------------- reading raw objects


def read_raw(path: Path, on_progress: ProgressCallback | None = None) -> Iterator[tuple[str, Any]]:
    """Yield (location, decoded JSON value) for each record in the file.

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


def _read_jsonl(path: Path, on_progress: ProgressCallback | None) -> Iterator[tuple[str, Any]]:
    with path.open("rb") as handle:
        for number, raw_line in enumerate(handle, start=1):
            if on_progress:
                on_progress(len(raw_line))
            location = f"line {number}"
            try:
                text = raw_line.decode("utf-8")
                if number == 1:
                    text = text.removeprefix("\ufeff")
            except UnicodeDecodeError as error:
                raise DatasetError(
                    [
                        Problem(
                            str(path),
                            location,
                            f"invalid UTF-8 (byte {error.start + 1} of the "
                            "line); the file must be UTF-8 encoded",
                        )
                    ]
                ) from None
            if not text.strip():
                continue
            try:
                yield location, json.loads(text)
            except json.JSONDecodeError as error:
                raise DatasetError(
                    [
                        Problem(
                            str(path),
                            f"{location}, column {error.colno}",
                            f"invalid JSON: {error.msg}",
                        )
                    ]
                ) from None


def _decode_utf8(path: Path, data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise DatasetError(
            [Problem(str(path), f"line {line}", "invalid UTF-8; the file must be UTF-8 encoded")]
        ) from None


def _read_json_array(path: Path, on_progress: ProgressCallback | None) -> Iterator[tuple[str, Any]]:
    """Read a JSON array element by element, so that each record knows its line number."""
    data = path.read_bytes()
    if on_progress:
        on_progress(len(data))
    text = _decode_utf8(path, data).lstrip("\ufeff")
    decoder = json.JSONDecoder()

    def fail(position: int, message: str) -> DatasetError:
        line = text.count("\n", 0, position) + 1
        column = position - (text.rfind("\n", 0, position) + 1) + 1
        return DatasetError([Problem(str(path), f"line {line}, column {column}", message)])

    position = _skip_space(text, 0)
    if not text.startswith("[", position):
        raise fail(position, "expected a JSON array of records (or use .jsonl, one per line)")
    position = _skip_space(text, position + 1)
    if text.startswith("]", position):
        return
    while True:
        line = text.count("\n", 0, position) + 1
        try:
            value, position = decoder.raw_decode(text, position)
        except json.JSONDecodeError as error:
            raise fail(error.pos, f"invalid JSON: {error.msg}") from None
        yield f"line {line}", value
        position = _skip_space(text, position)
        if text.startswith(",", position):
            position = _skip_space(text, position + 1)
        elif text.startswith("]", position):
            end = _skip_space(text, position + 1)
            if end != len(text):
                raise fail(end, "invalid JSON: extra data after the array")
            return
        else:
            raise fail(position, "invalid JSON: expected ',' or ']' after a record")


def _skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t\r\n":
        position += 1
    return position


def _read_parquet(path: Path, on_progress: ProgressCallback | None) -> Iterator[tuple[str, Any]]:
    import pyarrow.parquet as pq

    try:
        parquet = pq.ParquetFile(path)
    except Exception as error:  # pyarrow raises several types for a broken file
        raise DatasetError(
            [Problem(str(path), "file", f"not a readable Parquet file ({error})")]
        ) from None
    size = path.stat().st_size
    row = reported = 0
    batches = parquet.iter_batches(batch_size=1024)
    while True:
        try:
            batch = next(batches, None)
            values = [] if batch is None else batch.to_pylist()
        except Exception as error:  # a corrupt page, or a type pyarrow cannot convert
            raise DatasetError(
                [Problem(str(path), f"row {row + 1}", f"unreadable Parquet data ({error})")]
            ) from None
        if batch is None:
            return
        for value in values:
            row += 1
            yield f"row {row}", value
        if on_progress:  # progress is counted in bytes: the share of the file read so far
            done = size * row // max(1, parquet.metadata.num_rows)
            on_progress(done - reported)
            reported = done
