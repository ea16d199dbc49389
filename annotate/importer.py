"""Import benchmark records from JSONL, a JSON array or Parquet into a study.

Every problem is reported with its file, line (or row), field and what was expected; if there is
any, nothing is written. Re-importing the same content changes nothing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from sqlalchemy import insert
from sqlalchemy.engine import Engine
from sqlmodel import select

from annotate.db import write_session
from annotate.models import Pair
from annotate.records import BenchmarkRecord
from annotate.studies import get_or_create_study

ProgressCallback = Callable[[int], None]
"""Called with the number of bytes (or rows, for Parquet) just read."""

MAX_PROBLEMS_SHOWN = 20
_SPLIT_SUFFIX = re.compile(r"[_-](test|train|validation|valid|val|dev)$", re.IGNORECASE)
_SHARD_NAME = re.compile(r"^(test|train|validation|valid|val|dev)(-\d+-of-\d+)?$", re.IGNORECASE)


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


class DatasetError(ValueError):
    """The input could not be imported; `problems` says exactly why."""

    def __init__(self, problems: Sequence[Problem]):
        self.problems = list(problems)
        shown = [str(p) for p in self.problems[:MAX_PROBLEMS_SHOWN]]
        more = len(self.problems) - len(shown)
        if more:
            shown.append(f"... and {more} more problem(s)")
        super().__init__("\n".join(shown))


@dataclass
class ParsedRecord:
    record: BenchmarkRecord
    domain: str
    file: str
    location: str


@dataclass
class FileSummary:
    file: str
    domain: str
    records: int = 0
    added: int = 0
    unchanged: int = 0


@dataclass
class ImportSummary:
    study: str
    files: list[FileSummary] = field(default_factory=list)

    @property
    def added(self) -> int:
        return sum(f.added for f in self.files)

    @property
    def unchanged(self) -> int:
        return sum(f.unchanged for f in self.files)


def domain_from_path(path: Path) -> str:
    """`Art_and_Entertainment_test.jsonl` -> `Art_and_Entertainment`.

    Hub exports named like `test-00000-of-00001.parquet` take the domain from their folder.
    """
    stem = path.name
    for suffix in (".gz", ".jsonl", ".ndjson", ".json", ".parquet"):
        stem = stem.removesuffix(suffix)
    if _SHARD_NAME.match(stem):
        stem = path.resolve().parent.name
    return _SPLIT_SUFFIX.sub("", stem)


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
            if _skip_space(text, position + 1) != len(text):
                raise fail(position + 1, "invalid JSON: extra data after the array")
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
    row = 0
    for batch in parquet.iter_batches(batch_size=1024):
        for value in batch.to_pylist():
            row += 1
            yield f"row {row}", value
        if on_progress:
            on_progress(batch.num_rows)


# ---------------------------------------------------------------- validating records


def _field_path(loc: tuple[int | str, ...]) -> str:
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path


def _describe(error: dict[str, Any]) -> str:
    if error["type"] == "missing":
        return "missing; this field is required"
    got = type(error.get("input")).__name__
    got = {
        "NoneType": "null",
        "str": "a string",
        "int": "a number",
        "float": "a number",
        "dict": "an object",
        "list": "a list",
        "bool": "true/false",
    }.get(got, got)
    return f"{error['msg'].replace('Input should be', 'expected')}, got {got}"


def validate_record(file: str, location: str, value: Any) -> BenchmarkRecord | list[Problem]:
    """A validated record, or the list of everything wrong with it."""
    if not isinstance(value, dict):
        return [Problem(file, location, "expected a JSON object (one benchmark record)")]
    try:
        return BenchmarkRecord.model_validate(value)
    except ValidationError as error:
        return [
            Problem(file, location, _describe(e), field=_field_path(e["loc"]))
            for e in error.errors()
        ]


def parse_files(
    paths: Sequence[Path],
    *,
    domain: str | None = None,
    on_progress: ProgressCallback | None = None,
) -> list[ParsedRecord]:
    """Read and validate every record of every file; raise DatasetError listing all problems."""
    parsed: list[ParsedRecord] = []
    problems: list[Problem] = []
    first_seen: dict[str, str] = {}
    for path in paths:
        file = str(path)
        if not path.is_file():
            problems.append(Problem(file, "file", "no such file"))
            continue
        file_domain = domain or domain_from_path(path)
        if not file_domain:
            problems.append(
                Problem(file, "file", "cannot tell the domain from the file name; pass --domain")
            )
            continue
        try:
            for location, value in read_raw(path, on_progress):
                result = validate_record(file, location, value)
                if isinstance(result, list):
                    problems.extend(result)
                    continue
                where = f"{file}, {location}"
                if result.id in first_seen:
                    problems.append(
                        Problem(
                            file,
                            location,
                            f"duplicate id {result.id!r} (first at {first_seen[result.id]})",
                            field="id",
                        )
                    )
                    continue
                first_seen[result.id] = where
                parsed.append(ParsedRecord(result, file_domain, file, location))
        except DatasetError as error:
            problems.extend(error.problems)
    if problems:
        raise DatasetError(problems)
    return parsed


# ---------------------------------------------------------------- writing


def _pair_row(study_id: int, item: ParsedRecord, content_hash: str) -> dict[str, Any]:
    record = item.record
    return {
        "study_id": study_id,
        "record_id": record.id,
        "domain": item.domain,
        "category": record.category,
        "question": record.question,
        "narrative": record.narrative,
        "profile": [p.model_dump(mode="json") for p in record.profile],
        "rubric_aspects": [a.model_dump(mode="json") for a in record.rubric_aspects],
        "chosen": record.chosen,
        "rejected": record.rejected,
        "extra": record.extra_fields,
        "content_hash": content_hash,
    }


def import_files(
    engine: Engine,
    paths: Sequence[Path | str],
    *,
    study: str,
    domain: str | None = None,
    on_progress: ProgressCallback | None = None,
) -> ImportSummary:
    """Import all files into `study` in one transaction: all of it, or nothing."""
    paths = [Path(p) for p in paths]
    parsed = parse_files(paths, domain=domain, on_progress=on_progress)
    summary = ImportSummary(study=study)
    by_file: dict[str, FileSummary] = {}
    for path in paths:
        by_file[str(path)] = FileSummary(str(path), domain or domain_from_path(path))
        summary.files.append(by_file[str(path)])

    with write_session(engine) as session:
        target = get_or_create_study(session, study)
        existing = dict(
            session.exec(
                select(Pair.record_id, Pair.content_hash).where(Pair.study_id == target.id)
            ).all()
        )
        new_rows: list[dict[str, Any]] = []
        problems: list[Problem] = []
        for item in parsed:
            content_hash = item.record.content_hash()
            file_summary = by_file[item.file]
            file_summary.records += 1
            known = existing.get(item.record.id)
            if known is None:
                new_rows.append(_pair_row(target.id, item, content_hash))
                file_summary.added += 1
            elif known == content_hash:
                file_summary.unchanged += 1
            else:
                problems.append(
                    Problem(
                        item.file,
                        item.location,
                        f"id {item.record.id!r} is already in study {study!r} "
                        "with different content; use a new id or a new study",
                        field="id",
                    )
                )
        if problems:
            raise DatasetError(problems)  # rolls the transaction back, study included
        if new_rows:
            session.execute(insert(Pair), new_rows)
    return summary
