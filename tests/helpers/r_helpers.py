"""GNU R for the tests that check figures against it: a skip marker where R, lmerTest, rpact or
pbkrtest is missing (Debian: r-base-core, r-cran-lmertest, r-cran-rpact, r-cran-pbkrtest;
`scripts/setup.sh test` installs them)."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

LIBRARIES = ("lmerTest", "rpact", "pbkrtest")
FOUND = "PRB_TEST_R_LIBRARIES"
"""The environment variable holding which of `LIBRARIES` R loads, found once per run: set by the
pytest process (tests/conftest.py) before pytest-xdist starts its workers, which inherit it, so
R starts once per pass, not three times in every worker."""


def r_libraries() -> set[str]:
    """Which of `LIBRARIES` Rscript loads (none without R), asked once per test run."""
    if FOUND not in os.environ:
        os.environ[FOUND] = ",".join(sorted(_ask_r()))
    return set(filter(None, os.environ[FOUND].split(",")))


def _ask_r() -> set[str]:
    if shutil.which("Rscript") is None:
        return set()
    names = ", ".join(f'"{name}"' for name in LIBRARIES)
    code = f"for (p in c({names})) if (requireNamespace(p, quietly = TRUE)) cat(p, '\\n')"
    done = subprocess.run(["Rscript", "-e", code], capture_output=True, text=True, check=False)
    return set(done.stdout.split()) & set(LIBRARIES) if done.returncode == 0 else set()


def has_r_libraries(*libraries: str) -> bool:
    """Whether Rscript runs and loads every one of `libraries` (among `LIBRARIES`)."""
    assert set(libraries) <= set(LIBRARIES), f"add {libraries} to LIBRARIES"
    return set(libraries) <= r_libraries()


def has_lmertest() -> bool:
    return has_r_libraries("lmerTest")


def has_rpact() -> bool:
    return has_r_libraries("rpact")


def has_pbkrtest() -> bool:
    return has_r_libraries("lmerTest", "pbkrtest")


needs_lmertest = pytest.mark.skipif(
    not has_lmertest(), reason="needs GNU R with lmerTest (apt-get install r-cran-lmertest)"
)

needs_rpact = pytest.mark.skipif(
    not has_rpact(), reason="needs GNU R with rpact (apt-get install r-cran-rpact)"
)

needs_pbkrtest = pytest.mark.skipif(
    not has_pbkrtest(),
    reason="needs GNU R with lmerTest and pbkrtest "
    "(apt-get install r-cran-lmertest r-cran-pbkrtest)",
)
