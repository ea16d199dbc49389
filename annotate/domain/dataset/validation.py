"""Validating the records of input files: each in its shape (`annotate.domain.dataset.shapes`)
turned into the benchmark's record, with its domain and conversation; every problem located by
file, line (or row) and field, and logged, never raised one at a time. Reading the files is
`annotate.domain.dataset.readers`; staging and writing the valid records is
`annotate.domain.dataset.importer`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from annotate.domain.dataset.conversation import Canonical, ShapeProblems, Turn
from annotate.domain.dataset.problems import DatasetError, Problem, ProblemLog
from annotate.domain.dataset.readers import ProgressCallback, RecordLimit, read_raw
from annotate.domain.dataset.records import BenchmarkRecord
from annotate.domain.dataset.shapes import CONVERTERS, Shape, ShapeOptions, detect
from annotate.domain.dataset.strict_json import describe_type

MAX_DOMAIN_CHARS = 100
_SPLIT_SUFFIX = re.compile(r"[_-](test|train|validation|valid|val|dev)$", re.IGNORECASE)
_SPLIT_NAME = re.compile(r"^(test|train|validation|valid|val|dev)$", re.IGNORECASE)
_SHARD_SUFFIX = re.compile(r"-\d+-of-\d+$")


@dataclass
class ParsedRecord:
    record: BenchmarkRecord
    domain: str
    file: str
    location: str
    conversation: list[Turn] = field(default_factory=list)
    draw: tuple[str, int, int] | None = None


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


# ---------------------------------------------------------------- validating records


def _field_path(loc: tuple[int | str, ...]) -> str:
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path


def _describe(error: ErrorDetails) -> str:
    if error["type"] == "missing":
        return "missing; this field is required"
    if error["type"] == "value_error":  # our own checks say what they expected
        return error["msg"].removeprefix("Value error, ")
    got = describe_type(error.get("input"))
    return f"{error['msg'].replace('Input should be', 'expected')}, got {got}"


def _validated(
    file: str, location: str, value: Any, problems: ProblemLog
) -> BenchmarkRecord | None:
    """The validated record, or None with everything wrong with it logged in `problems` (only
    counted once the log is full: describing a million bad records would cost more than
    reading them)."""
    if isinstance(value, Problem):  # the reader could decode it but not keep it
        problems.add(value)
        return None
    if not isinstance(value, dict):
        problems.add(Problem(file, location, "expected a JSON object (one benchmark record)"))
        return None
    return _model(file, location, value, problems)


def _model(
    file: str, location: str, value: dict[str, Any], problems: ProblemLog
) -> BenchmarkRecord | None:
    try:
        return BenchmarkRecord.model_validate(value)
    except ValidationError as error:
        if problems.full:
            problems.count(error.error_count())
        else:
            problems.extend(
                Problem(file, location, _describe(e), field=_field_path(e["loc"]))
                for e in error.errors()
            )
        return None


def _domain_problem(file: str, domain: str, location: str = "file") -> Problem | None:
    if not domain:
        return Problem(file, location, "cannot tell the domain from the file name; pass --domain")
    if len(domain) > MAX_DOMAIN_CHARS or domain != domain.strip():
        return Problem(
            file,
            location,
            f"the domain {domain[:40]!r} is not usable; expected at most {MAX_DOMAIN_CHARS} "
            "characters without surrounding spaces",
        )
    return None


def _converted(
    file: str,
    location: str,
    value: Any,
    shape: Shape,
    options: ShapeOptions,
    problems: ProblemLog,
) -> list[Canonical]:
    """The pairs of one record of another shape, or none with its problems logged."""
    if isinstance(value, Problem):
        problems.add(value)
        return []
    if not isinstance(value, dict):
        problems.add(Problem(file, location, f"expected a JSON object (one {shape} record)"))
        return []
    try:
        return CONVERTERS[shape](value, options)
    except ShapeProblems as error:
        problems.extend(Problem(file, location, m, field=f) for f, m in error.found)
        return []


def _file_records(
    path: Path,
    file_domain: str,
    options: ShapeOptions,
    on_progress: ProgressCallback | None,
    limit: RecordLimit,
    problems: ProblemLog,
) -> Iterator[ParsedRecord]:
    """Each valid pair of one file, in its shape (detected from its first record if not
    given); everything wrong logged in `problems`."""
    file = str(path)
    shape = options.fixed
    for location, value in read_raw(path, on_progress, limit=limit):
        if shape is None:
            if isinstance(value, Problem):
                problems.add(value)
                continue
            shape = detect(value)
        if shape is Shape.PRB:
            record = _validated(file, location, value, problems)
            if record is not None:
                yield ParsedRecord(record, file_domain, file, location)
            continue
        for pair in _converted(file, location, value, shape, options, problems):
            record = _model(file, location, pair.record, problems)
            pair_domain = file_domain if options.domain or not pair.domain else pair.domain
            domain_problem = _domain_problem(file, pair_domain, location)
            if domain_problem is not None:
                problems.add(domain_problem)
            elif record is not None:
                yield ParsedRecord(
                    record, pair_domain, file, location, pair.conversation, pair.draw
                )


def parse_files(
    paths: Sequence[Path],
    options: ShapeOptions,
    on_progress: ProgressCallback | None,
    problems: ProblemLog,
) -> Iterator[ParsedRecord]:
    """Yield each valid record; log everything wrong in `problems`."""
    first_seen: dict[str, tuple[str, str]] = {}  # id -> (file, location): no new string each
    limit = RecordLimit()
    for path in paths:
        file = str(path)
        if not path.is_file():
            problems.add(Problem(file, "file", "no such file"))
            continue
        file_domain = options.domain or domain_from_path(path)
        domain_problem = _domain_problem(file, file_domain)
        if domain_problem is not None:
            problems.add(domain_problem)
            continue
        try:
            for result in _file_records(path, file_domain, options, on_progress, limit, problems):
                location = result.location
                record_id = result.record.id
                if record_id in first_seen:
                    problems.add(
                        Problem(
                            file,
                            location,
                            f"duplicate id {record_id!r} (first at "
                            f"{', '.join(first_seen[record_id])})",
                            field="id",
                        )
                    )
                    continue
                first_seen[record_id] = (file, location)
                yield result
        except DatasetError as error:
            problems.absorb(error)
