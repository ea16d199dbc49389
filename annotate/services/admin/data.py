"""The data of a study, with the admin check: import (files or an upload), the pairs, the export.

`import_files` reads and validates the files before its write transaction (a long read never
holds the write lock), then checks the actor again and writes everything or nothing.
"""

from __future__ import annotations

import io
import re
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import pandas as pd
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, func, select

from annotate.config import MAX_UPLOAD_MB
from annotate.db import read_session
from annotate.db.tables import Pair, stored_id
from annotate.domain.dataset import importer
from annotate.domain.dataset.importer import DatasetError, ImportSummary, Problem
from annotate.domain.dataset.readers import ProgressCallback
from annotate.domain.dataset.shapes import ShapeOptions
from annotate.domain.study import studies
from annotate.domain.study.permissions import Actor, require_admin
from annotate.services.audited import admin_change

UPLOAD_SUFFIXES = (".jsonl", ".ndjson", ".json", ".parquet")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
MAX_NAME_CHARS = 100
MAX_SUFFIX_CHARS = 10
SAVE_CHUNK_BYTES = 2**20


def import_files(
    engine: Engine,
    actor: Actor,
    paths: Sequence[Path | str],
    *,
    study: str,
    domain: str | None = None,
    shape: ShapeOptions | None = None,
    on_progress: ProgressCallback | None = None,
) -> ImportSummary:
    """Import all files into `study` (created if new) in one transaction: all of it, or nothing.
    `shape` says how to read them (default: detected from each file's first record).

    Raises DatasetError listing every problem (file, line, field), PermissionDenied for anyone
    but an admin or `SYSTEM`.
    """
    with read_session(engine) as session:
        require_admin(session, actor)  # before a long read, not only before the write
    with (
        importer.stage_files(
            paths, domain=domain, options=shape, on_progress=on_progress
        ) as staged,
        admin_change(engine, actor, "data.import") as change,
    ):
        summary = importer.store_staged(change.session, staged, study=study)
        change.study = studies.get_study(change.session, study)
        change.after = {
            "files": [Path(f.file).name for f in summary.files],
            "added": summary.added,
            "unchanged": summary.unchanged,
        }
        change.changed = summary.added > 0
        return summary


def safe_upload_name(filename: str) -> str:
    """The upload's own base name with unsafe characters replaced (the domain comes from it),
    shortened to MAX_NAME_CHARS with its suffix kept (file systems refuse long names)."""
    base = Path(filename.replace("\\", "/")).name
    cleaned = _UNSAFE.sub("_", base).lstrip(".")
    if len(cleaned) > MAX_NAME_CHARS:
        suffix = Path(cleaned).suffix[:MAX_SUFFIX_CHARS]
        cleaned = cleaned[: MAX_NAME_CHARS - len(suffix)] + suffix
    return cleaned or "upload.jsonl"


def _megabytes(size: int) -> str:
    return f"{size / 2**20:.3g} MB ({size:,} bytes)"


def upload_dataset(
    engine: Engine,
    actor: Actor,
    *,
    study: str,
    filename: str,
    data: bytes | BinaryIO,
    domain: str | None = None,
    shape: ShapeOptions | None = None,
    max_bytes: int = MAX_UPLOAD_MB * 1024 * 1024,
) -> ImportSummary:
    """Import an uploaded file (its bytes, or a readable binary stream such as Streamlit's
    UploadedFile): copied under its own name into a temporary folder, then imported.

    Raises DatasetError with the importer's problems, reported under the uploaded file name.
    """
    return upload_datasets(
        engine,
        actor,
        study=study,
        uploads=[(filename, data)],
        domain=domain,
        shape=shape,
        max_bytes=max_bytes,
    )


def upload_datasets(
    engine: Engine,
    actor: Actor,
    *,
    study: str,
    uploads: Sequence[tuple[str, bytes | BinaryIO]],
    domain: str | None = None,
    shape: ShapeOptions | None = None,
    max_bytes: int = MAX_UPLOAD_MB * 1024 * 1024,
) -> ImportSummary:
    """Import several uploaded files (name, bytes or stream) into `study` in one transaction:
    all of them or none. Each is checked (size, kind, a name given twice) before anything is
    read, then copied under its own name into one temporary folder and imported.

    Raises DatasetError with every file's problems, under the uploaded file names.
    """
    with read_session(engine) as session:
        require_admin(session, actor)
    names = [safe_upload_name(filename) for filename, _ in uploads]
    problems = [
        p
        for name, (_, data) in zip(names, uploads, strict=True)
        for p in _upload_problems(name, data, max_bytes)
    ]
    problems += [
        Problem(name, "file", "uploaded twice: give each file once")
        for name in sorted({n for n in names if names.count(n) > 1})
    ]
    if problems:
        raise DatasetError(problems)
    with tempfile.TemporaryDirectory(prefix="prb-upload-") as folder:
        paths = [Path(folder) / name for name in names]
        for path, (_, data) in zip(paths, uploads, strict=True):
            _save(data, path)
        try:
            summary = import_files(
                engine, actor, paths, study=study, domain=domain or None, shape=shape
            )
        except DatasetError as error:
            renamed = [_renamed(p, folder, names) for p in error.problems]
            raise DatasetError(renamed, error.total) from None
    for item in summary.files:
        item.file = Path(item.file).name
    return summary


