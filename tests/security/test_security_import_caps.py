"""Every import's caps (issue 32, point 8): a record over MAX_RECORD_MB, a file over the upload
cap and more than MAX_RECORDS records are refused with a located error and nothing written, and
what the caps let through peaks under 500 MB of memory.

The imports: datasets, a reward model's results, an LLM judge's aspect scores, downstream outputs
(all read by `annotate.domain.dataset.readers.read_raw`) and the study settings file. Before the
caps a 200 MB line was accepted at a 787 MB peak, a million lines cost 0.57-1.34 GB and a 4.9 MB
settings file 797 MB (a 4.9 MB text: the JSON scan's regular expression kept a backtracking frame
per character).
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from sqlalchemy import text

from annotate.config import MAX_RECORD_MB, MAX_RECORDS, MAX_UPLOAD_MB
from annotate.domain.dataset.importer import DatasetError
from annotate.domain.models.model_files import stage_model_files
from annotate.domain.study.permissions import SYSTEM
from annotate.domain.study.study_settings import MAX_FILE_BYTES, read_settings
from annotate.domain.untrusted.documents import MAX_NODES
from annotate.errors import Invalid
from annotate.services.admin.data import import_files
from support.import_memory import peak, stage_count, write_largest
from tests.helpers.foundation_helpers import make_record

MB = 2**20
PEAK_LIMIT = 500 * MB
OVER = MAX_RECORD_MB * MB + 1024  # one record just over the cap
STAGED_KINDS = ("dataset", "models", "judge", "downstream")


def _small(kind: str) -> dict[str, object]:
    """A valid record of `kind`."""
    if kind == "dataset":
        return make_record("ok_1")
    if kind == "models":
        return {"id": "ok_1", "label": "chosen", "score": 0.5}
    if kind == "judge":
        return {"id": "ok_1", "chosen": [2, 1], "rejected": [0, 1]}
    return {"id": "ok_1", "query": "q", "answer": "a", "aspects": "x", "scores": [1, 2]}


def _huge(kind: str) -> dict[str, object]:
    """A record of `kind` just over the record cap, in a text field the kind reads."""
    field = {"dataset": "chosen", "models": "note", "judge": "note", "downstream": "answer"}[kind]
    return {**_small(kind), "id": "huge", field: "h" * OVER}


def _write(path: Path, records: list[dict[str, object]]) -> Path:
    if path.suffix == ".parquet":  # every field of every record a column (from_pylist: the first's)
        keys = list(dict.fromkeys(k for r in records for k in r))
        pq.write_table(pa.table({k: [r.get(k) for r in records] for k in keys}), path)
    elif path.suffix == ".json":  # one element a line: the second starts on line 3, column 1
        path.write_text("[\n" + ",\n".join(json.dumps(r) for r in records) + "\n]\n")
    else:
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


SECOND = {"jsonl": "line 2", "json": "line 3, column 1", "parquet": "row 2"}


@pytest.mark.parametrize("fmt", ["jsonl", "json", "parquet"])
@pytest.mark.parametrize("kind", STAGED_KINDS)
def test_a_record_over_the_cap_is_refused_where_it_is(tmp_path, kind, fmt):
    path = _write(tmp_path / f"big_Art_and_Entertainment.{fmt}", [_small(kind), _huge(kind)])
    with pytest.raises(DatasetError) as refused:
        stage_count(kind, path)
    located = [p for p in refused.value.problems if "record too large" in p.message]
    assert [(p.file, p.location) for p in located] == [(str(path), SECOND[fmt])]
    assert f"at most {MAX_RECORD_MB} MB" in located[0].message


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_a_dataset_with_a_record_over_the_cap_writes_nothing(engine, tmp_path, fmt):
    records = [make_record("ok_1"), _huge("dataset"), make_record("ok_3")]
    path = _write(tmp_path / f"big_Art_and_Entertainment.{fmt}", records)
    with pytest.raises(DatasetError) as refused:
        import_files(engine, SYSTEM, [path], study="s")
    assert [p.location for p in refused.value.problems] == [SECOND[fmt]]
    with engine.connect() as connection:
        for table in ("pair", "study"):
            assert connection.execute(text(f"SELECT count(*) FROM {table}")).scalar() == 0


def test_a_long_line_is_skipped_without_being_read_whole(tmp_path):
    """The line after an over-long one is read as its own record, located on its own line."""
    lines = [json.dumps(_small("models")), "x" * (2 * OVER), '{"id": 7}']
    path = tmp_path / "m.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(DatasetError) as refused:
        stage_model_files([path])
    assert [p.location for p in refused.value.problems] == ["line 2", "line 3"]
    assert refused.value.problems[1].field == "id"


@pytest.mark.parametrize("kind", [*STAGED_KINDS, "settings"])
def test_a_file_over_the_cap_is_refused_before_it_is_read(tmp_path, kind):
    suffix = "yaml" if kind == "settings" else "jsonl"
    path = tmp_path / f"over_Art_and_Entertainment.{suffix}"
    cap = MAX_FILE_BYTES if kind == "settings" else MAX_UPLOAD_MB * MB
    with path.open("wb") as handle:  # sparse: nothing to write, and nothing is read
        handle.truncate(cap + 1)
    if kind == "settings":
        with pytest.raises(Invalid, match=rf"{path.name}: at most {cap // MB} MB"):
            read_settings(path.name, path.read_bytes())
        return
    with pytest.raises(DatasetError) as refused:
        stage_count(kind, path)
    (problem,) = refused.value.problems
    assert (problem.file, problem.location) == (str(path), "file")
    assert f"the limit is {MAX_UPLOAD_MB} MB a file" in problem.message


def test_one_import_reads_at_most_the_record_cap_all_its_files_together(tmp_path):
    """Two files of a model's scores, each under the cap, together one record over it."""
    half = MAX_RECORDS // 2
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for path, ids in ((first, range(half)), (second, range(half, MAX_RECORDS + 1))):
        lines = (f'{{"id": "p{i}", "label": "chosen", "score": 0.5}}\n' for i in ids)
        path.write_text("".join(lines))
    with pytest.raises(DatasetError) as refused:
        stage_model_files([first, second])
    over = [p for p in refused.value.problems if "records in one import" in p.message]
    assert [(p.file, p.location) for p in over] == [(str(second), f"line {MAX_RECORDS - half + 1}")]


