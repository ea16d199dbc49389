"""The default questionnaire changes nothing: on the demo database written by the commit before
the questionnaire (ba289ce, kept as a fixture), each study's report JSON is byte for byte what
that commit wrote, and its card's Markdown what main wrote just before the analysis read the
questionnaire (b59f5c2: the card's front matter had changed since ba289ce, its report JSON
had not). Both written by scripts/freeze_report.py, fixed clock and seed."""

from __future__ import annotations

import importlib.util
import lzma
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "before_questionnaire"
FROZEN = sorted((FIXTURES / "reports").iterdir())


def freeze_script() -> ModuleType:
    path = ROOT / "scripts" / "freeze_report.py"
    spec = importlib.util.spec_from_file_location("freeze_report", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    db = tmp_path_factory.mktemp("before") / "demo.db"
    db.write_bytes(lzma.decompress((FIXTURES / "demo.db.xz").read_bytes()))
    studies = sorted({p.name.split(".")[0] for p in FROZEN})
    return dict(freeze_script().frozen_files(str(db), studies))


@pytest.mark.parametrize("frozen", FROZEN, ids=lambda p: p.name)
def test_default_questionnaire_gives_the_same_bytes(
    regenerated: dict[str, str], frozen: Path
) -> None:
    assert regenerated[frozen.name] == frozen.read_text(encoding="utf-8")
