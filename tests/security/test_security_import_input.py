"""Security 8: hostile dataset input gets a located error, never a traceback, and writes nothing.

Every case of issue 16, item 4: a lone surrogate (in a text, in a key), nesting 100,000 deep (and
900 deep in an extra field), a 5,000-digit integer, a non-UTF-8 binary column in Parquet, NUL in a
text, a 1 MB id, an empty id, ids that differ only by surrounding whitespace (refused, not
trimmed), a key repeated in one object, NaN and the infinities. Each is imported behind a valid
first record into a study that already holds pairs, through the CLI's service (`import_files`)
and the admin page's (`upload_dataset`, given a stream as the page gives it), on the test
database (SQLite, or PostgreSQL with `PRB_TEST_DATABASE_URL`: NUL and the long id used to crash
only there). Each must name the file, the line (or row), the field and what was expected, and
leave every table as it was.

Also covered elsewhere: tests/annotate/domain/dataset/test_importer.py (malformed files and
records), tests/security/test_security_uploads.py (size limit, file names).
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from annotate.db import write_session
from annotate.domain.dataset.importer import DatasetError
from annotate.domain.dataset.strict_json import MAX_NESTING
from annotate.domain.study import accounts
from annotate.domain.study.permissions import SYSTEM
from annotate.services.admin.data import import_files, upload_dataset
from tests.helpers.admin_helpers import as_read
from tests.helpers.foundation_helpers import make_record


@dataclass(frozen=True)
class Hostile:
    name: str  # the file's name (its suffix picks the reader)
    data: bytes
    location: str  # where the problem must be located
    field: str | None
    message: str  # a part of the message: what was expected


def _line(record: dict, **raw: str) -> str:
    """A record as one JSON line, with `raw` JSON text spliced in for the fields named."""
    text = json.dumps(record)
    for key, value in raw.items():
        text = text[:-1] + f", {json.dumps(key)}: {value}}}"
    return text


def _jsonl(*lines: str) -> bytes:
    return ("\n".join([json.dumps(make_record("ok_1")), *lines]) + "\n").encode()


def _array(*elements: str) -> bytes:
    return ("[\n" + ",\n".join([json.dumps(make_record("ok_1")), *elements]) + "\n]").encode()


def _parquet(bad: dict) -> bytes:
    good = make_record("ok_1")
    columns = {key: [good.get(key), bad.get(key)] for key in {**good, **bad}}
    sink = pa.BufferOutputStream()
    pq.write_table(pa.table(columns), sink)
    return sink.getvalue().to_pybytes()


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


BAD = make_record("bad_1")
CASES = [
    Hostile(
        "A_test.jsonl",
        _jsonl(_line(BAD, note='"x\\ud800y"')),
        "line 2",
        "note",
        "lone surrogate",
    ),
    Hostile(
        "A_test.jsonl",
        _jsonl(_line({**BAD, "chosen": "PLACEHOLDER"}).replace("PLACEHOLDER", "\\udfff")),
        "line 2",
        "chosen",
        "lone surrogate",
    ),
    Hostile(
        "A_test.jsonl",
        _jsonl(_line(BAD, deep=_nested(100_000))),
        "line 2",
        "deep",
        f"at most {MAX_NESTING} levels",
    ),
    Hostile(
        "A_test.json",
        _array(_line(BAD, deep=_nested(100_000))),
        "line 3",
        "deep",
        f"at most {MAX_NESTING} levels",
    ),
    Hostile(
        "A_test.jsonl",
        _jsonl(_line(BAD, meta=f'{{"a": {_nested(900)}}}')),
        "line 2",
        "meta",
        f"at most {MAX_NESTING} levels",
    ),
    Hostile(
        "A_test.jsonl",
        _jsonl(_line(BAD, big="9" * 5000)),
        "line 2",
        "big",
        "expected a 64-bit integer",
    ),
    Hostile(
        "A_test.parquet",
        _parquet({**BAD, "blob": b"\xff\xfe\x00binary"}),
        "row 2",
        "blob",
        "binary data; expected text",
    ),
    Hostile(
        "A_test.parquet",
        _parquet({**BAD, "chosen": "NUL\x00here"}),
        "row 2",
        "chosen",
        "NUL character",
    ),
    Hostile(
        "A_test.parquet",
        _parquet({**BAD, "score": float("nan")}),
        "row 2",
        "score",
        "expected a finite number",
    ),
    Hostile(
        "A_test.jsonl",
        _jsonl(json.dumps({**BAD, "question": "NUL\x00here"})),
        "line 2",
        "question",
        "NUL character",
    ),
    Hostile(
        "A_test.jsonl",
        _jsonl(json.dumps(make_record("x" * 2**20))),
        "line 2",
        "id",
        "expected at most 200",
    ),
    Hostile("A_test.jsonl", _jsonl(json.dumps(make_record(""))), "line 2", "id", "id is empty"),
    Hostile(
        "A_test.jsonl",
        _jsonl(json.dumps(make_record("ok_1 "))),
        "line 2",
        "id",
        "leading or trailing whitespace",
    ),
    Hostile(
        "A_test.jsonl",
        _jsonl(json.dumps(make_record("\tbad_1"))),
        "line 2",
        "id",
        "leading or trailing whitespace",
    ),
    Hostile(
        "A_test.jsonl",
        _jsonl(_line(BAD, chosen='"a replacement chosen text"')),
        "line 2",
        "chosen",
        "appears twice in one object",
    ),
    Hostile(
        "A_test.json",
        _array(_line(BAD, id='"bad_2"')),
        "line 3",
        "id",
        "appears twice in one object",
    ),
    Hostile("A_test.jsonl", _jsonl(_line(BAD, x="NaN")), "line 2", "x", "NaN is not allowed"),
    Hostile(
        "A_test.jsonl",
        _jsonl(_line(BAD, x='{"y": [1, Infinity]}')),
        "line 2",
        "x",
        "Infinity is not allowed",
    ),
    Hostile(
        "A_test.jsonl",
        _jsonl(_line(BAD, x="-Infinity")),
        "line 2",
        "x",
        "-Infinity is not allowed",
    ),
    Hostile("A_test.jsonl", _jsonl(_line(BAD, x="1e400")), "line 2", "x", "out of range"),
    Hostile(
        "A_test.jsonl",
        _jsonl(json.dumps(BAD)[:-1] + ', "k\\ud800": 1}'),
        "line 2",
        "k\\ud800",  # the key escaped: it could not be printed or sent to the page as it is
        "lone surrogate",
    ),
    Hostile(
        "A_test.jsonl",
        _jsonl(json.dumps(BAD)[:-1] + ', "k\\u0000": 1, "k\\u0000": 2}'),
        "line 2",
        "k\\x00",
        "appears twice in one object",
    ),
]
IDS = [
    "surrogate-extra",
    "surrogate-chosen",
    "nesting-100000-jsonl",
    "nesting-100000-array",
    "nesting-900-extra",
    "integer-5000-digits",
    "parquet-binary",
    "parquet-nul",
    "parquet-nan",
    "nul-in-text",
    "id-1mb",
    "id-empty",
    "id-trailing-space",
    "id-leading-tab",
    "duplicate-key-chosen",
    "duplicate-key-id-array",
    "nan",
    "infinity-nested",
    "minus-infinity",
    "float-overflow",
    "surrogate-in-a-key",
    "nul-in-a-repeated-key",
]


@pytest.fixture
def admin(engine) -> int:
    """An admin account, and a study that already holds a pair (it must stay as it is)."""
    with write_session(engine) as session:
        account, _ = accounts.create_account(session, "boss", role="admin")
        admin_id = int(account.id)  # type: ignore[arg-type]
    return admin_id


@pytest.fixture
def existing(engine, tmp_path: Path) -> None:
    path = tmp_path / "before" / "A_test.jsonl"
    path.parent.mkdir()
    path.write_text(json.dumps(make_record("already_1")) + "\n")
    import_files(engine, SYSTEM, [path], study="s")


def _check(error: DatasetError, case: Hostile, file: str) -> None:
    (problem,) = error.problems
    assert (problem.file, problem.location, problem.field) == (file, case.location, case.field)
    assert case.message in problem.message, problem.message
    assert error.total == 1
    assert str(problem) in str(error)
    assert "Traceback" not in str(error)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_the_cli_import_locates_the_problem_and_writes_nothing(
    engine, tmp_path, snapshot, existing, case
):
    path = tmp_path / case.name
    path.write_bytes(case.data)
    before = snapshot(engine)
    with pytest.raises(DatasetError) as refused:
        import_files(engine, SYSTEM, [path], study="s")
    _check(refused.value, case, str(path))
    assert snapshot(engine) == before


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_the_page_upload_locates_the_problem_and_writes_nothing(
    engine, snapshot, existing, admin, case
):
    before = snapshot(engine)
    with pytest.raises(DatasetError) as refused:
        upload_dataset(engine, admin, study="s", filename=case.name, data=io.BytesIO(case.data))
    _check(refused.value, case, case.name)
    assert snapshot(engine) == before


def test_the_same_records_without_the_hostile_values_import(engine, tmp_path):
    """The cases' valid parts import, so each refusal above is the hostile value's doing."""
    path = tmp_path / "A_test.jsonl"
    path.write_bytes(_jsonl(_line(BAD, meta=f'{{"a": {_nested(MAX_NESTING - 3)}}}', big="9" * 18)))
    summary = import_files(engine, SYSTEM, [path], study="s")
    assert summary.added == 2


# ---------------------------------------------------------------- the admin page itself


PAGE_CASES = ["nesting-100000-jsonl", "duplicate-key-chosen", "surrogate-in-a-key"]


@pytest.fixture
def data_page(engine, db_url, monkeypatch, admin):
    """`data_page(name, data)`: the admin's data page after uploading `data` as `name`."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    from annotate.app.admin import admin_data
    from annotate.config import DATABASE_ENV

    monkeypatch.setenv(DATABASE_ENV, db_url)
    st.cache_resource.clear()

    def upload(name: str, data: bytes) -> AppTest:
        at = AppTest.from_file(str(Path(admin_data.__file__)), default_timeout=60)
        at.session_state["account_id"] = admin
        at.run()
        at.selectbox[0].set_value("s")
        at.file_uploader(key="upload_file").set_value((name, data, "application/json"))
        (button,) = [b for b in at.button if b.label == "Import"]
        button.click().run()
        assert not at.exception, [e.value for e in at.exception]
        return at

    yield upload
    st.cache_resource.clear()


