"""Import benchmark records into a study: validate every record, then write them all or none.

Records of other shapes (`annotate.domain.dataset.shapes`: Hugging Face preference sets, RM-Bench,
RewardBench 2, a field map) are turned into the benchmark's records, with their conversation,
first; each file's shape is detected from its first record unless given.

Every problem is reported with its file, line (or row), field and what was expected (the first
MAX_PROBLEMS_KEPT of them, and how many in all); if there is any, nothing is written. Records
are streamed from the files into a spool file (`StagedImport`), never held all at once; ids
are compared exactly (`records.RecordId` refuses padded ones rather than trim them).
Re-importing the same content changes nothing. Reading the files is
`annotate.domain.dataset.readers`; this module validates (`stage_files`, no database) and writes
(`store_staged`, in the caller's transaction: `annotate.services.data.import_files`).
"""

from __future__ import annotations

import gc
import pickle
import re
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails
from sqlalchemy import insert
from sqlmodel import Session, select

from annotate.db.tables import Pair, Study, stored_id
from annotate.domain.dataset.conversation import Canonical, ShapeProblems, Turn
from annotate.domain.dataset.problems import DatasetError, Problem, ProblemLog
from annotate.domain.dataset.readers import ProgressCallback, RecordLimit, read_raw
from annotate.domain.dataset.records import RECORD_FIELDS, BenchmarkRecord, content_hash
from annotate.domain.dataset.shapes import (
    CONVERTERS,
    Shape,
    ShapeOptions,
    detect,
    drawn,
)
from annotate.domain.dataset.strict_json import describe_type
from annotate.domain.study.studies import get_or_create_study

__all__ = [
    "DatasetError",
    "ImportSummary",
    "Problem",
    "ShapeOptions",
    "stage_files",
    "store_staged",
]

INSERT_BATCH = 100
SPOOL_MEMORY_BYTES = 4 * 2**20
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


def _parse(
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


# ---------------------------------------------------------------- writing


@dataclass
class _Staged:
    """A validated record, dumped to plain JSON values, waiting for the write transaction."""

    file: str
    location: str
    domain: str
    data: dict[str, Any]
    content_hash: str
    conversation: list[Turn] = field(default_factory=list)
    draw: tuple[str, int, int] | None = None


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
        "conversation": item.conversation,
        "extra": {k: v for k, v in data.items() if k not in RECORD_FIELDS},
        "content_hash": item.content_hash,
    }


def _same_content(session: Session, study: Study, item: _Staged) -> bool:
    """Whether the stored pair holds this record's content (in any order of its fields)."""
    pair = session.exec(
        select(Pair).where(Pair.study_id == study.id, Pair.record_id == item.data["id"])
    ).one()
    stored = {name: getattr(pair, name) for name in RECORD_FIELDS if name != "id"}
    same_record = {"id": pair.record_id, **stored, **pair.extra} == item.data
    return same_record and pair.conversation == item.conversation


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


