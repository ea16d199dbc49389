"""The default questionnaire changes nothing: on databases written by the commit before the
questionnaire (ba289ce, kept as fixtures: the demo, and tests/fixtures/before_questionnaire's
before.db with a study that relabelled the four dimensions on a 0-6 scale), each study's report
JSON is byte for byte what that commit wrote, and the demo's card Markdown what main wrote just
before the analysis read the questionnaire (b59f5c2: the card's front matter had changed since
ba289ce, its report JSON had not). Written by scripts/freeze_report.py, fixed clock and seed."""

from __future__ import annotations

import gzip
import importlib.util
import lzma
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "before_questionnaire"
FROZEN = sorted((FIXTURES / "reports").iterdir())
DATABASES = {  # the database each frozen study is read from, and how it is compressed
    "custom": ("before.db.gz", gzip.decompress),
    "demo": ("demo.db.xz", lzma.decompress),
    "demo-ppo": ("demo.db.xz", lzma.decompress),
}


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
    folder = tmp_path_factory.mktemp("before")
    out: dict[str, str] = {}
    for name, unpack in sorted(set(DATABASES.values())):
        studies = sorted(s for s, (db, _) in DATABASES.items() if db == name)
        db = folder / name.rsplit(".", 1)[0]
        db.write_bytes(unpack((FIXTURES / name).read_bytes()))
        out |= freeze_script().frozen_files(str(db), studies)
    return out


@pytest.mark.parametrize("frozen", FROZEN, ids=lambda p: p.name)
def test_default_questionnaire_gives_the_same_bytes(
    regenerated: dict[str, str], frozen: Path
) -> None:
    assert regenerated[frozen.name] == frozen.read_text(encoding="utf-8")
