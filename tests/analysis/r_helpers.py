"""GNU R for the tests that check figures against it: a skip marker where R or lmerTest is
missing (Debian: r-base-core, r-cran-lmertest; `scripts/setup.sh test` installs them)."""

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


def has_rpact() -> bool:
    if shutil.which("Rscript") is None:
        return False
    done = subprocess.run(
        ["Rscript", "-e", "library(rpact)"], capture_output=True, text=True, check=False
    )
    return done.returncode == 0


needs_rpact = pytest.mark.skipif(
    not has_rpact(), reason="needs GNU R with rpact (apt-get install r-cran-rpact)"
)