class StagedImport:
    """Every record of the files, validated and dumped to plain rows, waiting in a spool file
    (in memory while small, on disk after SPOOL_MEMORY_BYTES) to be written. Use it as a
    context manager: leaving the block deletes the spool."""

    def __init__(self, files: list[FileSummary]):
        self.files = files
        self.count = 0
        self._spool: IO[bytes] = tempfile.SpooledTemporaryFile(  # noqa: SIM115 closed in close()
            max_size=SPOOL_MEMORY_BYTES, prefix="prb-import-"
        )

    def add(self, item: _Staged) -> None:
        pickle.dump(
            (
                item.file,
                item.location,
                item.domain,
                item.data,
                item.content_hash,
                item.conversation,
                item.draw,
            ),
            self._spool,
            protocol=pickle.HIGHEST_PROTOCOL,
        )
        self.count += 1

    def items(self) -> Iterator[_Staged]:
        """The staged records, in file order, read back one at a time."""
        self._spool.seek(0)
        for _ in range(self.count):
            yield _Staged(*pickle.load(self._spool))  # our own file, written above

    def close(self) -> None:
        self._spool.close()

    def __enter__(self) -> StagedImport:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def stage_files(
    paths: Sequence[Path | str],
    *,
    domain: str | None = None,
    options: ShapeOptions | None = None,
    on_progress: ProgressCallback | None = None,
) -> StagedImport:
    """Read and validate all files (no database); raise DatasetError listing the problems (the
    first MAX_PROBLEMS_KEPT, and how many in all).

    Done before the write transaction starts, so a long read never holds the database's write
    lock. Records are streamed from the files into the spool, so memory does not grow with the
    files' size (only the ids seen so far are kept, to find duplicates).
    """
    options = options or ShapeOptions()
    if domain:
        options = replace(options, domain=domain)
    domain = options.domain
    files_read = [Path(p) for p in paths]
    files = [FileSummary(str(path), domain or domain_from_path(path)) for path in files_read]
    staged = StagedImport(files)
    problems = ProblemLog()
    domains: dict[str, set[str]] = {f.file: set() for f in files}
    try:
        with _gc_paused():
            for item in _parse(files_read, options, on_progress, problems):
                domains[item.file].add(item.domain)
                if problems:
                    continue  # nothing will be written: only look for more problems
                data = item.record.model_dump(mode="json")
                digest = content_hash(data, item.conversation)
                staged.add(
                    _Staged(
                        item.file,
                        item.location,
                        item.domain,
                        data,
                        digest,
                        item.conversation,
                        item.draw,
                    )
                )
        if problems:
            raise problems.error()
        for summary in files:
            if domains[summary.file]:
                summary.domain = ", ".join(sorted(domains[summary.file]))
    except BaseException:
        staged.close()
        raise
    return staged


def store_staged(session: Session, staged: StagedImport, *, study: str) -> ImportSummary:
    """Write the staged records into `study` (created if new) in the caller's transaction.

    Raises DatasetError, before writing any pair, when an id is already in the study with other
    content or another domain; the caller's rollback then undoes a study created here too. The
    spool is read twice (check, then write), a batch at a time.
    """
    summary = ImportSummary(study=study, files=[replace(f) for f in staged.files])
    by_file = {f.file: f for f in summary.files}
    with _gc_paused():
        target = get_or_create_study(session, study)
        study_id = stored_id(target)
        existing = {
            record_id: (known_hash, known_domain)
            for record_id, known_hash, known_domain in session.exec(
                select(Pair.record_id, Pair.content_hash, Pair.domain).where(
                    Pair.study_id == study_id
                )
            )
        }
        problems = ProblemLog()
        for item in _kept(staged, target.seed):
            file_summary = by_file[item.file]
            file_summary.records += 1
            problem = _conflict(session, target, item, existing.get(item.data["id"]))
            if problem is not None:
                problems.add(problem)
            elif item.data["id"] in existing:
                file_summary.unchanged += 1
            else:
                file_summary.added += 1
        if problems:
            raise problems.error()
        batch: list[dict[str, Any]] = []
        for item in _kept(staged, target.seed):
            if item.data["id"] not in existing:
                batch.append(_pair_row(study_id, item))
            if len(batch) >= INSERT_BATCH:
                session.execute(insert(Pair), batch)
                batch = []
        if batch:
            session.execute(insert(Pair), batch)
    return summary


def _kept(staged: StagedImport, seed: int) -> Iterator[_Staged]:
    """The staged pairs to write: all, but only the one drawn with the study's seed among the
    pairs of a record that asks for one (`--rb2-pairs one`)."""
    for item in staged.items():
        if item.draw is None or drawn(seed, item.draw[0], item.draw[2]) == item.draw[1]:
            yield item


def _conflict(
    session: Session, study: Study, item: _Staged, known: tuple[str, str] | None
) -> Problem | None:
    """Why a record whose id is already in the study (`known`: its hash and domain) cannot be
    imported again; None when it is new or the same."""
    if known is None:
        return None
    record_id = item.data["id"]
    if known[0] != item.content_hash and not _same_content(session, study, item):
        return Problem(
            item.file,
            item.location,
            f"id {record_id!r} is already in study {study.name!r} "
            "with different content; use a new id or a new study",
            field="id",
        )
    if known[1] != item.domain:
        return Problem(
            item.file,
            item.location,
            f"id {record_id!r} is already in study {study.name!r} in domain "
            f"{known[1]!r}, not {item.domain!r}; use --domain {known[1]} "
            "or a new study",
            field="id",
        )
    return None