def _upload_problems(name: str, data: bytes | BinaryIO, max_bytes: int) -> list[Problem]:
    size = _size_of(data)
    if size > max_bytes:
        return [
            Problem(
                name,
                "file",
                f"too large ({_megabytes(size)}); the limit is "
                f"{_megabytes(max_bytes)}: split it into several files",
            )
        ]
    if not name.lower().endswith(UPLOAD_SUFFIXES):
        return [Problem(name, "file", "expected a .jsonl, .json (an array) or .parquet file")]
    return []


@dataclass(frozen=True)
class UploadLine:
    """What one uploaded file adds to the study: pairs new, already there, refused."""

    file: str
    pairs: int
    new: int
    unchanged: int
    refused: int


def upload_lines(
    files: Sequence[str], summary: ImportSummary | None, error: DatasetError | None = None
) -> list[UploadLine]:
    """The table of an upload of `files`: from the import's summary, or (nothing imported)
    from its problems, counted by file (the lines or records refused)."""
    names = [safe_upload_name(f) for f in files]
    if summary is not None:
        found = {f.file: f for f in summary.files}
        return [
            UploadLine(n, found[n].records, found[n].added, found[n].unchanged, 0)
            for n in names
            if n in found
        ]
    located = {(p.file, p.location) for p in (error.problems if error else [])}
    return [UploadLine(n, 0, 0, 0, sum(1 for f, _ in located if f == n)) for n in names]


def _size_of(data: bytes | BinaryIO) -> int:
    if isinstance(data, bytes):
        return len(data)
    start = data.tell()
    size = data.seek(0, io.SEEK_END) - start
    data.seek(start)
    return size


def _save(data: bytes | BinaryIO, path: Path) -> None:
    """Write the upload to `path`, a stream in chunks (never a second copy in memory)."""
    if isinstance(data, bytes):
        path.write_bytes(data)
        return
    with path.open("wb") as target:
        shutil.copyfileobj(data, target, SAVE_CHUNK_BYTES)


def _renamed(problem: Problem, folder: str, names: Sequence[str]) -> Problem:
    """The problem told of the uploads' names, never of the server's temporary folder (a
    duplicate id's message names where the first one was)."""
    file, message = problem.file, problem.message
    for name in names:
        temp_path = str(Path(folder) / name)
        file = name if file == temp_path else file
        message = message.replace(temp_path, name)
    return Problem(file, problem.location, message, problem.field)


# ---------------------------------------------------------------- pairs and ratings


@dataclass(frozen=True)
class PairLine:
    domain: str
    record_id: str
    category: str
    question: str


@dataclass(frozen=True)
class StudyPairs:
    counts: list[tuple[str, int]]  # (domain, pairs), by domain
    pairs: list[PairLine]  # empty unless asked for


def study_pairs(
    engine: Engine, actor: Actor, study: str, domain: str | None = None, listed: bool = False
) -> StudyPairs:
    """The pairs of a study counted by domain (only `domain` if given), and listed if asked."""
    with read_session(engine) as session:
        require_admin(session, actor)
        study_id = stored_id(studies.get_study(session, study))
        counts = _domain_counts(session, study_id, domain)
        return StudyPairs(counts, _pair_lines(session, study_id, domain) if listed else [])


def _domain_counts(session: Session, study_id: int, domain: str | None) -> list[tuple[str, int]]:
    query = select(Pair.domain, func.count()).where(col(Pair.study_id) == study_id)
    if domain:
        query = query.where(col(Pair.domain) == domain)
    rows = session.exec(query.group_by(col(Pair.domain)).order_by(col(Pair.domain))).all()
    return [(name, count) for name, count in rows]


def _pair_lines(session: Session, study_id: int, domain: str | None) -> list[PairLine]:
    query = select(Pair.domain, Pair.record_id, Pair.category, Pair.question).where(
        col(Pair.study_id) == study_id
    )
    if domain:
        query = query.where(col(Pair.domain) == domain)
    rows = session.exec(query.order_by(col(Pair.domain), col(Pair.id)))
    return [PairLine(*row) for row in rows]


def study_domains(engine: Engine, actor: Actor, study: str) -> list[str]:
    with read_session(engine) as session:
        require_admin(session, actor)
        study_id = stored_id(studies.get_study(session, study))
        rows = session.exec(
            select(Pair.domain)
            .where(col(Pair.study_id) == study_id)
            .distinct()
            .order_by(col(Pair.domain))
        ).all()
        return list(rows)


def export_ratings(engine: Engine, actor: Actor, study: str | None = None) -> pd.DataFrame:
    """The ratings export (one row per score) of one study, or of all when `study` is None."""
    # The reporting service imports the statistics (scipy, statsmodels: ~3 s the first time);
    # the Data page imports this module, and only its export button needs them.
    from annotate.services.results.reporting import ratings_export

    with read_session(engine) as session:
        require_admin(session, actor)
        if study is not None:
            studies.get_study(session, study)  # StudyNotFound before an empty export
    return ratings_export(engine, study)
