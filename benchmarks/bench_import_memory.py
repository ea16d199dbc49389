"""Import memory benchmark: peak RSS of an import against the size of the file (issue 16, item 1).

    python benchmarks/bench_import_memory.py [--bad-lines 1000000] [--valid-mb 100]
        [--formats jsonl,json,parquet] [--keep DIR]

Two files:

- a bad JSONL of `--bad-lines` lines `{"id":"a"}` (1,000,000 lines: 10 MB, seven problems a line;
  before the import streamed and capped its problems this took 1.06 GB through the CLI and a
  6.6 GB peak on the admin page);
- a valid JSONL of synthetic benchmark records (120 profile posts each) of about `--valid-mb` MB,
  and the same records as a JSON array and as Parquet (row groups of 500 records) unless
  `--formats` leaves them out.

Each is imported, each time in a fresh process on a fresh SQLite file, two ways:

- `prb-annotate import` (the console script as a subprocess): peak RSS from `wait4`, growth over
  the same command importing a one-record file (the idle CLI with every module loaded);
- the admin page's function, `annotate.services.admin.data.upload_dataset`, given the upload as a
  stream as the page gives it (Streamlit's UploadedFile: the whole upload in a BytesIO, which is
  counted in the baseline, as it is held by the server before the import starts): growth of the
  peak RSS (reset with /proc/self/clear_refs) over the RSS just before the call.

Printed beside each: file size, growth / file size (target: well under 3), seconds, and the
outcome (pairs added, or problems kept of the total counted).
"""

from __future__ import annotations

import argparse
import io
import itertools
import json
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # support/, beside annotate/

from annotate.config import MAX_UPLOAD_MB  # a small module: the launcher stays small
from support.import_memory import KINDS, peak, run_measured, write_largest  # lazy imports too

MB = 1024 * 1024


def _status_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")


def _page_child(db: str, file: str) -> None:
    """In a fresh process: the admin page's import of `file`, one JSON line of figures."""
    import streamlit  # noqa: F401  the server has it loaded

    from annotate.app.admin import admin_data  # noqa: F401  and the page
    from annotate.db import make_engine, write_session
    from annotate.domain.dataset.importer import DatasetError
    from annotate.domain.study import accounts
    from annotate.services.admin.data import upload_dataset

    engine = make_engine(f"sqlite:///{db}")
    with write_session(engine) as session:
        admin = int(accounts.create_account(session, "boss", role="admin")[0].id or 0)
    upload = io.BytesIO(Path(file).read_bytes())  # what Streamlit holds for an upload
    Path("/proc/self/clear_refs").write_text("5")  # restart the peak RSS count here
    baseline = _status_kb("VmRSS")
    start = time.perf_counter()
    outcome: dict[str, int] = {}
    try:
        name = Path(file).name
        summary = upload_dataset(engine, admin, study="bench", filename=name, data=upload)
        outcome["added"] = summary.added
    except DatasetError as error:
        outcome.update(kept=len(error.problems), problems=error.total)
    seconds = time.perf_counter() - start
    peak = _status_kb("VmHWM")
    figures = {"baseline": baseline * 1024, "peak": peak * 1024, "seconds": seconds}
    print(json.dumps({**figures, **outcome}))


def _measure(command: list[str]) -> None:
    """In a small fresh process: run `command`, print its figures as one JSON line."""
    seconds, peak, code, output = run_measured(command)
    last = output.strip().splitlines()[-1] if output.strip() else ""
    print(json.dumps({"seconds": seconds, "peak": peak, "code": code, "last": last}))


def _cli(folder: Path, file: Path) -> tuple[float, int, str]:
    db = folder / f"cli-{file.stem}-{time.monotonic_ns()}.db"
    prb = str(Path(sys.executable).with_name("prb-annotate"))
    cli = [prb, "--db", str(db), "import", str(file), "--study", "b"]
    _, _, _, output = run_measured([sys.executable, __file__, "--measure", *cli])
    figures = json.loads(output.strip().splitlines()[-1])
    return figures["seconds"], figures["peak"], figures["last"]


def _page(folder: Path, file: Path) -> dict[str, float]:
    db = folder / f"page-{file.stem}-{time.monotonic_ns()}.db"
    command = [sys.executable, __file__, "--page-child", str(db), str(file)]
    _, _, code, output = run_measured(command)
    if code != 0:
        sys.exit(f"the page's import failed:\n{output}")
    result: dict[str, float] = json.loads(output.strip().splitlines()[-1])
    return result


def _write_bad(path: Path, lines: int) -> Path:
    with path.open("w") as handle:
        handle.writelines('{"id":"a"}\n' for _ in range(lines))
    return path