@pytest.mark.parametrize(
    "case",
    [CASES[IDS.index(name)] for name in PAGE_CASES],
    ids=PAGE_CASES,
)
def test_the_page_shows_the_located_problem(engine, snapshot, existing, data_page, case):
    before = snapshot(engine)
    at = data_page(case.name, case.data)
    assert [as_read(e.value) for e in at.error] == [
        f"Nothing was imported: 1 problem(s) in {case.name}."
    ]
    table = at.dataframe[0].value
    assert list(table["where"]) == [case.location]
    assert list(table["field"]) == [case.field]
    assert case.message in table["problem"][0]
    assert snapshot(engine) == before


def test_the_page_lists_the_first_problems_of_a_huge_bad_file(engine, existing, data_page):
    from annotate.domain.dataset.problems import MAX_PROBLEMS_KEPT

    at = data_page("A_test.jsonl", b'{"id":"a"}\n' * 3000)
    (message,) = [as_read(e.value) for e in at.error]
    assert message == (
        f"Nothing was imported: 21,000 problem(s) in A_test.jsonl. "
        f"The first {MAX_PROBLEMS_KEPT:,} are listed."
    )
    assert len(at.dataframe[0].value) == MAX_PROBLEMS_KEPT


def test_a_study_name_too_long_to_index_is_refused(engine, tmp_path, snapshot, existing, admin):
    from annotate.domain.study.studies import MAX_NAME_CHARS, StudyError

    before = snapshot(engine)
    with pytest.raises(StudyError, match=f"at most {MAX_NAME_CHARS} characters"):
        upload_dataset(engine, admin, study="s" * 2**20, filename="A_test.jsonl", data=_jsonl())
    assert snapshot(engine) == before