def test_a_settings_file_with_more_values_than_a_document_holds_is_refused_where_it_is():
    text = '{"name": "s", "x": [' + ", ".join(["1"] * (MAX_NODES + 5)) + "]}"
    with pytest.raises(Invalid, match=r"s\.json, line 1, column \d+: more than 50,000 values"):
        read_settings("s.json", text.encode())


LARGEST = [
    ("dataset", "jsonl"),  # records just under the cap
    ("dataset", "parquet"),  # the same values repeated: tiny on disk, ~200 MB decoded
    ("models", "jsonl"),  # MAX_RECORDS records filling the file: all kept until the write
    ("judge", "jsonl"),
    ("downstream", "parquet"),
    ("settings", "json"),  # one text just under the settings file's cap
    ("settings", "yaml"),  # as many values as a document may hold
]


def test_what_the_caps_let_through_peaks_under_500_mb(tmp_path):
    """Each import's reading of the largest file its caps let through, in a fresh process (the
    peak is the process's own high-water mark, interpreter and libraries included)."""
    files = [(kind, write_largest(kind, tmp_path, fmt)) for kind, fmt in LARGEST]
    with ThreadPoolExecutor(max_workers=2) as pool:
        peaks = list(pool.map(lambda job: peak(*job), files))
    for (kind, path), measured in zip(files, peaks, strict=True):
        if kind != "settings":  # the settings file is refused for its unknown field, after reading
            assert measured.outcome.startswith("staged "), (kind, path.name, measured.outcome)
        assert measured.bytes < PEAK_LIMIT, (kind, path.name, measured.bytes // MB)
