"""The package's shape holds by check, not by convention.

- The import contracts in `pyproject.toml` hold (`lint-imports`), and they can fail: a copy of the
  product with one deliberately wrong import (sqlmodel in `analysis`, a page imported by the
  domain) breaks them.
- ARCHITECTURE.md lists every product module, and every path it, the README or the manual
  (docs/) names exists.
- Every module under `annotate/` and `analysis/` has at most 450 lines or a docstring line
  "Why N lines: ..." with N its line count within 10% (issue 35.4).
- The tests mirror the code: every test folder is a code folder's name under `tests/`, but for
  the few that test the whole or hold helpers and data (issue 35.4).
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _lint_imports(tree: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--config", str(tree / "pyproject.toml"), "--no-cache"],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _product_copy(tmp_path: Path) -> Path:
    tree = tmp_path / "tree"
    for package in ("annotate", "analysis"):
        shutil.copytree(
            ROOT / package, tree / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    shutil.copy(ROOT / "pyproject.toml", tree / "pyproject.toml")
    return tree


def test_the_import_contracts_hold(tmp_path: Path) -> None:
    result = _lint_imports(_product_copy(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.mark.parametrize(
    ("module", "wrong_import", "broken_contract"),
    [
        ("analysis/inference/paired.py", "import sqlmodel", "The statistics use no database"),
        (
            "analysis/schema/tables.py",
            "from annotate.db import tables",
            "The statistics use no database",
        ),
        ("annotate/domain/rating/queue.py", "from annotate.app.participant import rate", "Layers"),
        ("annotate/db/tables.py", "from annotate.domain import studies", "Layers"),
        ("annotate/cli/data.py", "from annotate.app import session", "Layers"),
        (
            "annotate/app/participant/rate.py",
            "from annotate.db import read_session",
            "Only services",
        ),
        ("annotate/cli/studies.py", "from sqlmodel import Session", "Only services"),
        ("annotate/domain/study/studies.py", "from annotate.domain.rating import queue", "Domain"),
        ("analysis/inference/paired.py", "from analysis.designs import aspects", "Analysis"),
        ("analysis/renderers/render.py", "from analysis import report", "No import circles"),
    ],
)
def test_a_wrong_import_breaks_a_contract(
    tmp_path: Path, module: str, wrong_import: str, broken_contract: str
) -> None:
    tree = _product_copy(tmp_path)
    path = tree / module
    path.write_text(path.read_text() + f"\n{wrong_import}  # deliberately wrong\n")
    if module == "analysis/renderers/render.py":  # close a circle: report -> render -> report
        report = tree / "analysis" / "report.py"
        report.write_text(report.read_text() + "\nfrom analysis.renderers import render\n")
    result = _lint_imports(tree)
    assert result.returncode != 0
    broken = [line for line in result.stdout.splitlines() if " BROKEN" in line]
    assert any(line.startswith(broken_contract) for line in broken), result.stdout


def _product_modules() -> set[str]:
    found = set()
    for package in ("annotate", "analysis"):
        for path in (ROOT / package).rglob("*.py"):
            if path.name == "__init__.py" or "versions" in path.parts:
                continue
            found.add(path.relative_to(ROOT).as_posix())
    return found


def _named_paths(text: str) -> set[str]:
    return set(re.findall(r"`((?:annotate|analysis|support|benchmarks|tests)/[\w/.]*)`", text))


def test_architecture_lists_every_module() -> None:
    text = (ROOT / "ARCHITECTURE.md").read_text()
    missing = sorted(m for m in _product_modules() if f"`{m}`" not in text)
    assert not missing, f"ARCHITECTURE.md does not list: {missing}"


def _text_of(document: str) -> str:
    """A file's text, or every page of a folder (the manual in docs/)."""
    path = ROOT / document
    if path.is_dir():
        return "\n".join(page.read_text() for page in sorted(path.rglob("*.md")))
    return path.read_text()


