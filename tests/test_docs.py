"""The manual's command examples run (issue 26, item 5).

Every fenced `bash` block of `docs/` marked `<!-- runnable -->` on the line before it runs in
a new folder (the repository's `data/` linked in, so its paths work) on a new SQLite database,
with `prb-annotate` the command of this checkout; every command must succeed. The generated
reference sections render, and the site builds with `mkdocs build --strict` (as in CI).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from scripts.gen_docs import GENERATORS, MARKER, expand

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
RUNNABLE = re.compile(r"<!-- runnable -->\n```bash\n(?P<code>.*?)```", re.S)


def runnable_blocks() -> list[tuple[str, str]]:
    return [
        (f"{page.relative_to(DOCS)}#{number}", found["code"])
        for page in sorted(DOCS.rglob("*.md"))
        for number, found in enumerate(RUNNABLE.finditer(page.read_text(encoding="utf-8")))
    ]


BLOCKS = runnable_blocks()


def test_the_manual_has_runnable_examples() -> None:
    assert len(BLOCKS) >= 1


@pytest.mark.sqlite_only
@pytest.mark.parametrize(("where", "code"), BLOCKS, ids=[where for where, _ in BLOCKS])
def test_a_runnable_example_runs(where: str, code: str, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, command in (("prb-annotate", " -m annotate"), ("python", "")):
        shim = bin_dir / name  # this interpreter (its virtualenv), this checkout
        shim.write_text(f'#!/bin/sh\nexec "{sys.executable}"{command} "$@"\n', encoding="utf-8")
        shim.chmod(0o755)
    work = tmp_path / "work"
    work.mkdir()
    (work / "data").symlink_to(ROOT / "data")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PRB_")}
    env |= {"PATH": f"{bin_dir}{os.pathsep}{env['PATH']}", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", code],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, f"{where}:\n{code}\n{done.stdout}\n{done.stderr}"
    assert (work / "prb_annotate.db").exists(), "the example did not use a fresh database here"


def test_every_generated_section_renders_and_every_marker_names_one() -> None:
    pages = {p: p.read_text(encoding="utf-8") for p in DOCS.rglob("*.md")}
    named = {m["name"] for text in pages.values() for m in MARKER.finditer(text)}
    assert named == set(GENERATORS), "a generator no page uses, or a page naming none"
    for page, text in pages.items():
        if MARKER.search(text):
            rendered = expand(text)
            assert not MARKER.search(rendered), page
            assert len(rendered) > len(text) + 200, page


@pytest.mark.sqlite_only
def test_the_site_builds_strictly(tmp_path: Path) -> None:
    """What CI runs after the linters, here too: a broken link, a missing page or a generated
    reference that fails to render fails the suite, not only CI."""
    mkdocs = Path(sys.executable).with_name("mkdocs")
    if not mkdocs.exists():
        pytest.skip("mkdocs is not installed (the test extras: pip install -e '.[test]')")
    done = subprocess.run(
        [str(mkdocs), "build", "--strict", "--site-dir", str(tmp_path / "site")],  # not --quiet
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "site" / "reference" / "cli" / "index.html").exists()
