"""Issue 15.7: an import reports every problem of a file in one run. A line of invalid JSON (or
of invalid UTF-8) in a JSONL file no longer stops the reading: the duplicate id and the wrongly
typed profile after it are listed in the same error, each at its line, the JSON error at the
column the decoder names; the listing is capped and the rest counted; nothing is written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlmodel import select

from annotate.db import read_session
from annotate.db.tables import Pair
from annotate.domain.dataset.importer import DatasetError
from annotate.domain.dataset.problems import MAX_PROBLEMS_KEPT
from annotate.domain.study.permissions import SYSTEM
from annotate.services.admin.data import import_files
from tests.helpers.foundation_helpers import make_record


def jsonl(path: Path, lines: list[str | bytes]) -> Path:
    path.write_bytes(b"".join((x if isinstance(x, bytes) else x.encode()) + b"\n" for x in lines))
    return path


def test_four_problems_are_listed_in_one_run(engine, tmp_path):
    broken = '{"id": "r9", "question": "Q?", "narrative": "n"' + ', "chosen" "x"}'
    column = broken.index('"x"') + 1  # the decoder's column: "Expecting ':' delimiter"
    with pytest.raises(json.JSONDecodeError) as decoder:
        json.loads(broken)
    assert decoder.value.colno == column
    path = jsonl(
        tmp_path / "Art_test.jsonl",
        [
            json.dumps(make_record("r1")),
            broken,  # line 2: invalid JSON
            json.dumps(make_record("r1")),  # line 3: duplicate id
            json.dumps(make_record("r3", profile="a string")),  # line 4: wrong type
            b'{"id": "r4\xff"}',  # line 5: invalid UTF-8
            json.dumps(make_record("r5")),
        ],
    )
    with pytest.raises(DatasetError) as caught:
        import_files(engine, SYSTEM, [path], study="s")
    found = [(p.location, p.field, p.message) for p in caught.value.problems]
    assert caught.value.total == 4
    assert found[0][0] == f"line 2, column {column}"
    assert found[0][2].startswith("invalid JSON")
    assert found[1][:2] == ("line 3", "id")
    assert "duplicate id 'r1'" in found[1][2]
    assert found[2][:2] == ("line 4", "profile")
    assert found[3][0] == "line 5"
    assert "invalid UTF-8" in found[3][2]
    with read_session(engine) as session:
        assert session.exec(select(Pair)).all() == []  # all or nothing


def test_a_file_of_garbage_is_listed_up_to_the_cap_and_counted(engine, tmp_path):
    n = MAX_PROBLEMS_KEPT + 500
    path = jsonl(tmp_path / "Art_test.jsonl", ["{not json"] * n)
    with pytest.raises(DatasetError) as caught:
        import_files(engine, SYSTEM, [path], study="s")
    assert caught.value.total == n
    assert len(caught.value.problems) == MAX_PROBLEMS_KEPT
    assert caught.value.problems[-1].location == f"line {MAX_PROBLEMS_KEPT}, column 2"


@pytest.mark.parametrize("ending", ["\n", "\r\n"])
def test_a_line_that_ends_early_is_reported_where_the_decoder_says(engine, tmp_path, ending):
    """Issue 22.9: a JSONL line of invalid JSON that ends early was reported at the next line,
    column 1 ("line 3, column 1" for the decoder's line 2, column 46)."""
    cut = '{"id": "r9", "question": "Q?", "narrative": 7'  # 45 characters, then the end
    with pytest.raises(json.JSONDecodeError) as decoder:
        json.loads(cut)
    assert (len(cut), decoder.value.lineno, decoder.value.colno) == (45, 1, 46)
    path = tmp_path / "Art_test.jsonl"
    path.write_bytes(ending.join([json.dumps(make_record("r1")), cut, ""]).encode())
    with pytest.raises(DatasetError) as caught:
        import_files(engine, SYSTEM, [path], study="s")
    (problem,) = caught.value.problems
    assert problem.location == "line 2, column 46"
    assert problem.message == f"invalid JSON: {decoder.value.msg}"