@pytest.mark.parametrize("document", ["ARCHITECTURE.md", "README.md", "docs"])
def test_every_named_path_exists(document: str) -> None:
    named = _named_paths(_text_of(document))
    assert named, f"{document} names no paths: the check would pass vacuously"
    stale = sorted(path for path in named if not (ROOT / path.rstrip("/")).exists())
    assert not stale, f"{document} names paths that do not exist: {stale}"


MAX_MODULE_LINES = 450
WHY_LINES = re.compile(r"^Why (\d+) lines\b")


def _size_problems(paths: list[Path]) -> list[str]:
    """Each module over MAX_MODULE_LINES lines whose docstring has no line "Why N lines: ..."
    (issue 35.4), or whose N is more than 10% off its true line count."""
    problems = []
    for path in paths:
        text = path.read_text(encoding="utf-8")
        lines = text.count("\n")
        if lines <= MAX_MODULE_LINES:
            continue
        docstring = ast.get_docstring(ast.parse(text)) or ""
        said = [int(m[1]) for line in docstring.splitlines() if (m := WHY_LINES.match(line))]
        if not said:
            problems.append(f"{path}: {lines} lines and no 'Why {lines} lines: ...' line")
        elif abs(said[0] - lines) > 0.1 * lines:
            problems.append(f"{path}: says 'Why {said[0]} lines', has {lines}")
    return problems


def test_every_module_is_short_or_says_why() -> None:
    paths = [p for package in ("annotate", "analysis") for p in (ROOT / package).rglob("*.py")]
    assert len(paths) > 100
    problems = _size_problems(paths)
    assert not problems, "\n".join(problems)


def test_the_size_check_can_fail(tmp_path: Path) -> None:
    body = "x = 1\n" * MAX_MODULE_LINES
    short = tmp_path / "short.py"
    short.write_text(body)
    silent = tmp_path / "silent.py"
    silent.write_text('"""A module."""\n' + body)
    wrong = tmp_path / "wrong.py"
    wrong.write_text('"""A module.\n\nWhy 300 lines: one concept.\n"""\n' + body)
    right = tmp_path / "right.py"
    right.write_text('"""A module.\n\nWhy 460 lines: one concept.\n"""\n' + body)
    problems = _size_problems([short, silent, wrong, right])
    assert problems == [
        f"{silent}: 451 lines and no 'Why 451 lines: ...' line",
        f"{wrong}: says 'Why 300 lines', has 454",
    ]


WHOLE_TEST_FOLDERS = ("security", "system", "deploy", "helpers", "fixtures")
"""Test folders that mirror no code folder: they test the whole (security points, whole-system
runs, the production topology) or hold what the others share (helpers, fixture modules, data)."""


def unmirrored_test_folders(root: Path) -> list[str]:
    """Folders under `root/tests` holding Python files whose path, less `tests/`, is no folder
    of the code under `root` (the whole-test folders and their contents aside)."""
    tests = root / "tests"
    folders = {p.parent for p in tests.rglob("*.py") if "__pycache__" not in p.parts}
    wrong = []
    for folder in sorted(folders - {tests}):
        relative = folder.relative_to(tests)
        if relative.parts[0] in WHOLE_TEST_FOLDERS:
            continue
        if not (root / relative).is_dir():
            wrong.append(str(folder.relative_to(root)))
    return wrong


def test_every_test_folder_mirrors_a_code_folder() -> None:
    assert not unmirrored_test_folders(ROOT), "test folders that mirror no code folder"


def test_the_mirror_check_can_fail(tmp_path: Path) -> None:
    (tmp_path / "annotate" / "services" / "admin").mkdir(parents=True)
    for test in (
        "tests/annotate/services/admin/test_a.py",
        "tests/admin/test_b.py",
        "tests/security/test_c.py",
        "tests/test_d.py",
    ):
        (tmp_path / test).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / test).write_text("")
    assert unmirrored_test_folders(tmp_path) == ["tests/admin"]
