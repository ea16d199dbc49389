"""The test suite's cost per pass (issue 35, item 5): CPU seconds, wall time, the slowest tests
and the slowest files.

    python benchmarks/bench_suite.py [--pass sqlite|postgres] [--workers 2] [--out DIR]
        [--report-only DIR] [--write-durations] [PYTEST ARGS...]

Runs one pass of the suite (`pytest -n WORKERS --dist loadfile --durations=0`, on SQLite or on
the PostgreSQL server at PRB_TEST_POSTGRES_URL / 127.0.0.1:5432) and prints:

- wall seconds, and the CPU seconds (user + system) of the whole process tree: pytest, its
  workers, and every server, browser and child they started and reaped (`getrusage` of the
  children). On a shared machine the CPU seconds are the figure that survives the load; the
  wall time is printed with the load averages sampled during the run;
- the 20 slowest test phases (setup, call, teardown) and the 20 costliest files (the sum of their
  tests' phases, what `--dist loadfile` hands a worker as one piece).

The pytest output is kept in DIR (`pytest.log`); `--report-only DIR` prints the figures of a log
kept earlier. `--write-durations` records the files' seconds as the pass's figures in
tests/helpers/durations.json, the order in which pytest-xdist then hands out the files (the
costliest first: tests/helpers/schedule.py); run it after a whole pass on a quiet machine. Extra
arguments go to pytest (e.g. a test folder).
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from tests.helpers.schedule import write_file_seconds  # noqa: E402  after the path is set

POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
DURATION = re.compile(r"^(\d+(?:\.\d+)?)s (setup|call|teardown)\s+(\S+)")
SUMMARY = re.compile(r"^=* ?(\d+ (?:passed|failed).* in [\d.]+s.*?) ?=*$")


def phases(log: str) -> list[tuple[float, str, str]]:
    """(seconds, phase, test id) of every line `--durations=0` printed."""
    found = []
    for line in log.splitlines():
        match = DURATION.match(line.strip())
        if match:
            found.append((float(match[1]), match[2], match[3]))
    return found


def per_file(found: list[tuple[float, str, str]]) -> dict[str, float]:
    """Each test file's seconds: the sum of its tests' phases."""
    totals: dict[str, float] = defaultdict(float)
    for seconds, _, test in found:
        totals[test.split("::")[0]] += seconds
    return dict(totals)


def tests_per_file(found: list[tuple[float, str, str]]) -> dict[str, int]:
    """Each test file's number of tests (their call phases)."""
    counts: dict[str, int] = defaultdict(int)
    for _, phase, test in found:
        if phase == "call":
            counts[test.split("::")[0]] += 1
    return dict(counts)


def makespan(order: list[str], seconds: dict[str, float], workers: int) -> float:
    """When the last of `workers` ends if each takes the next file of `order` as it finishes
    its own (pytest-xdist's loadfile without its look-ahead): the wall time of a pass whose
    files cost what they cost here, with the load the same for every file."""
    ends = [0.0] * workers
    for path in order:
        first = ends.index(min(ends))
        ends[first] += seconds[path]
    return max(ends)


def schedules(found: list[tuple[float, str, str]], workers: int) -> None:
    """Print the makespan of pytest-xdist's order (most tests first) and ours (costliest
    first), from the files' measured seconds: the order's own effect, free of the load."""
    seconds, counts = per_file(found), tests_per_file(found)
    most_tests = sorted(seconds, key=lambda path: -counts.get(path, 0))
    costliest = sorted(seconds, key=lambda path: -seconds[path])
    total = sum(seconds.values())
    ideal = total / workers
    print(f"schedule on {workers} workers of the files' {total:.0f} s (ideal {ideal:.0f} s):")
    print(f"  most tests first (pytest-xdist): {makespan(most_tests, seconds, workers):.0f} s")
    print(f"  costliest first (ours):          {makespan(costliest, seconds, workers):.0f} s")


def report(log: str) -> None:
    """Print the summary line, the 20 slowest phases and the 20 costliest files of `log`."""
    found = phases(log)
    summary = [m[1] for line in log.splitlines() if (m := SUMMARY.match(line.strip()))]
    print(f"result: {summary[-1] if summary else '(no summary line)'}")
    print(f"test phases timed: {len(found)}, their sum {sum(s for s, _, _ in found):.0f} s")
    print("20 slowest phases:")
    for seconds, phase, test in sorted(found, reverse=True)[:20]:
        print(f"  {seconds:8.2f} s  {phase:8}  {test}")
    print("20 costliest files (sum of their phases):")
    for path, seconds in sorted(per_file(found).items(), key=lambda kv: -kv[1])[:20]:
        print(f"  {seconds:8.1f} s  {path}")


class LoadSampler(threading.Thread):
    """The 1-minute load average every `every` seconds while a pass runs."""

    def __init__(self, every: float = 15.0) -> None:
        super().__init__(daemon=True)
        self.every = every
        self.samples: list[float] = []
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            self.samples.append(os.getloadavg()[0])
            self.done.wait(self.every)


def run_pass(which: str, workers: int, out: Path, extra: list[str]) -> str:
    """Run one pass with its output in `out/pytest.log`; print wall, CPU seconds and load."""
    env = dict(os.environ)
    env.pop("PRB_TEST_DATABASE_URL", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as scripts/test.sh: bytecode cached
    if which == "postgres":
        env["PRB_TEST_DATABASE_URL"] = os.environ.get("PRB_TEST_POSTGRES_URL", POSTGRES)
    command = [sys.executable, "-m", "pytest", "-q", "--durations=0", "-p", "no:cacheprovider"]
    command += ["--basetemp", str(out / "tmp")]
    if workers:
        command += ["-n", str(workers), "--dist", "loadfile"]
    sampler = LoadSampler()
    sampler.start()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    with (out / "pytest.log").open("w") as log:
        code = subprocess.call(command + extra, cwd=REPO, env=env, stdout=log, stderr=log)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    sampler.done.set()
    cpu_user = after.ru_utime - before.ru_utime
    cpu_system = after.ru_stime - before.ru_stime
    loads = sampler.samples or [os.getloadavg()[0]]
    print(f"pass: {which}, workers: {workers}, exit code {code}")
    print(f"wall: {wall:.0f} s; CPU: {cpu_user + cpu_system:.0f} s")
    print(f"  (user {cpu_user:.0f} s, system {cpu_system:.0f} s, on {os.cpu_count()} cores)")
    print(
        f"load average (1 min) during the pass: min {min(loads):.1f}, "
        f"mean {sum(loads) / len(loads):.1f}, max {max(loads):.1f}"
    )
    return (out / "pytest.log").read_text()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pass", dest="which", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--out", type=Path, help="where to keep the log (default: a new folder)")
    parser.add_argument("--report-only", type=Path, help="print the figures of a kept log")
    parser.add_argument("--write-durations", action="store_true", help="record the files' seconds")
    args, extra = parser.parse_known_args()
    if args.report_only:
        log = (args.report_only / "pytest.log").read_text()
    else:
        out = args.out or Path(tempfile.mkdtemp(prefix=f"prb-suite-{args.which}-"))
        out.mkdir(parents=True, exist_ok=True)
        print(f"log: {out / 'pytest.log'}")
        log = run_pass(args.which, args.workers, out, extra)
    report(log)
    schedules(phases(log), max(args.workers, 1))
    if args.write_durations:
        write_file_seconds(args.which, per_file(phases(log)))
        print(f"the files' seconds recorded for the {args.which} pass")


if __name__ == "__main__":
    main()
