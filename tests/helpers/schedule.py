"""The order in which pytest-xdist hands out test files: the costliest first (issue 35.5).

With `--dist loadfile` a worker takes one whole file at a time, in the order the files reach the
scheduler; pytest-xdist's own order is "most tests first", which left the one-test end-to-end
browser runs (two minutes each) for the end, when the other worker had nothing left to do. Here
the files are ordered by the seconds they took in an earlier run of the same pass
(`durations.json` beside this module, written by `benchmarks/bench_suite.py --write-durations`);
a file not measured yet comes after the measured ones that cost more than a typical file. Only
the order changes: every test still runs, each file on one worker (module fixtures shared).
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

DURATIONS = Path(__file__).with_name("durations.json")


def file_seconds(which: str, path: Path = DURATIONS) -> dict[str, float]:
    """Each test file's seconds in the last measured run of the pass `which` (sqlite or
    postgres); empty when nothing was measured."""
    if not path.exists():
        return {}
    return {str(k): float(v) for k, v in json.loads(path.read_text()).get(which, {}).items()}


def costliest_first(items: list[Any], seconds: dict[str, float]) -> list[Any]:
    """`items` with the files in decreasing measured cost, each file's tests together and in
    their own order; an unmeasured file counts as the median file."""
    if not seconds:
        return items
    typical = statistics.median(seconds.values())
    by_file: dict[str, list[Any]] = {}
    for item in items:
        by_file.setdefault(item.nodeid.split("::")[0], []).append(item)
    order = sorted(by_file, key=lambda path: -seconds.get(path, typical))  # stable: ties kept
    return [item for path in order for item in by_file[path]]


def write_file_seconds(which: str, totals: dict[str, float], path: Path = DURATIONS) -> None:
    """Record `totals` (file -> seconds) as the pass `which`'s figures, the other pass's kept."""
    known = json.loads(path.read_text()) if path.exists() else {}
    known[which] = {k: round(v, 1) for k, v in sorted(totals.items())}
    path.write_text(json.dumps(known, indent=1, sort_keys=True) + "\n")
