"""The suite's files reach pytest-xdist costliest first (tests/helpers/schedule.py, issue 35.5):
nothing is dropped or split, only the files' order changes."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tests.helpers.schedule import DURATIONS, costliest_first, file_seconds, write_file_seconds


@dataclass
class Item:
    nodeid: str


def _ids(items: list[Item]) -> list[str]:
    return [item.nodeid for item in items]


def test_the_costliest_file_goes_first_with_its_tests_together_in_their_order():
    items = [
        Item("tests/a.py::one"),
        Item("tests/b.py::one"),
        Item("tests/a.py::two"),
        Item("tests/c.py::one[1]"),
        Item("tests/c.py::one[2]"),
        Item("tests/new.py::one"),
    ]
    seconds = {"tests/a.py": 1.0, "tests/b.py": 120.0, "tests/c.py": 30.0, "tests/d.py": 5.0}
    # median of the measured files: 17.5 s, so the new file goes between c and a
    assert _ids(costliest_first(items, seconds)) == [
        "tests/b.py::one",
        "tests/c.py::one[1]",
        "tests/c.py::one[2]",
        "tests/new.py::one",
        "tests/a.py::one",
        "tests/a.py::two",
    ]


def test_without_measurements_the_order_is_kept():
    items = [Item("tests/b.py::one"), Item("tests/a.py::one")]
    assert costliest_first(items, {}) == items


def test_each_pass_keeps_its_own_figures(tmp_path: Path):
    path = tmp_path / "durations.json"
    assert file_seconds("sqlite", path) == {}
    write_file_seconds("sqlite", {"tests/a.py": 12.34}, path)
    write_file_seconds("postgres", {"tests/a.py": 3.0}, path)
    assert file_seconds("sqlite", path) == {"tests/a.py": 12.3}
    assert file_seconds("postgres", path) == {"tests/a.py": 3.0}


def test_the_recorded_figures_name_test_files_of_this_checkout():
    """A file renamed or deleted since the figures were recorded only loses its place; most
    recorded files must still exist, or the figures are stale (run bench_suite.py again)."""
    root = DURATIONS.parents[2]
    for which in ("sqlite", "postgres"):
        recorded = file_seconds(which)
        assert recorded, f"no figures for the {which} pass in {DURATIONS}"
        missing = [path for path in recorded if not (root / path).exists()]
        assert len(missing) <= len(recorded) // 10, missing
