"""Import benchmark records into a study: validate every record, then write them all or none.

Records of other shapes (`annotate.domain.dataset.shapes`: Hugging Face preference sets, RM-Bench,
RewardBench 2, a field map) are turned into the benchmark's records, with their conversation,
first; each file's shape is detected from its first record unless given.

Every problem is reported with its file, line (or row), field and what was expected (the first
MAX_PROBLEMS_KEPT of them, and how many in all); if there is any, nothing is written. Records
are streamed from the files into a spool file (`StagedImport`), never held all at once; ids
are compared exactly (`records.RecordId` refuses padded ones rather than trim them).
Re-importing the same content changes nothing. Reading the files is
`annotate.domain.dataset.readers`, validating them `annotate.domain.dataset.validation`; this
module stages the valid records (`stage_files`, no database) and writes them (`store_staged`, in
the caller's transaction: `annotate.services.admin.data.import_files`).
"""

from __future__ import annotations

import gc
import pickle
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any

from sqlalchemy import insert
from sqlmodel import Session, select

from annotate.db.tables import Pair, Study, stored_id
from annotate.domain.dataset.conversation import Turn
from annotate.domain.dataset.problems import DatasetError, Problem, ProblemLog
from annotate.domain.dataset.readers import ProgressCallback
from annotate.domain.dataset.records import RECORD_FIELDS, content_hash
from annotate.domain.dataset.shapes import ShapeOptions, drawn
from annotate.domain.dataset.validation import domain_from_path, parse_files
from annotate.domain.study.studies import get_or_create_study

__all__ = [
    "DatasetError",
    "ImportSummary",
    "Problem",
    "ShapeOptions",
    "domain_from_path",
    "stage_files",
    "store_staged",
]

INSERT_BATCH = 100
SPOOL_MEMORY_BYTES = 4 * 2**20


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
            for item in parse_files(files_read, options, on_progress, problems):
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
