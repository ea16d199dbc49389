"""The published card reproduces (issue 33.5): on two studies published by `prb-annotate
publish`, the folder's own `reproduce.py` and `reproduce.R` (run as a reader would, on the
folder's files only: R reads `ratings.csv`, with only lme4, lmerTest and what Debian installs
with them on its library path, so no arrow) print the lines the card shows, which are
report.json's figures rounded to the digits that reproduce (`card_format.DECIMALS`). A figure may
differ by one in its last digit (a value on a rounding boundary), never more, and never print
more digits. The R part is skipped without R and lmerTest."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

from annotate.domain.exports.card_reproduce import reproduced_output
from tests.helpers.printed_figures import last_digit_agrees
from tests.helpers.r_helpers import has_pbkrtest

REPO = Path(__file__).resolve().parents[3]
STUDIES = {  # study -> (pairs, annotators, seed, effects)
    "alpha": (30, 3, 1, ["rubric_alignment=1.0"]),
    "beta": (24, 4, 7, ["rubric_alignment=0.6", "helpfulness=0.3"]),
}


def _publish(cli: Callable, tmp_path: Path, make_record, write_records, study: str) -> Path:
    n_pairs, n_annotators, seed, effects = STUDIES[study]
    records = [make_record(f"{study}{i}") for i in range(n_pairs)]
    dataset = write_records(tmp_path / f"Art_{study}.jsonl", records)
    assert cli("import", str(dataset), "--study", study).exit_code == 0
    effect_args = [a for e in effects for a in ("--effect", e)]
    made = cli(
        "synth", "ratings", "--study", study, "--annotators", str(n_annotators),
        "--seed", str(seed), "--count", *effect_args,
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    if study == "beta":
        left_out = cli("flags", "exclude", "beta3", "--study", study, "--reason", "broken")
        assert left_out.exit_code == 0, left_out.output
    folder = tmp_path / f"{study}-card"
    done = cli("publish", str(folder), "--study", study, "--bootstrap", "0")
    assert done.exit_code == 0, done.output
    return folder


def _expected(folder: Path) -> list[str]:
    report = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    lines = reproduced_output(report)
    card = (folder / "README.md").read_text(encoding="utf-8")
    assert "\n".join(lines) in card  # the card shows what the scripts print
    return lines


@pytest.mark.parametrize("study", sorted(STUDIES))
def test_both_scripts_print_the_cards_figures(cli, tmp_path, make_record, write_records, study):
    folder = _publish(cli, tmp_path, make_record, write_records, study)
    expected = _expected(folder)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "reproduce.py", "."], cwd=folder, env=env,
        capture_output=True, text=True, check=True, timeout=300,
    )  # fmt: skip
    last_digit_agrees(done.stdout.splitlines(), expected)
    if not has_pbkrtest():
        pytest.skip("the R part needs GNU R with lmerTest and pbkrtest (a singular fit's df)")
    csv = pd.read_csv(folder / "ratings.csv")
    assert len(csv) == len(pd.read_parquet(folder / "ratings.parquet"))
    env = {**os.environ, "R_LIBS_SITE": str(_debian_lme4_library(tmp_path)), "R_LIBS_USER": "-"}
    done = subprocess.run(
        ["Rscript", "reproduce.R", "."], cwd=folder, env=env,
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    last_digit_agrees(done.stdout.splitlines(), expected)


def _debian_lme4_library(tmp_path: Path) -> Path:
    """A library folder holding only lme4, lmerTest, pbkrtest and their dependencies (links to
    the installed ones): what `apt-get install r-cran-lme4 r-cran-lmertest r-cran-pbkrtest`
    gives a clean R (pbkrtest: Kenward-Roger's df on a singular fit, as the report)."""
    library = tmp_path / "r-library"
    library.mkdir()
    script = (
        "db <- installed.packages(); "
        'deps <- tools::package_dependencies(c("lme4", "lmerTest", "pbkrtest"), db = db, '
        'recursive = TRUE, which = c("Depends", "Imports", "LinkingTo")); '
        'keep <- unique(c("lme4", "lmerTest", "pbkrtest", unlist(deps))); '
        'keep <- keep[keep %in% rownames(db)]; priority <- db[keep, "Priority"]; '
        'keep <- keep[is.na(priority) | priority != "base"]; '
        'cat(paste(keep, db[keep, "LibPath"], sep = "\\t"), sep = "\\n")'
    )
    listed = subprocess.run(
        ["Rscript", "-e", script], capture_output=True, text=True, check=True, timeout=120
    )
    for line in listed.stdout.splitlines():
        name, path = line.split("\t")
        (library / name).symlink_to(Path(path) / name)
    assert not (library / "arrow").exists()
    return library
