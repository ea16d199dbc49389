"""GNU R for the tests that check figures against it: a skip marker where R, lmerTest, rpact or
pbkrtest is missing (Debian: r-base-core, r-cran-lmertest, r-cran-rpact, r-cran-pbkrtest;
`scripts/setup.sh test` installs them)."""

from __future__ import annotations

import shutil
import subprocess

import pytest


def has_r_libraries(*libraries: str) -> bool:
    """Whether Rscript runs and loads every one of `libraries`."""
    if shutil.which("Rscript") is None:
        return False
    code = "; ".join(f"library({name})" for name in libraries)
    done = subprocess.run(["Rscript", "-e", code], capture_output=True, text=True, check=False)
    return done.returncode == 0


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
