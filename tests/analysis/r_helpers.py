"""GNU R for the tests that check figures against it: a skip marker where R, lmerTest or
pbkrtest is missing (Debian: r-base-core, r-cran-lmertest, r-cran-pbkrtest; `scripts/setup.sh
test` installs them)."""

from __future__ import annotations

import shutil
import subprocess

import pytest


def has_lmertest() -> bool:
    if shutil.which("Rscript") is None:
        return False
    done = subprocess.run(
        ["Rscript", "-e", "library(lmerTest)"], capture_output=True, text=True, check=False
    )
    return done.returncode == 0


needs_lmertest = pytest.mark.skipif(
    not has_lmertest(), reason="needs GNU R with lmerTest (apt-get install r-cran-lmertest)"
)


def has_pbkrtest() -> bool:
    if shutil.which("Rscript") is None:
        return False
    done = subprocess.run(
        ["Rscript", "-e", "library(lmerTest); library(pbkrtest)"],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.returncode == 0


needs_pbkrtest = pytest.mark.skipif(
    not has_pbkrtest(),
    reason="needs GNU R with lmerTest and pbkrtest "
    "(apt-get install r-cran-lmertest r-cran-pbkrtest)",
)