def _write_valid(path: Path, megabytes: float) -> Path:
    from annotate.domain.dataset.synthetic import synthetic_record

    rng = random.Random(16)
    with path.open("w", encoding="utf-8") as handle:
        number = 0
        while number == 0 or handle.tell() < megabytes * MB:
            record = synthetic_record(rng, f"v_{number}", profile_size=120)
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            number += 1
    return path


def _as_array(source: Path, path: Path) -> Path:
    """The same records as one JSON array, an element a line."""
    with source.open(encoding="utf-8") as lines, path.open("w", encoding="utf-8") as handle:
        handle.write("[\n")
        for number, line in enumerate(lines):
            handle.write((",\n" if number else "") + line.rstrip("\n"))
        handle.write("\n]\n")
    return path


def _as_parquet(source: Path, path: Path, rows_per_group: int = 500) -> Path:
    """The same records as Parquet, in row groups as the dataset hub writes them."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    writer = None
    with source.open(encoding="utf-8") as lines:
        while batch := [json.loads(line) for line in itertools.islice(lines, rows_per_group)]:
            table = pa.Table.from_pylist(batch)
            writer = writer or pq.ParquetWriter(path, table.schema)
            writer.write_table(table)
    if writer is not None:
        writer.close()
    return path


def _row(label: str, size: int, growth: int, seconds: float, outcome: str) -> str:
    return (
        f"{label:<36} {size / MB:>8.1f} MB  growth {growth / MB:>7.1f} MB "
        f"({growth / size:>4.2f}x file)  {seconds:>7.1f} s  {outcome}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bad-lines", type=int, default=1_000_000)
    parser.add_argument("--valid-mb", type=float, default=100.0)
    parser.add_argument(
        "--formats", default="jsonl,json,parquet", help="the valid file's formats (JSONL always)"
    )
    parser.add_argument("--keep", type=Path, help="use (and keep) this folder, not a temp dir")
    parser.add_argument(
        "--caps-only", action="store_true", help="only the largest files the caps let through"
    )
    parser.add_argument("--page-child", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--measure", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        _measure(args.measure)
        return
    if args.page_child:
        _page_child(*args.page_child)
        return
    folder = args.keep or Path(tempfile.mkdtemp(prefix="prb-bench-memory-"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs; load {os.getloadavg()}")
        _largest(folder)
        if not args.caps_only:
            _files(args, folder)
    finally:
        if args.keep is None:
            shutil.rmtree(folder, ignore_errors=True)


def _largest(folder: Path) -> None:
    """Each import's reading of the largest file its caps let through (issue 32): peak RSS of
    the whole process (target: under 500 MB)."""
    for kind in KINDS:
        for fmt in ("jsonl", "json", "parquet") if kind != "settings" else ("json", "yaml"):
            file = write_largest(kind, folder, fmt)
            measured = peak(kind, file)
            print(
                f"largest {kind:<10} {fmt:<7} {file.stat().st_size / MB:>6.1f} MB file  "
                f"peak {measured.bytes / MB:>5.0f} MB  {measured.seconds:>5.1f} s  "
                f"{measured.outcome[:50]}"
            )
            file.unlink()


def _files(args: argparse.Namespace, folder: Path) -> None:
    tiny = _write_valid(folder / "Tiny_test.jsonl", 0)
    valid = _write_valid(folder / "Valid_test.jsonl", args.valid_mb)
    files = {"bad JSONL": _write_bad(folder / "Bad_test.jsonl", args.bad_lines)}
    files["valid JSONL"] = valid
    formats = args.formats.split(",")
    if "json" in formats:
        files["valid JSON array"] = _as_array(valid, folder / "Valid_test.json")
    if "parquet" in formats:
        files["valid Parquet"] = _as_parquet(valid, folder / "Valid_test.parquet")
    _, idle_cli, _ = _cli(folder, tiny)
    print(f"idle CLI (a one-record import): peak RSS {idle_cli / MB:.0f} MB")
    for kind, file in files.items():
        size = file.stat().st_size
        seconds, peak, last = _cli(folder, file)
        print(_row(f"CLI import, {kind}", size, peak - idle_cli, seconds, last[:60]))
        if size > MAX_UPLOAD_MB * MB:
            print(f"{'page upload_dataset':<36} skipped: over the page's {MAX_UPLOAD_MB} MB")
            continue
        page = _page(folder, file)
        outcome = (
            f"{page['added']:,.0f} pairs added"
            if "added" in page
            else f"{page['kept']:,.0f} of {page['problems']:,.0f} problems listed"
        )
        growth = int(page["peak"] - page["baseline"])
        label = f"page upload_dataset, {kind}"
        print(_row(label, size, growth, page["seconds"], outcome))
        print(f"{'':<36} (baseline RSS with the upload held: {page['baseline'] / MB:.0f} MB)")


if __name__ == "__main__":
    main()
