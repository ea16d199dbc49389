"""Security 4: uploads are limited in size, validated, and cannot choose where they are written.

The limit is one number, `annotate.config.MAX_UPLOAD_MB`: the admin page's file uploader, the
server's `--server.maxUploadSize` (which makes Streamlit refuse bigger request bodies) and
`annotate.services.admin.data.upload_dataset` (which checks again) all use it. Any problem imports
nothing.

Also covered elsewhere: tests/annotate/app/admin/test_admin_pages.py
(`test_an_invalid_upload_lists_its_problems_and_imports_nothing`: the page's problem table),
tests/annotate/domain/dataset/test_importer.py (every kind of bad record, file and line named).
"""

from __future__ import annotations

import inspect
import json
import re
import uuid
from pathlib import Path

import pytest
from sqlmodel import select
from streamlit.testing.v1 import AppTest

from annotate.app.admin import admin_data
from annotate.cli.server import streamlit_command
from annotate.config import MAX_UPLOAD_MB
from annotate.db import read_session, write_session
from annotate.db.tables import Pair
from annotate.domain.dataset.importer import DatasetError
from annotate.domain.study import accounts
from annotate.services.admin import data as data_service
from tests.helpers.foundation_helpers import make_record

MIB = 2**20


@pytest.fixture
def boss(engine) -> int:
    with write_session(engine) as session:
        return int(accounts.create_account(session, "boss", role="admin")[0].id)  # type: ignore[arg-type]


def jsonl(*records: dict) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in records).encode()


def pair_ids(engine) -> list[str]:
    with read_session(engine) as session:
        return sorted(session.exec(select(Pair.record_id)).all())


def test_the_limit_is_the_same_everywhere():
    from security_helpers import command_options

    assert MAX_UPLOAD_MB == data_service.MAX_UPLOAD_MB
    default = inspect.signature(data_service.upload_dataset).parameters["max_bytes"].default
    assert default == MAX_UPLOAD_MB * MIB
    assert command_options(streamlit_command(1))["server.maxUploadSize"] == str(MAX_UPLOAD_MB)
    assert "max_upload_size=MAX_UPLOAD_MB" in inspect.getsource(admin_data)


def test_the_page_s_uploader_has_the_limit(engine, db_url, monkeypatch, boss):
    import streamlit as st

    from annotate.config import DATABASE_ENV

    monkeypatch.setenv(DATABASE_ENV, db_url)
    st.cache_resource.clear()
    try:
        at = AppTest.from_file(str(Path(admin_data.__file__)), default_timeout=30)
        at.session_state["account_id"] = boss
        at.run()
        (uploader,) = at.get("file_uploader")
        assert uploader.proto.max_upload_size_mb == MAX_UPLOAD_MB
        assert sorted(uploader.proto.type) == [".json", ".jsonl", ".ndjson", ".parquet"]
    finally:
        st.cache_resource.clear()


def test_a_file_over_the_limit_is_refused_with_a_clear_message(engine, boss, snapshot):
    data = jsonl(make_record("r1"))
    before = snapshot(engine)
    with pytest.raises(DatasetError) as refused:
        data_service.upload_dataset(
            engine, boss, study="s", filename="Art_test.jsonl", data=data, max_bytes=len(data) - 1
        )
    (problem,) = refused.value.problems
    assert problem.file == "Art_test.jsonl"
    assert "too large" in problem.message
    assert f"{len(data):,} bytes" in problem.message
    assert f"{len(data) - 1:,} bytes" in problem.message  # the limit, exactly
    assert "split it into several files" in problem.message  # every import has the same cap
    assert snapshot(engine) == before
    # At the limit exactly, it is accepted.
    data_service.upload_dataset(
        engine, boss, study="s", filename="Art_test.jsonl", data=data, max_bytes=len(data)
    )
    assert pair_ids(engine) == ["r1"]


def test_the_default_limit_refuses_one_byte_more_than_max_upload_mb(engine, boss, snapshot):
    before = snapshot(engine)
    with pytest.raises(DatasetError, match="too large") as refused:
        data_service.upload_dataset(
            engine, boss, study="s", filename="big.jsonl", data=b" " * (MAX_UPLOAD_MB * MIB + 1)
        )
    assert f"the limit is {MAX_UPLOAD_MB} MB" in refused.value.problems[0].message
    assert snapshot(engine) == before


