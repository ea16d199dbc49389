"""The Data page's input shape (issue 35.2): the shape, RM-Bench's pairing and a field map picked
on the page reach the importer; a bad field map is refused before anything is read. AppTest on
the test's database."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import streamlit as st
from sqlmodel import select
from streamlit.testing.v1 import AppTest

from annotate.app.admin import admin_data
from annotate.app.safe_text import plain_text
from annotate.config import DATABASE_ENV
from annotate.db import read_session, write_session
from annotate.db.tables import Pair
from annotate.domain.dataset.shapes import Shape
from annotate.domain.study import accounts

RMBENCH = {
    "id": 4,
    "prompt": "Why is the sky blue?",
    "chosen": ["c0", "c1", "c2"],
    "rejected": ["r0", "r1", "r2"],
    "domain": "chat",
}


@pytest.fixture
def page(engine, db_url, monkeypatch) -> Iterator[AppTest]:
    monkeypatch.setenv(DATABASE_ENV, db_url)
    st.cache_resource.clear()
    with write_session(engine) as session:
        account, _ = accounts.create_account(session, "boss", role="admin")
    at = AppTest.from_file(str(Path(admin_data.__file__)), default_timeout=60)
    at.session_state["account_id"] = int(account.id)  # type: ignore[arg-type]
    at.run()
    at.text_input(key="upload_new_study").input("rm")
    at.file_uploader(key="upload_file").set_value(
        [("total_dataset.jsonl", (json.dumps(RMBENCH) + "\n").encode(), "application/json")]
    )
    yield at
    st.cache_resource.clear()


def _import(at: AppTest) -> None:
    (button,) = [b for b in at.button if b.label == "Import"]
    button.click().run()
    assert not at.exception, [e.value for e in at.exception]


def test_the_shape_and_pairing_picked_on_the_page_are_imported(page, engine):
    page.selectbox(key="upload_shape").set_value(Shape.RMBENCH)
    page.selectbox(key="upload_rmbench_pairing").set_value("0-2")
    _import(page)
    with read_session(engine) as session:
        (pair,) = session.exec(select(Pair)).all()
    assert (pair.record_id, pair.domain, pair.chosen, pair.rejected) == (
        "4:0-2",
        "chat",
        "c0",
        "r2",
    )


def test_a_bad_field_map_is_refused_and_imports_nothing(page, engine):
    page.text_input(key="upload_field_map").input("chosen=better")
    _import(page)
    assert [e.value for e in page.error] == [plain_text("field map: rejected must be mapped")]
    with read_session(engine) as session:
        assert session.exec(select(Pair)).all() == []
