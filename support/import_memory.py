"""Peak memory of one import's reading and checking, each in a fresh process (used by the caps
test, `tests/security/test_security_import_caps.py`, and `benchmarks/bench_import_memory.py`).

`peak(kind, file)` runs the import's staging function for `kind` (what every import, page or
command line, does before its write transaction) on `file` in a new Python process and returns
its peak resident memory with what the staging said: the number of records staged, or the
first problem. The child measures itself (the kernel's high-water mark, reset as it starts): a
count taken by `wait4` would start with the pages of the process that started it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

KINDS = ("dataset", "models", "judge", "downstream", "settings")


@dataclass(frozen=True)
class Peak:
    """What one staging run took and said."""

    bytes: int
    seconds: float
    outcome: str


def run_measured(command: list[str]) -> tuple[float, int, int, str]:
    """Run `command`; (seconds, its own peak RSS in bytes, exit code, stdout and stderr)."""
    import time

    start = time.perf_counter()
    with tempfile.TemporaryFile("w+") as output:
        process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT, text=True)
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
        output.seek(0)
        return seconds, usage.ru_maxrss * 1024, os.waitstatus_to_exitcode(status), output.read()


def peak(kind: str, file: Path) -> Peak:
    """The peak memory of staging `file` as `kind` (one of KINDS) in a fresh process."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}")
    command = [sys.executable, "-m", "support.import_memory", kind, str(file)]
    seconds, _, code, output = run_measured(command)
    if code != 0:
        raise RuntimeError(f"staging {file} as {kind} failed ({code}):\n{output[-2000:]}")
    said = json.loads(output.strip().splitlines()[-1])
    return Peak(said["peak"], seconds, said["outcome"])


def _high_water_mark() -> int:
    """This process's peak resident memory in bytes since the last reset."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmHWM in /proc/self/status")


def _outcome(kind: str, path: Path) -> str:
    """Stage `path` as `kind` in this process; the number of records, or the first problem."""
    from annotate.domain.dataset.problems import DatasetError
    from annotate.errors import Invalid

    try:
        return f"staged {stage_count(kind, path)}"
    except DatasetError as error:
        return f"refused: {error.problems[0]}"
    except Invalid as error:
        return f"refused: {str(error).splitlines()[0]}"


def stage_count(kind: str, path: Path) -> int:
    """Stage `path` as `kind` in this process; the number of records staged (DatasetError or
    Invalid as the import raises them)."""
    if kind == "dataset":
        from annotate.domain.dataset.importer import stage_files

        with stage_files([path], domain="Art_and_Entertainment") as staged:
            return staged.count
    if kind == "models":
        from annotate.domain.models.model_files import stage_model_files

        return stage_model_files([path]).n_records
    if kind == "judge":
        from annotate.domain.models.judge_aspects import stage_judge_files

        return len(stage_judge_files([path]).records)
    if kind == "downstream":
        from annotate.domain.downstream.conditions import parse_condition
        from annotate.domain.downstream.files import stage_condition

        return len(stage_condition(parse_condition("bon:rm:k16"), judged=path).records)
    from annotate.domain.study.study_settings import read_settings

    return len(read_settings(path.name, path.read_bytes()))


def write_largest(kind: str, folder: Path, fmt: str = "jsonl") -> Path:
    """A file of `kind` as large as the caps let through, shaped to cost the most memory:
    records just under MAX_RECORD_MB for datasets (texts a reader keeps whole), MAX_RECORDS
    records whose texts fill the file up to MAX_UPLOAD_MB for the others (each record kept in
    memory until the write), a settings file of one text just under its own cap."""
    from annotate.config import MAX_RECORD_MB, MAX_RECORDS, MAX_UPLOAD_MB
    from annotate.domain.study.study_settings import MAX_FILE_BYTES

    budget = MAX_UPLOAD_MB * 2**20 - 2**20  # a megabyte of room for the records' framing
    if kind == "settings":  # one text, or as many values as a document may hold
        path = folder / f"largest_settings.{fmt}"
        if fmt == "json":
            path.write_text(json.dumps({"name": "s" * (MAX_FILE_BYTES - 100)}))
        else:
            path.write_text("name:\n" + "".join(f"- {'v' * 90}\n" for _ in range(49_990)))
        return path
    if kind == "dataset":
        text = MAX_RECORD_MB * 2**20 // 2 - 4096  # chosen and rejected: half each
        records = [_dataset_record(i, text) for i in range(budget // (2 * text + 8192))]
    else:
        text = budget // MAX_RECORDS - 200
        records = [_record(kind, i, text) for i in range(MAX_RECORDS)]
    return _write(folder / f"largest_{kind}_Art_and_Entertainment.{fmt}", records, fmt)


def _dataset_record(number: int, text: int) -> dict[str, object]:
    return {
        "id": f"big_{number}",
        "question": "q?",
        "profile": [{"id": "p", "category": "c", "text": "t"}],
        "rubric_aspects": [{"aspect": "a", "evidence": "e", "reason": "r"}],
        "narrative": "n",
        "category": "anime",
        "chosen": "c" * text,
        "rejected": "r" * text,
    }


def _record(kind: str, number: int, text: int) -> dict[str, object]:
    pad = "x" * text
    if kind == "models":  # pointwise: the id is the only text there is
        return {
            "id": f"{number // 2}{pad}",
            "label": ("chosen", "rejected")[number % 2],
            "score": 0.5,
        }
    if kind == "judge":
        return {"id": f"j{number}", "chosen": [2, 1], "rejected": [0, 1], "note": pad}
    answer = {"query": "q", "answer": pad, "aspects": "a", "scores": [1, 2], "average_score": 1.5}
    return {"id": f"d{number}", **answer}


def _write(path: Path, records: list[dict[str, object]], fmt: str) -> Path:
    if fmt == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.Table.from_pylist(records), path, row_group_size=64)
        return path
    with path.open("w", encoding="utf-8") as handle:
        if fmt == "json":
            handle.write("[\n" + ",\n".join(json.dumps(r) for r in records) + "\n]\n")
        else:
            handle.writelines(json.dumps(r) + "\n" for r in records)
    return path


if __name__ == "__main__":
    Path("/proc/self/clear_refs").write_text("5")  # the peak counts from here, interpreter included
    outcome = _outcome(sys.argv[1], Path(sys.argv[2]))
    print(json.dumps({"outcome": outcome, "peak": _high_water_mark()}))  # noqa: T201 its answer
