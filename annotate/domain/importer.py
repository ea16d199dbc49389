"""Import benchmark records from JSONL, a JSON array or Parquet into a study.

Every problem is reported with its file, line (or row), field and what was expected; if there is
any, nothing is written. Re-importing the same content changes nothing.
"""

from __future__ import annotations

import gc
import json
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from sqlalchemy import insert
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from annotate.db import write_session
from annotate.db.tables import Pair, Study
from annotate.domain.records import RECORD_FIELDS, BenchmarkRecord, content_hash
from annotate.domain.studies import get_or_create_study
from annotate.errors import Invalid

ProgressCallback = Callable[[int], None]
"""Called with the number of bytes just read."""

MAX_PROBLEMS_SHOWN = 20
INSERT_BATCH = 500
_SPLIT_SUFFIX = re.compile(r"[_-](test|train|validation|valid|val|dev)$", re.IGNORECASE)
_SPLIT_NAME = re.compile(r"^(test|train|validation|valid|val|dev)$", re.IGNORECASE)
_SHARD_SUFFIX = re.compile(r"-\d+-of-\d+$")


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

    Hub exports named like `test-00000-of-00001.parquet` take the domain from their folder, and so
    do the hub's Parquet conversions (`<Domain>/test/0000.parquet`).
    """
    stem = path.name
    for suffix in (".gz", ".jsonl", ".ndjson", ".json", ".parquet"):
        stem = stem.removesuffix(suffix)
    stem = _SHARD_SUFFIX.sub("", stem)
    folder = path.resolve().parent
    if stem.isdigit():
        stem, folder = folder.name, folder.parent
    if _SPLIT_NAME.match(stem):
        stem = folder.name
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
    problems: list[Problem] = []
    parsed = list(_parse(paths, domain, on_progress, problems))
    if problems:
        raise DatasetError(problems)
    return parsed


def _parse(
    paths: Sequence[Path],
    domain: str | None,
    on_progress: ProgressCallback | None,
    problems: list[Problem],
) -> Iterator[ParsedRecord]:
    """Yield each valid record; append everything wrong to `problems`."""
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
                yield ParsedRecord(result, file_domain, file, location)
        except DatasetError as error:
            problems.extend(error.problems)


# ---------------------------------------------------------------- writing


@dataclass
class _Staged:
    """A validated record, dumped to plain JSON values, waiting for the write transaction."""

    file: str
    location: str
    domain: str
    data: dict[str, Any]
    content_hash: str


def _pair_row(study_id: int, item: _Staged) -> dict[str, Any]:
    data = item.data
    return {
        "study_id": study_id,
        "record_id": data["id"],
        "domain": item.domain,
        "category": data["category"],
        "question": data["question"],
        "narrative": data["narrative"],
        "profile": data["profile"],
        "rubric_aspects": data["rubric_aspects"],
        "chosen": data["chosen"],
        "rejected": data["rejected"],
        "extra": {k: v for k, v in data.items() if k not in RECORD_FIELDS},
        "content_hash": item.content_hash,
    }


def _same_content(session: Session, study: Study, item: _Staged) -> bool:
    """Whether the stored pair holds this record's content (in any order of its fields)."""
    pair = session.exec(
        select(Pair).where(Pair.study_id == study.id, Pair.record_id == item.data["id"])
    ).one()
    stored = {name: getattr(pair, name) for name in RECORD_FIELDS if name != "id"}
    return {"id": pair.record_id, **stored, **pair.extra} == item.data


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while an import builds millions of small containers.

    None of them is cyclic, and the collector's repeated passes over them would cost more than a
    third of the import's time on the full benchmark.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def import_files(
    engine: Engine,
    paths: Sequence[Path | str],
    *,
    study: str,
    domain: str | None = None,
    on_progress: ProgressCallback | None = None,
) -> ImportSummary:
    """Import all files into `study` in one transaction: all of it, or nothing.

    Files are read and validated before the write transaction starts, so a long read never holds
    the database's write lock; only plain rows are kept (not the pydantic models), so memory stays
    a small multiple of the data's size.
    """
    paths = [Path(p) for p in paths]
    summary = ImportSummary(study=study)
    by_file: dict[str, FileSummary] = {}
    for path in paths:
        by_file[str(path)] = FileSummary(str(path), domain or domain_from_path(path))
        summary.files.append(by_file[str(path)])

    with _gc_paused():
        problems: list[Problem] = []
        staged: list[_Staged] = []
        for item in _parse(paths, domain, on_progress, problems):
            data = item.record.model_dump(mode="json")
            staged.append(_Staged(item.file, item.location, item.domain, data, content_hash(data)))
        if problems:
            raise DatasetError(problems)

        with write_session(engine) as session:
            target = get_or_create_study(session, study)
            existing = {
                record_id: (known_hash, known_domain)
                for record_id, known_hash, known_domain in session.exec(
                    select(Pair.record_id, Pair.content_hash, Pair.domain).where(
                        Pair.study_id == target.id
                    )
                )
            }
            new: list[_Staged] = []
            for item in staged:
                record_id = item.data["id"]
                file_summary = by_file[item.file]
                file_summary.records += 1
                known = existing.get(record_id)
                if known is None:
                    new.append(item)
                    file_summary.added += 1
                elif known[0] != item.content_hash and not _same_content(session, target, item):
                    problems.append(
                        Problem(
                            item.file,
                            item.location,
                            f"id {record_id!r} is already in study {study!r} "
                            "with different content; use a new id or a new study",
                            field="id",
                        )
                    )
                elif known[1] != item.domain:
                    problems.append(
                        Problem(
                            item.file,
                            item.location,
                            f"id {record_id!r} is already in study {study!r} in domain "
                            f"{known[1]!r}, not {item.domain!r}; use --domain {known[1]} "
                            "or a new study",
                            field="id",
                        )
                    )
                else:
                    file_summary.unchanged += 1
            if problems:
                raise DatasetError(problems)  # rolls the transaction back, study included
            for offset in range(0, len(new), INSERT_BATCH):
                batch = new[offset : offset + INSERT_BATCH]
                session.execute(insert(Pair), [_pair_row(target.id, item) for item in batch])
    return summary