@pytest.mark.parametrize(
    ("content", "where", "field", "words"),
    [
        ("good\n{oops\ngood2", "line 2, column 2", None, "invalid JSON"),
        ("good\ngood2\nno-chosen", "line 3", "chosen", "missing"),
        ("good\nnumber-question", "line 2", "question", "got a number"),
        ("good\n[1, 2]", "line 2", None, "expected a JSON object"),
    ],
)
def test_a_malformed_file_names_file_line_and_field_and_writes_nothing(
    engine, boss, snapshot, content, where, field, words
):
    lines = {
        "good": make_record("g1"),
        "good2": make_record("g2"),
        "no-chosen": {k: v for k, v in make_record("g3").items() if k != "chosen"},
        "number-question": make_record("g4", question=7),
    }
    data = "\n".join(
        json.dumps(lines[line]) if line in lines else line for line in content.split("\n")
    ).encode()
    before = snapshot(engine)
    with pytest.raises(DatasetError) as refused:
        data_service.upload_dataset(engine, boss, study="s", filename="Art_test.jsonl", data=data)
    (problem,) = refused.value.problems
    assert (problem.file, problem.location, problem.field) == ("Art_test.jsonl", where, field)
    assert words in problem.message
    assert "Art_test.jsonl" in str(refused.value)
    assert where in str(refused.value)
    assert snapshot(engine) == before


@pytest.mark.parametrize(
    ("data", "filename"),
    [
        (b"PAR1 not parquet PAR1", "Art_test.parquet"),
        (b"\xff\xfe\x00\x01binary", "Art_test.jsonl"),
        (b"MZ\x90\x00", "Art_test.exe"),
        (b"<html><script>alert(1)</script>", "Art_test.html"),
        (b"", "Art_test.jsonl"),
    ],
)
def test_a_file_of_the_wrong_kind_is_refused_and_writes_nothing(
    engine, boss, snapshot, data, filename
):
    before = snapshot(engine)
    if data == b"":  # only the empty JSONL is acceptable: no records, nothing imported
        summary = data_service.upload_dataset(engine, boss, study="s", filename=filename, data=data)
        assert summary.added == 0
        assert pair_ids(engine) == []
        return
    with pytest.raises(DatasetError) as refused:
        data_service.upload_dataset(engine, boss, study="s", filename=filename, data=data)
    assert all(p.file == filename for p in refused.value.problems), refused.value.problems
    assert snapshot(engine)["pair"] == before["pair"]


def _hostile_names(escape: Path) -> list[str]:
    return [
        f"../../../../../../..{escape}",
        f"..\\..\\..\\..\\..\\..\\..{escape}".replace("/", "\\"),
        str(escape),
        f"file://{escape}",
        "Art\x00_test.jsonl",
        "Art_test.jsonl\x00.png",
        "a" * 5000 + "_test.jsonl",
        "é" * 300 + ".jsonl",
        "\u202eArt_test.jsonl",
        "..",
        ".jsonl",
        "/",
        "Art_test.jsonl/",
        "$(touch pwned)_test.jsonl",
    ]


def test_hostile_file_names_are_neutralised(engine, boss, tmp_path):
    escape = tmp_path / f"escaped-{uuid.uuid4().hex}.jsonl"
    for number, filename in enumerate(_hostile_names(escape)):
        record = make_record(f"h{number}")
        try:
            summary = data_service.upload_dataset(
                engine, boss, study="s", filename=filename, data=jsonl(record)
            )
        except DatasetError as error:  # a refused name is fine, if refused cleanly
            names = {p.file for p in error.problems}
        else:
            names = {f.file for f in summary.files}
            assert len(summary.files) == 1
            assert summary.added == 1
        for name in names:
            assert not {"/", "\\", "\x00"} & set(name), name
            assert not name.startswith("."), name
            assert 0 < len(name) <= 255, name
            assert all(c.isascii() and (c.isalnum() or c in "._-") for c in name), name
    assert not escape.exists()
    assert not list(escape.parent.glob("escaped-*"))
    assert not Path("pwned").exists()


def test_the_domain_from_a_hostile_name_is_plain(engine, boss):
    summary = data_service.upload_dataset(
        engine,
        boss,
        study="s",
        filename="<img src=x onerror=alert(1)>_test.jsonl",
        data=jsonl(make_record("r1")),
    )
    (item,) = summary.files
    assert re.fullmatch(r"[A-Za-z0-9._-]+", item.domain)
    assert "img_src_x" in item.domain
    assert re.fullmatch(r"[A-Za-z0-9._-]+", item.file)
