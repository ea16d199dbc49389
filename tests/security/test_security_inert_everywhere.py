"""Point 12: text that admins and participants type is inert everywhere (issue 24, item 9).

A study name, an anchor, a survey answer, a comment or a reason holding a Markdown link, an
image, a heading, HTML or a bare URL renders as its own characters: on the pages' titles and
messages (`annotate.app.safe_text.plain_text`), in the Markdown, HTML and LaTeX reports and in
the published card (`annotate.markup`). Each rendering is parsed with markdown-it (CommonMark,
with tables) and must hold no link, image, HTML or heading from the text. The ratings CSV
writes a cell a spreadsheet would run as a formula (=, +, -, @, tab, CR) with a leading
apostrophe, as the drill-down's does; Parquet and JSONL keep the raw values.

Older tests on the same ground: `test_security_hostile_text.py` (dataset texts in Chromium)."""

from __future__ import annotations

import io
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest
from markdown_it import MarkdownIt

from analysis.renderers.html_report import html_table
from analysis.renderers.latex import latex_table
from analysis.renderers.render import markdown_table
from analysis.schema.tables import Table
from annotate.db import write_session
from annotate.domain.exports.card_format import table as card_table
from annotate.domain.exports.export import ratings_bytes
from annotate.domain.study import accounts, studies
from annotate.markup import markdown_cell, markdown_text

HOSTILE = [
    "[click](https://evil.example/x)",
    "![tracker](https://evil.example/p.png)",
    "<img src=x onerror=alert(1)> <b>bold</b>",
    "# Heading",
    "<https://evil.example>",
    "see https://evil.example and www.evil.example",
    ":red[red] :material/warning: $x^2$",
    "*emphasis* __strong__ `code`",
    "[ref]: https://evil.example/r",
]
ACTIVE = {
    "link_open",
    "image",
    "html_inline",
    "html_block",
    "heading_open",
    "em_open",
    "strong_open",
    "code_inline",
}
MD = MarkdownIt("commonmark").enable("table")


def _tokens(markdown: str) -> set[str]:
    found: set[str] = set()
    stack = list(MD.parse(markdown))
    while stack:
        token = stack.pop()
        found.add(token.type)
        stack.extend(token.children or [])
    return found


def _texts(markdown: str) -> str:
    out, stack = [], list(MD.parse(markdown))
    while stack:
        token = stack.pop(0)
        if token.type == "text":
            out.append(token.content)
        stack[:0] = token.children or []
    return "".join(out)


@pytest.mark.parametrize("text", HOSTILE)
def test_a_name_renders_as_its_own_characters(text):
    shown = markdown_text(text)
    assert not _tokens(shown) & ACTIVE, shown
    assert _texts(shown) == " ".join(text.split())
    assert not re.search(r"(?<!\\)://|www\.", shown)  # no bare-URL autolink either


@pytest.mark.parametrize("text", HOSTILE)
def test_report_and_card_tables_keep_a_cell_inert(text):
    table = Table(
        headers=["annotator", "survey_job"], rows=[["p1", text], [text, "-0.52"]], note=text
    )
    report = markdown_table(table) + "\n\n[ref]\n"  # a definition in the note would link it
    for markdown in (report, "\n".join(card_table(table.headers, table.rows))):
        assert not _tokens(markdown) & ACTIVE, markdown
        assert text.replace("\n", " ") in _texts(markdown).replace("|", "")
        assert not re.search(r"(?<!\\)://|www\.", markdown)
    assert markdown_cell("<0.001") == "<0.001"
    assert markdown_cell("rubric_alignment") == "rubric_alignment"


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, _attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)


@pytest.mark.parametrize("text", HOSTILE)
def test_the_html_and_latex_reports_keep_a_cell_inert(text):
    table = Table(headers=["annotator", text], rows=[[text, "1"]], note=text)
    parser = _Tags()
    parser.feed(html_table(table))
    assert not {"a", "img", "b", "script"} & set(parser.tags)
    latex = latex_table(table, caption=text, label="t")
    assert "\\includegraphics" not in latex
    assert "$x^2$" not in latex


def test_study_name_and_anchor_are_inert_on_the_studies_page(engine, db_url, monkeypatch):
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    from annotate.app.admin import admin_studies
    from annotate.config import DATABASE_ENV
    from tests.helpers.apptest_helpers import pick_study

    name = "[click](https://evil.example) ![i](https://evil.example/p.png) <b>x</b>"
    with write_session(engine) as session:
        studies.create_study(session, name, seed=7)
        admin = accounts.create_account(session, "boss", role="admin")[0].id
    monkeypatch.setenv(DATABASE_ENV, db_url)
    st.cache_resource.clear()
    try:
        at = AppTest.from_file(str(Path(admin_studies.__file__)), default_timeout=60)
        at.session_state["account_id"] = admin
        at.run()
        pick_study(at, name)
        assert not at.exception, [e.value for e in at.exception]
        shown = [t.value for t in at.title] + [s.value for s in at.subheader]
        assert any(name in _texts(markdown) for markdown in shown), shown
        for markdown in shown:
            assert not _tokens(markdown) & ACTIVE, markdown
    finally:
        st.cache_resource.clear()


def test_the_ratings_csv_protects_formulas_and_parquet_jsonl_keep_them():
    formulas = [
        '=HYPERLINK("https://evil.example","x")',
        "+1+1",
        "-2+3",
        "@SUM(A1)",
        "\tcmd",
        "\rcmd",
    ]
    frame = pd.DataFrame(
        {
            "annotator": ["p1"] * len(formulas),
            "score": [-1, 2, 3, 4, 5, 6],
            "comment": formulas,
            "survey_job": formulas[::-1],
        }
    )
    csv = pd.read_csv(io.BytesIO(ratings_bytes(frame, "csv")), keep_default_na=False)
    for column in ("comment", "survey_job"):
        assert all(cell.startswith("'") for cell in csv[column]), list(csv[column])
        assert [cell[1:] for cell in csv[column]] == list(frame[column])
    assert list(csv["score"]) == [-1, 2, 3, 4, 5, 6]  # numbers are not touched
    raw = pd.read_parquet(io.BytesIO(ratings_bytes(frame, "parquet")))
    assert list(raw["comment"]) == formulas
    lines = ratings_bytes(frame, "jsonl").decode().splitlines()
    assert [json.loads(line)["comment"] for line in lines] == formulas
