"""Several dataset files uploaded at once on the Data page (issue 26.3): all imported in one
transaction or none, with a table of what each file adds (pairs, new, unchanged, refused).
The service on the shared engine (SQLite, or PostgreSQL with PRB_TEST_DATABASE_URL); the page
with AppTest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from annotate.app.admin import admin_data
from annotate.config import DATABASE_ENV
from annotate.db import write_session
from annotate.domain.dataset.problems import DatasetError
from annotate.domain.study import accounts
from annotate.services.admin.data import UploadLine, upload_datasets, upload_lines


def _jsonl(records) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in records).encode()


@pytest.fixture
def admin(engine) -> int:
    with write_session(engine) as session:
        account, _ = accounts.create_account(session, "boss", role="admin")
        return int(account.id)  # type: ignore[arg-type]


def test_files_import_together_and_the_table_says_what_each_added(engine, admin, make_record):
    first = _jsonl([make_record("a1"), make_record("a2")])
    upload_datasets(engine, admin, study="s", uploads=[("Art_test.jsonl", first)])
    second = _jsonl([make_record("b1"), make_record("b2"), make_record("b3")])
    summary = upload_datasets(
        engine,
        admin,
        study="s",
        uploads=[("Art_test.jsonl", first), ("Science_test.jsonl", second)],
    )
    assert upload_lines(["Art_test.jsonl", "Science_test.jsonl"], summary) == [
        UploadLine("Art_test.jsonl", 2, 0, 2, 0),
        UploadLine("Science_test.jsonl", 3, 3, 0, 0),
    ]


def test_one_bad_file_imports_nothing_of_any(engine, admin, make_record, snapshot):
    good = _jsonl([make_record("g1"), make_record("g2")])
    bad = _jsonl([make_record("x1")]) + b'{"id": "x2"}\n{"id": "x3"}\n'
    before = snapshot(engine)
    with pytest.raises(DatasetError) as refused:
        upload_datasets(
            engine, admin, study="s", uploads=[("Art_test.jsonl", good), ("Law_test.jsonl", bad)]
        )
    assert snapshot(engine) == before
    assert {p.file for p in refused.value.problems} == {"Law_test.jsonl"}
    lines = upload_lines(["Art_test.jsonl", "Law_test.jsonl"], None, refused.value)
    assert [(line.file, line.new, line.refused) for line in lines] == [
        ("Art_test.jsonl", 0, 0),
        ("Law_test.jsonl", 0, 2),  # lines 2 and 3
    ]
    with pytest.raises(DatasetError, match="uploaded twice"):
        upload_datasets(
            engine, admin, study="s", uploads=[("Art_test.jsonl", good), ("Art_test.jsonl", good)]
        )


def test_the_page_takes_several_files_and_shows_the_table(
    engine, db_url, monkeypatch, admin, make_record
):
    monkeypatch.setenv(DATABASE_ENV, db_url)
    st.cache_resource.clear()
    try:
        at = AppTest.from_file(str(Path(admin_data.__file__)), default_timeout=60)
        at.session_state["account_id"] = admin
        at.run()
        uploader = at.file_uploader(key="upload_file")
        assert uploader.accept_multiple_files
        at.selectbox(key="upload_study").set_value("(a new study)")
        at.text_input(key="upload_new_study").input("multi")
        uploader.set_value(
            [
                ("Art_test.jsonl", _jsonl([make_record("a1")]), "application/json"),
                (
                    "Law_test.jsonl",
                    _jsonl([make_record("l1"), make_record("l2")]),
                    "application/json",
                ),
            ]
        )
        (button,) = [b for b in at.button if b.label == "Import"]
        button.click().run()
        assert not at.exception, [e.value for e in at.exception]
        table = at.dataframe[0].value
        assert list(table["file"]) == ["Art_test.jsonl", "Law_test.jsonl"]
        assert list(table["new"]) == [1, 2]
        assert list(table["refused"]) == [0, 0]
        assert "Imported into multi: 2 file(s), 3 new pair(s)." in [s.value for s in at.success]
    finally:
        st.cache_resource.clear()