def test_an_upload_s_problems_never_name_the_server_s_temporary_folder(engine, admin):
    record = json.dumps(make_record("twice"))
    with pytest.raises(DatasetError) as refused:
        upload_dataset(
            engine, admin, study="s", filename="A_test.jsonl", data=f"{record}\n{record}\n".encode()
        )
    (problem,) = refused.value.problems
    assert problem.message == "duplicate id 'twice' (first at A_test.jsonl, line 1)"
    assert "prb-upload-" not in str(refused.value)


@pytest.mark.parametrize("case", [CASES[IDS.index(name)] for name in PAGE_CASES], ids=PAGE_CASES)
def test_the_command_line_prints_the_located_problem(engine, db_url, tmp_path, monkeypatch, case):
    """`prb-annotate import` itself: exit 1, the located problem on stderr, no traceback."""
    from typer.testing import CliRunner

    from annotate.cli.common import State, app

    monkeypatch.delenv("PRB_DATABASE_URL", raising=False)
    path = tmp_path / case.name
    path.write_bytes(case.data)
    try:
        result = CliRunner().invoke(app, ["--db", db_url, "import", str(path), "--study", "s"])
    finally:
        if State._engine is not None:
            State._engine.dispose()
    assert result.exit_code == 1
    assert isinstance(result.exception, SystemExit)
    output = result.stdout + result.stderr
    assert f"{path}, {case.location}, field '{case.field}': " in output, output
    assert case.message in output
    assert "Traceback" not in output
    assert "Nothing was imported." in output
