"""Import benchmark: a synthetic dataset the size of the full benchmark, into a fresh SQLite file.

    python benchmarks/bench_import.py [--scale 1.0] [--profile-size 120] [--keep DIR]

Generates 2,830 pairs (767 + 989 + 1,074, profiles of 120 posts) with
`annotate.domain.dataset.synthetic.write_synthetic_benchmark`, then measures, each in a fresh Python
process so that peak memory belongs to the import alone:

- `import_files` into a new SQLite file: seconds and peak RSS;
- a re-import of the same files (a no-op): seconds;
- the same import once more under `tracemalloc`, for the peak of Python allocations;
- `prb-annotate import` as a subprocess (the console script, progress bar and all): seconds and
  peak RSS;

and prints the dataset and database sizes.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MB = 1024 * 1024


def _maxrss_bytes(ru_maxrss: int) -> int:
    # Linux reports kilobytes, macOS bytes.
    return ru_maxrss if sys.platform == "darwin" else ru_maxrss * 1024


def _child(db: str, files: list[str], trace: bool) -> None:
    """Run in a fresh process: import, re-import, print one JSON line of figures."""
    import tracemalloc

    from annotate.db import make_engine
    from annotate.domain.study.permissions import SYSTEM
    from annotate.services.admin.data import import_files

    engine = make_engine(db)
    if trace:
        tracemalloc.start()
    start = time.perf_counter()
    summary = import_files(engine, SYSTEM, files, study="bench")
    seconds = time.perf_counter() - start
    traced_peak = tracemalloc.get_traced_memory()[1] if trace else None
    if trace:
        tracemalloc.stop()
    rss_after_import = _maxrss_bytes(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    start = time.perf_counter()
    again = import_files(engine, SYSTEM, files, study="bench")
    reimport_seconds = time.perf_counter() - start
    engine.dispose()
    print(
        json.dumps(
            {
                "added": summary.added,
                "seconds": seconds,
                "peak_rss": rss_after_import,
                "traced_peak": traced_peak,
                "reimport_added": again.added,
                "reimport_unchanged": again.unchanged,
                "reimport_seconds": reimport_seconds,
            }
        )
    )


def _run_measured(command: list[str]) -> tuple[float, int, str]:
    """Run a command; return (seconds, peak RSS of that process in bytes, stdout)."""
    start = time.perf_counter()
    with tempfile.TemporaryFile("w+") as stdout, tempfile.TemporaryFile("w+") as stderr:
        process = subprocess.Popen(command, stdout=stdout, stderr=stderr, text=True)
        _, status, usage = os.wait4(process.pid, 0)  # this child's own resource usage
        seconds = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        stdout.seek(0)
        stderr.seek(0)
        if process.returncode != 0:
            sys.exit(f"{' '.join(command[:3])} ... failed:\n{stderr.read()}")
        return seconds, _maxrss_bytes(usage.ru_maxrss), stdout.read()


def _fresh_db(folder: Path, name: str) -> Path:
    path = folder / name
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return path


def _db_size(path: Path) -> int:
    return sum(
        Path(f"{path}{suffix}").stat().st_size
        for suffix in ("", "-wal", "-shm")
        if Path(f"{path}{suffix}").exists()
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of 2,830 pairs")
    parser.add_argument("--profile-size", type=int, default=120, help="profile items per pair")
    parser.add_argument("--keep", type=Path, help="use (and keep) this folder, not a temp dir")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    parser.add_argument("--trace", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.child[0], args.child[1:], args.trace)
        return

    from annotate.domain.dataset.synthetic import write_synthetic_benchmark

    folder = args.keep or Path(tempfile.mkdtemp(prefix="prb-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        start = time.perf_counter()
        files = write_synthetic_benchmark(
            folder / "data", profile_size=args.profile_size, scale=args.scale
        )
        generate_seconds = time.perf_counter() - start
        data_bytes = sum(f.stat().st_size for f in files)
        names = [str(f) for f in files]
        me = [sys.executable, str(Path(__file__).resolve())]

        cli_db = _fresh_db(folder, "cli.db")
        cli_seconds, cli_rss, cli_out = _run_measured(
            [sys.executable, "-m", "annotate", "--db", str(cli_db), "import", *names]
        )
        api_db = _fresh_db(folder, "api.db")
        _, api_rss, api_out = _run_measured([*me, "--child", str(api_db), *names])
        # api_rss covers import and re-import; the child reports its peak after the import too
        api = json.loads(api_out.strip().splitlines()[-1])
        trace_db = _fresh_db(folder, "trace.db")
        _, _, trace_out = _run_measured([*me, "--trace", "--child", str(trace_db), *names])
        traced = json.loads(trace_out.strip().splitlines()[-1])

        pairs = api["added"]
        rows = [
            ("pairs", f"{pairs:,} ({args.profile_size} profile items each)"),
            ("dataset files", f"{data_bytes / MB:,.1f} MiB in {len(files)} JSONL files"),
            ("generate", f"{generate_seconds:.2f} s"),
            ("import_files", f"{api['seconds']:.2f} s ({pairs / api['seconds']:,.0f} pairs/s)"),
            (
                "  peak RSS (process)",
                f"{api['peak_rss'] / MB:,.0f} MiB ({api_rss / MB:,.0f} MiB "
                "after the re-import too)",
            ),
            ("  tracemalloc peak", f"{traced['traced_peak'] / MB:,.0f} MiB"),
            (
                "re-import (no-op)",
                f"{api['reimport_seconds']:.2f} s "
                f"({api['reimport_added']} added, {api['reimport_unchanged']:,} unchanged)",
            ),
            ("prb-annotate import", f"{cli_seconds:.2f} s wall, incl. interpreter start-up"),
            ("  peak RSS (process)", f"{cli_rss / MB:,.0f} MiB"),
            ("database file", f"{_db_size(api_db) / MB:,.1f} MiB (SQLite, incl. WAL)"),
        ]
        width = max(len(name) for name, _ in rows)
        print(f"Python {sys.version.split()[0]} on {sys.platform}, {os.cpu_count()} CPUs")
        for name, value in rows:
            print(f"{name:<{width}}  {value}")
        if "Imported" not in cli_out:
            sys.exit(f"unexpected CLI output:\n{cli_out}")
    finally:
        if args.keep is None:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
