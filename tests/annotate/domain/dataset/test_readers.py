"""The streaming readers: a JSON array cut into elements whatever the chunk boundaries, and the
problems of a huge bad file capped (kept and counted), no database involved.

Also covered elsewhere: tests/annotate/domain/dataset/test_importer.py (formats and located errors
end to end), tests/security/test_security_import_input.py (hostile values).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from annotate.domain.dataset import readers
from annotate.domain.dataset.importer import DatasetError, stage_files
from annotate.domain.dataset.problems import MAX_PROBLEMS_KEPT, Problem
from annotate.domain.dataset.readers import read_raw

ARRAY_ELEMENTS = [
    {"id": "a", "text": 'quote " and backslash \\ and brace } ] inside'},
    {
        "id": "b",
        "nested": [[1, 2], {"k": [None, True, False]}],
        "unicode": "caf\u00e9 \u2603 \U0001f600",
    },
    {"id": "c\\", "escaped": "\\\\\\", "slash": "\\u0022 is not a quote here"},
    "a bare string",
    12345,
    [],
    {},
]


def _texts() -> list[str]:
    compact = json.dumps(ARRAY_ELEMENTS, ensure_ascii=False)
    spaced = "\ufeff \n[\n" + ",\n\t ".join(json.dumps(e) for e in ARRAY_ELEMENTS) + "\r\n]\n\n"
    return [compact, spaced]


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 64, 1 << 20])
@pytest.mark.parametrize("variant", [0, 1])
def test_a_json_array_reads_the_same_at_every_chunk_size(tmp_path, monkeypatch, chunk, variant):
    monkeypatch.setattr(readers, "CHUNK_BYTES", chunk)
    path = tmp_path / "A_test.json"
    path.write_text(_texts()[variant], encoding="utf-8")
    read = list(read_raw(path))
    assert [value for _, value in read] == ARRAY_ELEMENTS
    if variant == 1:  # one element a line, after the BOM, a blank line and the bracket
        assert [location for location, _ in read] == [f"line {i}" for i in range(3, 10)]


@pytest.mark.parametrize("chunk", [1, 5, 1 << 20])
@pytest.mark.parametrize(
    ("text", "location", "message"),
    [
        ('[{"id": "a"},\n {"id": "b" "x"}]', "line 2, column 13", "Expecting ','"),
        ('[{"id": "a"},\n {"id": "b"}', "line 2, column 13", "the file ends inside the array"),
        ('[{"id": "a"},\n {"id": "b', "line 2, column 11", "the file ends inside a text"),
        ('[{"id": "a"},\n {"id": ["b"]', "line 2, column 14", "the file ends inside a record"),
        ('[{"id": "a"},\n]', "line 2, column 1", "expected a record after ','"),
        ('[{"id": "a"} {"id": "b"}]', "line 1, column 14", "expected ',' or ']'"),
        ('[{"id": "a"}]\n]', "line 2, column 1", "extra data after the array"),
        ('\n\n  {"id": "a"}', "line 3, column 3", "expected a JSON array"),
    ],
)
def test_a_broken_json_array_is_located(tmp_path, monkeypatch, chunk, text, location, message):
    monkeypatch.setattr(readers, "CHUNK_BYTES", chunk)
    path = tmp_path / "A_test.json"
    path.write_text(text)
    with pytest.raises(DatasetError) as caught:
        list(read_raw(path))
    (problem,) = caught.value.problems
    assert problem.location == location, problem
    assert message in problem.message, problem


def test_a_file_of_many_bad_lines_keeps_the_first_problems_and_counts_all(tmp_path):
    path = tmp_path / "A_test.jsonl"
    lines = 3 * MAX_PROBLEMS_KEPT
    path.write_text('{"id":"a"}\n' * lines)
    with pytest.raises(DatasetError) as caught:
        stage_files([path])
    error = caught.value
    assert error.total == 7 * lines  # seven missing fields a line
    assert len(error.problems) == MAX_PROBLEMS_KEPT
    assert error.problems[0] == Problem(
        str(path), "line 1", "missing; this field is required", "question"
    )
    assert str(error).splitlines()[-1] == f"... and {7 * lines - 20} more problem(s)"


def test_staged_records_are_read_back_from_the_spool(tmp_path, make_record, monkeypatch):
    from annotate.domain.dataset import importer

    monkeypatch.setattr(importer, "SPOOL_MEMORY_BYTES", 1024)  # spill to disk at once
    path = tmp_path / "A_test.jsonl"
    records = [make_record(f"r{i}") for i in range(50)]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    with stage_files([path]) as staged:
        items = list(staged.items())
        assert staged.count == 50
        assert [i.data["id"] for i in items] == [r["id"] for r in records]
        assert [i.location for i in items] == [f"line {n}" for n in range(1, 51)]
        assert list(staged.items()) == items  # read twice: the check, then the write


def test_read_raw_never_holds_a_jsonl_file_in_one_piece(tmp_path: Path):
    """Values come one at a time: the first is yielded before the rest of the file is read.
    A line of invalid JSON is its located Problem, and the reading goes on (issue 15.7)."""
    path = tmp_path / "A_test.jsonl"
    path.write_text('{"id": "1"}\n' + "{broken\n" + '{"id": "3"}\n')
    values = read_raw(path)
    assert next(values) == ("line 1", {"id": "1"})
    location, problem = next(values)
    assert location == "line 2"
    assert isinstance(problem, Problem)
    assert problem.location == "line 2, column 2"
    assert next(values) == ("line 3", {"id": "3"})
