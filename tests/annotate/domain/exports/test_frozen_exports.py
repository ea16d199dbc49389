"""The questionnaire changed no export (issue 35.1): a database made by the code before it
(commit ba289ce: the demo with its simulated ratings and downstream studies, and a study with
its own labels, definitions, a 0-6 scale and anchor words; see
tests/fixtures/before_questionnaire/build_database.py) is upgraded by this code and exported
with `scripts/freeze_outputs.py`; every file equals the one that commit wrote from the same
database, byte for byte (Parquet: the same table, as its metadata names the library's
version).
"""

from __future__ import annotations

import gzip
import importlib.util
import shutil
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[4]
FIXTURES = ROOT / "tests" / "fixtures" / "before_questionnaire"
EXPORTS = FIXTURES / "exports"


def _freeze_module():
    spec = importlib.util.spec_from_file_location(
        "freeze_outputs", ROOT / "scripts/freeze_outputs.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def frozen_now(tmp_path_factory) -> Path:
    """The before-database upgraded and exported by this code."""
    folder = tmp_path_factory.mktemp("frozen")
    db = folder / "before.db"
    with gzip.open(FIXTURES / "before.db.gz") as packed, db.open("wb") as plain:
        shutil.copyfileobj(packed, plain)
    _freeze_module().freeze(db, folder / "exports")
    return folder / "exports"


def _expected_files() -> list[Path]:
    return sorted(p.relative_to(EXPORTS) for p in EXPORTS.rglob("*") if p.is_file())


def test_the_same_files_are_written(frozen_now):
    written = sorted(p.relative_to(frozen_now) for p in frozen_now.rglob("*") if p.is_file())
    expected = [p.with_suffix("") if p.suffix == ".gz" else p for p in _expected_files()]
    assert written == sorted(expected)
    assert {p.parts[0] for p in written} >= {"demo", "custom", "demo-downstream"}


@pytest.mark.parametrize("name", [p for p in _expected_files() if p.suffix == ".gz"], ids=str)
def test_every_export_is_byte_identical(frozen_now, name):
    before = gzip.decompress((EXPORTS / name).read_bytes())
    assert (frozen_now / name.with_suffix("")).read_bytes() == before


@pytest.mark.parametrize("name", [p for p in _expected_files() if p.suffix == ".parquet"], ids=str)
def test_every_parquet_export_holds_the_same_table(frozen_now, name):
    pd.testing.assert_frame_equal(
        pd.read_parquet(frozen_now / name), pd.read_parquet(EXPORTS / name)
    )
