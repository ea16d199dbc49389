"""Streamlit's "magic" draws every expression standing alone in a page's script, a string
included: a docstring under a constant of a page module appears on the page (the Monitor page
showed one above its title). Only the module's own docstring is exempt."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import annotate.app

APP = Path(annotate.app.__file__).parent
PAGES = ["main.py", "login.py", "participant/rate.py", "results/results.py", "admin/study_files.py"]
SCRIPTS = sorted([*(APP / page for page in PAGES), *(APP / "admin").glob("admin_*.py")])


def _loose_strings(path: Path) -> list[int]:
    body = ast.parse(path.read_text(encoding="utf-8")).body
    return [
        node.lineno
        for node in body[1:]  # the first may be the module's docstring
        if isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    ]


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_no_page_script_holds_a_string_streamlit_would_draw(script: Path) -> None:
    assert _loose_strings(script) == [], f"{script.name}: a string Streamlit would draw"


def test_the_check_finds_such_a_string(tmp_path: Path) -> None:
    page = tmp_path / "page.py"
    page.write_text('"""Doc."""\nLIMIT = 3\n"""Drawn on the page."""\n', encoding="utf-8")
    assert _loose_strings(page) == [3]
