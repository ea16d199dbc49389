"""The default questionnaire changes nothing: on databases written by the commit before the
questionnaire (ba289ce, kept as fixtures: the demo, and tests/fixtures/before_questionnaire's
before.db with a study that relabelled the four dimensions on a 0-6 scale), each study's report
JSON is byte for byte what that commit wrote, and the demo's card Markdown what main wrote just
before the analysis read the questionnaire (b59f5c2: the card's front matter had changed since
ba289ce, its report JSON had not). Written by scripts/freeze_report.py, fixed clock and seed.

"Byte for byte" but for a float's last digits: the crossed model's REML fit goes through the
BLAS, whose kernels differ by processor (AVX2 or AVX-512), and the optimiser's path follows
those last bits, so the same commit writes, say, a by-domain df of 5.711872651177606 on one
machine and 5.71187502472123 on another (measured on the three reports, an AMD EPYC with AVX-512
against the machine that froze them: a Satterthwaite df at most 1.6e-5 apart relatively, an
interval's bound 2.7e-6 absolutely). A report JSON is therefore compared token by token in
order: every key, string, whole number, true/false/null and the layout exactly, a float to 1e-4
relatively or 1e-5 absolutely; the numbers a person reads (the card, the reproduce scripts)
print fewer digits than that."""

from __future__ import annotations

import gzip
import importlib.util
import json
import lzma
import math
import re
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


FLOAT = re.compile(r"(?<![\w.\"])-?\d+(?:\.\d+(?:[eE][-+]?\d+)?|[eE][-+]?\d+)(?![\w.])")
"""A float literal of a JSON text (not inside a word; strings are compared as they are)."""


def same_but_float_bits(written: str, frozen: str) -> bool:
    """``written`` equals ``frozen`` but for each float's last digits (the module's
    docstring): the text between the floats must be identical."""
    if FLOAT.split(written) != FLOAT.split(frozen):
        return False
    pairs = zip(FLOAT.findall(written), FLOAT.findall(frozen), strict=True)
    return all(math.isclose(float(a), float(b), rel_tol=1e-4, abs_tol=1e-5) for a, b in pairs)


@pytest.mark.parametrize("frozen", FROZEN, ids=lambda p: p.name)
def test_default_questionnaire_gives_the_same_bytes(
    regenerated: dict[str, str], frozen: Path
) -> None:
    written, before = regenerated[frozen.name], frozen.read_text(encoding="utf-8")
    if frozen.name.endswith(".json"):
        json.loads(written)  # a JSON text, compared token by token
        assert same_but_float_bits(written, before)
    else:
        assert written == before


def test_the_comparison_tells_a_float_bit_from_a_change() -> None:
    """The tolerant comparison still fails on what a change would write."""
    frozen = '{\n  "ci95": [\n    -1.954903464355568,\n    1.7326812421333457\n  ],\n  "n": 3\n}'
    assert same_but_float_bits(frozen.replace("355568", "3555674"), frozen)
    assert not same_but_float_bits(frozen.replace("-1.954903464355568", "-1.9551"), frozen)
    assert not same_but_float_bits(frozen.replace('"n": 3', '"n": 4'), frozen)
    assert not same_but_float_bits(frozen.replace('"n"', '"m"'), frozen)
    assert not same_but_float_bits(frozen.replace("  ],", "],"), frozen)
