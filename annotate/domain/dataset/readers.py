"""Reading benchmark files: JSONL, a JSON array or Parquet, one decoded value per record.

Files are streamed: JSONL line by line, a JSON array element by element (its bytes are read in
chunks and cut at the elements' boundaries), Parquet batch by batch, so memory follows the
largest record, not the file. Each value comes with its location (line or row). A problem that
stops a file from being read (invalid UTF-8 or JSON, a broken Parquet file) is raised as
`DatasetError` with its file, line and column; a record whose value can be read but not kept
(see `annotate.domain.dataset.strict_json`: too deeply nested, a duplicate key, NaN, a huge number,
NUL, a lone surrogate, binary data) is yielded as a `Problem` in its place, and reading goes on.
Validating the values against the record format is `annotate.domain.dataset.importer`'s job.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from annotate.config import MAX_RECORD_MB, MAX_RECORDS, MAX_UPLOAD_MB
from annotate.domain.dataset.problems import DatasetError, Problem
from annotate.domain.dataset.strict_json import check_value, decode_record

ProgressCallback = Callable[[int], None]
"""Called with the number of bytes just read."""

CHUNK_BYTES = 1 << 20
PARQUET_BATCH_ROWS = 32  # rows of ~35 KB become ~10x that as Python objects
PARQUET_BATCH_BYTES = 64 << 20  # fewer rows a batch when its row groups are large
MAX_ROW_GROUP_BYTES = 128 << 20  # a Parquet row group, once decompressed
MAX_FILE_BYTES = MAX_UPLOAD_MB << 20
MAX_RECORD_BYTES = MAX_RECORD_MB << 20
TOO_LARGE = (
    f"record too large (more than {MAX_RECORD_MB} MB); a record is at most {MAX_RECORD_MB} MB"
)

_NON_SPACE = re.compile(rb"[^ \t\r\n]")
_STRUCTURE = re.compile(rb'["\[\]{}]')
_STRING_END = re.compile(rb'["\\]')
_SCALAR_END = re.compile(rb"[,\] \t\r\n]")
_BOM = b"\xef\xbb\xbf"


# ---------------------------------------------------------------- reading raw objects


class RecordLimit:
    """The records one import has read so far, all its files together: one more than `limit`
    stops it with a located DatasetError. Pass one to every `read_raw` of an import."""

    def __init__(self, limit: int = MAX_RECORDS):
        self.limit = limit
        self.count = 0

    def take(self, file: str, location: str) -> None:
        self.count += 1
        if self.count > self.limit:
            message = f"more than {self.limit:,} records in one import: split it into several"
            raise DatasetError([Problem(file, location, message)])


def read_raw(
    path: Path,
    on_progress: ProgressCallback | None = None,
    *,
    finite_only: bool = True,
    limit: RecordLimit | None = None,
) -> Iterator[tuple[str, Any]]:
    """Yield (location, decoded JSON value, or the Problem that replaces it) for each record.

    Raises DatasetError for a problem that stops the file from being read any further (a file
    over MAX_FILE_BYTES among them). A record over MAX_RECORD_BYTES is a Problem in its place,
    never decoded; a record past `limit` (MAX_RECORDS for this file alone when None) stops the
    import. With `finite_only` False, NaN and infinities are kept as floats for the caller.
    """
    _check_file_size(path)
    limit = limit or RecordLimit()
    for location, value in _records(path, on_progress, finite_only):
        limit.take(str(path), location)
        yield location, value


def _records(
    path: Path, on_progress: ProgressCallback | None, finite_only: bool
) -> Iterator[tuple[str, Any]]:
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        yield from _read_jsonl(path, on_progress, finite_only)
    elif suffix == ".json":
        yield from _read_json_array(path, on_progress, finite_only)
    elif suffix == ".parquet":
        yield from _read_parquet(path, on_progress, finite_only)
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


def _check_file_size(path: Path) -> None:
    size = path.stat().st_size if path.is_file() else 0
    if size > MAX_FILE_BYTES:
        raise DatasetError(
            [
                Problem(
                    str(path),
                    "file",
                    f"too large ({size / 2**20:.3g} MB, {size:,} bytes); the limit is "
                    f"{MAX_UPLOAD_MB} MB a file: split it into several files",
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


def _read_jsonl(
    path: Path, on_progress: ProgressCallback | None, finite_only: bool
) -> Iterator[tuple[str, Any]]:
    file = str(path)
    unreported = 0  # progress is reported a chunk at a time: a call per line would cost more
    with path.open("rb") as handle:
        for number, (raw_line, size) in enumerate(_bounded_lines(handle), start=1):
            unreported += size
            if on_progress and unreported >= CHUNK_BYTES:
                on_progress(unreported)
                unreported = 0
            if raw_line is None:
                yield f"line {number}", Problem(file, f"line {number}", TOO_LARGE)
            else:
                yield from _jsonl_line(file, number, raw_line, finite_only)
    if on_progress and unreported:
        on_progress(unreported)


def _bounded_lines(handle: IO[bytes]) -> Iterator[tuple[bytes | None, int]]:
    """Each line of `handle` and its size in bytes; a line longer than MAX_RECORD_BYTES (its
    ending not counted) comes as None, read past in chunks and never held whole."""
    while line := handle.readline(MAX_RECORD_BYTES + 1):
        if len(line) <= MAX_RECORD_BYTES or line.endswith(b"\n"):
            yield line, len(line)
            continue
        size = len(line)
        while (rest := handle.readline(CHUNK_BYTES)) and not rest.endswith(b"\n"):
            size += len(rest)
        yield None, size + len(rest)


def _jsonl_line(
    file: str, number: int, raw_line: bytes, finite_only: bool
) -> Iterator[tuple[str, Any]]:
    """One JSONL line's record (nothing for a blank line). Each line stands alone, so a line
    that is not UTF-8 or not JSON yields its located Problem and the reading goes on: one run
    reports every problem of the file (the caller's ProblemLog caps the listing)."""
    location = f"line {number}"
    try:
        text = _utf8(file, raw_line.removeprefix(_BOM) if number == 1 else raw_line, number)
        # The line ending is not part of the record: a line that ends early is then reported
        # where the decoder stopped on it (line 2, column 46), not at the next line's column 1.
        text = text.rstrip("\r\n")
        if text.strip():
            yield location, decode_record(file, location, text, number, finite_only=finite_only)
    except DatasetError as error:
        yield location, error.problems[0]


def _read_json_array(
    path: Path, on_progress: ProgressCallback | None, finite_only: bool
) -> Iterator[tuple[str, Any]]:
    """Read a JSON array element by element, so that each record knows its line number."""
    file = str(path)
    with path.open("rb") as handle:
        for line, column, data in _ArrayScanner(file, handle, on_progress).elements():
            location = f"line {line}"
            text = _utf8(file, data, line)
            yield location, decode_record(file, location, text, line, column, finite_only)


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

    def _search(
        self, pattern: re.Pattern[bytes], position: int, inside: str, *, element: bool = False
    ) -> int:
        """Where `pattern` next matches from `position`, reading more as needed. Inside an
        `element` (which starts at buf[0]) no match past MAX_RECORD_BYTES is looked for."""
        while True:
            found = pattern.search(self.buf, position)
            if found is not None:
                return found.start()
            position = max(position, len(self.buf))
            if element and position > MAX_RECORD_BYTES:
                raise self._fail(0, TOO_LARGE)
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
            if end > MAX_RECORD_BYTES:
                raise self._fail(0, TOO_LARGE)
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
            return self._search(_SCALAR_END, 1, "the array", element=True)
        depth, position = 0, 0
        while True:
            position = self._search(_STRUCTURE, position, "a record", element=True)
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
            position = self._search(_STRING_END, position, "a text", element=True)
            if self.buf[position] == ord('"'):
                return position + 1
            position += 2  # a backslash and the character it escapes


def _read_parquet(
    path: Path, on_progress: ProgressCallback | None, finite_only: bool
) -> Iterator[tuple[str, Any]]:
    """Rows batch by batch. What a Parquet file holds once decompressed can be far more than the
    file (compression, a dictionary value repeated), so it is capped before decoding where the
    metadata tells (each row group) and counted as it is decoded (the whole file)."""
    import pyarrow.parquet as pq

    file = str(path)
    try:
        # read a column chunk at a time, on this thread: ~half the memory, no slower
        parquet = pq.ParquetFile(path, pre_buffer=False, buffer_size=CHUNK_BYTES)
    except Exception as error:  # pyarrow raises several types for a broken file
        problem = Problem(file, "file", f"not a readable Parquet file ({error})")
        raise DatasetError([problem]) from None
    _check_row_groups(file, parquet.metadata)
    size = path.stat().st_size
    row = reported = decoded = 0
    batches = parquet.iter_batches(batch_size=_batch_rows(parquet.metadata), use_threads=False)
    while True:
        try:
            batch = next(batches, None)
        except Exception as error:  # a corrupt page, or a type pyarrow cannot convert
            raise DatasetError(
                [Problem(file, f"row {row + 1}", f"unreadable Parquet data ({error})")]
            ) from None
        if batch is None:
            return
        decoded += batch.nbytes
        if decoded > MAX_FILE_BYTES:
            message = f"holds more than {MAX_UPLOAD_MB} MB once decompressed: split it"
            raise DatasetError([Problem(file, f"row {row + 1}", message)])
        for value in _batch_values(file, row, batch):
            row += 1
            location = f"row {row}"
            if value is _TOO_LARGE:
                yield location, Problem(file, location, TOO_LARGE)
                continue
            found = check_value(value, finite_only)
            yield location, value if found is None else Problem(file, location, found[1], found[0])
        if on_progress:  # progress is counted in bytes: the share of the file read so far
            done = size * row // max(1, parquet.metadata.num_rows)
            on_progress(done - reported)
            reported = done


_TOO_LARGE = object()
"""In place of a Parquet row over MAX_RECORD_BYTES: never turned into Python values."""


def _check_row_groups(file: str, metadata: Any) -> None:
    """Refuse, before reading any data, a row group larger than MAX_ROW_GROUP_BYTES or than
    MAX_RECORD_BYTES a row once decompressed (one value of it could not fit the cap)."""
    first = 1
    for index in range(metadata.num_row_groups):
        group = metadata.row_group(index)
        rows = max(1, group.num_rows)
        where = f"rows {first}-{first + rows - 1}" if rows > 1 else f"row {first}"
        held = f"{group.total_byte_size / 2**20:.3g} MB in {rows} row(s) once decompressed"
        if group.total_byte_size > rows * MAX_RECORD_BYTES:
            raise DatasetError([Problem(file, where, f"{TOO_LARGE} ({held})")])
        if group.total_byte_size > MAX_ROW_GROUP_BYTES:
            message = (
                f"a row group holds at most {MAX_ROW_GROUP_BYTES >> 20} MB once decompressed "
                f"({held}): write the file with smaller row groups"
            )
            raise DatasetError([Problem(file, where, message)])
        first += group.num_rows


def _batch_rows(metadata: Any) -> int:
    """Rows a batch. A batch decodes to at most its rows times its row group's decompressed
    size (every row may repeat the group's largest values), so the larger the groups, the
    fewer rows a batch: at most PARQUET_BATCH_BYTES decoded, at least one row."""
    largest = max(
        (metadata.row_group(i).total_byte_size for i in range(metadata.num_row_groups)),
        default=0,
    )
    return max(1, min(PARQUET_BATCH_ROWS, PARQUET_BATCH_BYTES // max(1, largest)))


def _batch_values(file: str, row: int, batch: Any) -> Iterator[Any]:
    """The batch's rows as Python values, one at a time; a row over MAX_RECORD_BYTES (measured
    in Arrow's buffers) as _TOO_LARGE, never converted."""
    whole = batch.nbytes <= MAX_RECORD_BYTES
    rows = [batch] if whole else [batch.slice(i, 1) for i in range(batch.num_rows)]
    for index, part in enumerate(rows):
        if not whole and part.nbytes > MAX_RECORD_BYTES:
            yield _TOO_LARGE
            continue
        try:
            values = part.to_pylist()
        except Exception as error:  # a type pyarrow cannot convert
            location = f"row {row + index + 1}"
            raise DatasetError(
                [Problem(file, location, f"unreadable Parquet data ({error})")]
            ) from None
        yield from values
