"""`prb-annotate publish --study S DIR` (issue 15.8): the folder loads with pandas, its card's
front matter parses as YAML with the hub's keys, the card states the protocol, the verdict, the
exclusions and the reward models; an existing folder is refused and left as it was.

The folder read by `datasets.load_dataset` config by config, and its Croissant metadata, are
checked in tests/annotate/domain/exports/test_card_metadata.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
import yaml

from annotate.domain.exports.card_data import size_category
from annotate.domain.exports.card_reproduce import reproduced_output
from annotate.domain.exports.published import FREE_TEXT_FIELDS
from annotate.vocabulary import DEFAULT_HOLM, EXPORT_COLUMNS, PROVENANCE_EXPORT_COLUMNS
from tests.helpers.printed_figures import last_digit_agrees


@pytest.fixture
def rated(cli, tmp_path, make_record, write_records) -> Path:
    """Study `s`: 10 pairs rated by 3 simulated annotators, r3 excluded, one reward model."""
    dataset = write_records(tmp_path / "Art_test.jsonl", [make_record(f"r{i}") for i in range(10)])
    assert cli("import", str(dataset), "--study", "s").exit_code == 0
    assert cli("synth", "ratings", "--study", "s", "--annotators", "3", "--count").exit_code == 0
    outputs = tmp_path / "rm.jsonl"
    made = cli("synth", "model-outputs", str(dataset), "-o", str(outputs), "--accuracy", "0.8")
    assert made.exit_code == 0, made.output
    assert cli("models", "import", str(outputs), "--study", "s", "--model", "rm-a").exit_code == 0
    excluded = cli("flags", "exclude", "r3", "--study", "s", "--reason", "label | wrong")
    assert excluded.exit_code == 0, excluded.output
    return tmp_path


def front_matter(card: str) -> dict:
    assert card.startswith("---\n")
    head, _, _ = card[4:].partition("\n---\n")
    return yaml.safe_load(head)


def test_publish_writes_a_folder_a_hub_and_pandas_can_read(cli, rated):
    folder = rated / "card"
    result = cli("publish", str(folder), "--study", "s", "--bootstrap", "0")
    assert result.exit_code == 0, result.output
    names = sorted(p.name for p in folder.iterdir())
    assert names == [
        "README.md",
        "croissant.json",
        "plan.json",
        "preference.parquet",
        "ratings.csv",
        "ratings.parquet",
        "report.html",
        "report.json",
        "report.md",
        "reproduce.R",
        "reproduce.py",
    ]

    ratings = pd.read_parquet(folder / "ratings.parquet")
    kept = [c for c in PROVENANCE_EXPORT_COLUMNS if c not in FREE_TEXT_FIELDS]  # not disclosed
    assert list(ratings.columns) == [*EXPORT_COLUMNS, *kept, "annotator_excluded", "excluded"]
    assert len(ratings) == 10 * 3 * 8
    assert set(ratings.loc[ratings["excluded"], "pair_id"]) == {"r3"}
    assert pq.read_schema(folder / "ratings.parquet").field("score").type == "int64"

    report = json.loads((folder / "report.json").read_text())
    assert report["n_pairs"] == 9  # r3 left out of every figure
    assert [e["pair_id"] for e in report["exclusions"]["excluded_pairs"]] == ["r3"]
    assert "rm-a" in report["reward_models"]
    # one Holm default everywhere (issue 33.6): the card's by-domain family is adjusted as the
    # command line's and the results page's are
    assert report["settings"]["holm"] is DEFAULT_HOLM is True
    assert (folder / "report.html").read_text().startswith("<!DOCTYPE html>")

    card = (folder / "README.md").read_text()
    meta = front_matter(card)
    assert meta["license"] == "cc-by-4.0"
    assert meta["task_categories"]
    assert meta["size_categories"] == ["n<1K"]
    config, preference = meta["configs"]  # no aspect checklist here
    assert config["data_files"] == [{"split": "train", "path": "ratings.parquet"}]
    assert config["default"] is True
    assert preference["config_name"] == "preference"
    body = card.split("\n---\n", 1)[1]
    for statement in [
        "**Blinding**",
        "**Overlap**: 3 annotator(s)",
        "**Scale**: 1 to 5",
        "**Equivalence margin**",
        "3 SIMULATED annotators",
        "## Verdict",
        "## Agreement",
        "## Human accuracy",
        "| rm-a | pointwise |",
        "| r3 | label \\| wrong | system |",
    ]:
        assert statement in body, statement
    validated = "**VALIDATED**" if report["checks"]["validated"] else "**NOT validated**"
    assert validated in body
    _python_twin_agrees(folder, report)


def _python_twin_agrees(folder, report):
    """The folder's reproduce.py recomputes every dimension's verdict and interval of
    report.json from ratings.parquet (issue 23.9), to the card's printed digits (issue 33.5; the R
    script is run in tests/annotate/cli/test_publish_reproduce.py)."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3])}
    done = subprocess.run(
        [sys.executable, "reproduce.py", "."], cwd=folder, env=env,
        capture_output=True, text=True, check=True, timeout=300,
    )  # fmt: skip
    last_digit_agrees(done.stdout.splitlines(), reproduced_output(report))


def test_an_existing_folder_or_a_study_without_ratings_is_refused(cli, rated):
    folder = rated / "taken"
    folder.mkdir()
    (folder / "keep.txt").write_text("mine")
    result = cli("publish", str(folder), "--study", "s", "--bootstrap", "0")
    assert result.exit_code == 1
    assert "not an empty folder" in result.stderr
    assert [p.name for p in folder.iterdir()] == ["keep.txt"]
    assert cli("studies", "create", "empty").exit_code == 0
    result = cli("publish", str(rated / "new"), "--study", "empty")
    assert result.exit_code == 1
    assert "no ratings yet" in result.stderr
    assert not (rated / "new").exists()
    assert not [p for p in rated.iterdir() if p.name.startswith(".new")]  # no staging left


def test_a_margin_in_sd_is_stated_in_its_unit_and_the_folder_is_readable(cli, rated):
    edited = cli(
        "studies", "edit", "s", "--margin", "0.3", "--margin-unit", "sd", "--yes", "--force"
    )
    assert edited.exit_code == 0, edited.output
    folder = rated / "sd"
    result = cli("publish", str(folder), "-s", "s", "--bootstrap", "0")
    assert result.exit_code == 0, result.output
    card = (folder / "README.md").read_text()
    assert "**Equivalence margin**: 0.30 sd (TOST on general quality); in scale points: " in card
    assert "scale points (TOST" not in card
    # the margin was forced after the ratings: the card says what changed, from what, when
    assert "**Analysis plan: changed after data: equivalence margin 0.5 -> 0.3 on 20" in card
    assert "| margin | 0.5 | 0.3 | 20" in card
    assert "| unit | points | sd | 20" in card
    assert json.loads((folder / "plan.json").read_text())["changed_after_data"] is True
    assert folder.stat().st_mode & 0o777 == 0o755  # not mkdtemp's private folder


def test_license_option_and_size_categories(cli, rated):
    folder = rated / "mit"
    assert (
        cli("publish", str(folder), "-s", "s", "--bootstrap", "0", "--license", "mit").exit_code
        == 0
    )
    assert front_matter((folder / "README.md").read_text())["license"] == "mit"
    assert [size_category(n) for n in (0, 999, 1000, 99_999, 100_000, 10**6)] == [
        "n<1K",
        "n<1K",
        "1K<n<10K",
        "10K<n<100K",
        "100K<n<1M",
        "n>1M",
    ]


def test_disclosed_free_text_with_an_address_is_warned_about_and_masked_on_request(
    cli, rated, engine
):
    """Issue 32: a warning before disclosing free text holding e-mail-like strings, and
    `--mask-emails`, which replaces each with [e-mail] and keeps the rest as typed."""
    from sqlmodel import col, select

    from annotate.db import write_session
    from annotate.db.tables import Assignment

    with write_session(engine) as session:
        first = session.exec(select(Assignment).order_by(col(Assignment.id)).limit(1)).one()
        first.comment = "great pair, write to jo.smith@example.org (at work)"
    plain = cli("publish", str(rated / "plain"), "--study", "s", "--bootstrap", "0",
                "--disclose", "comment")  # fmt: skip
    assert plain.exit_code == 0, plain.output
    assert "e-mail-like strings (comment: 1 entries)" in plain.stderr
    comments = set(pd.read_parquet(rated / "plain" / "ratings.parquet")["comment"].dropna())
    assert "great pair, write to jo.smith@example.org (at work)" in comments
    masked = cli("publish", str(rated / "masked"), "--study", "s", "--bootstrap", "0",
                 "--disclose", "comment", "--mask-emails")  # fmt: skip
    assert masked.exit_code == 0, masked.output
    assert "e-mail" not in masked.stderr
    comments = set(pd.read_parquet(rated / "masked" / "ratings.parquet")["comment"].dropna())
    assert "great pair, write to [e-mail] (at work)" in comments
    assert not any("@" in c for c in comments)
    quiet = cli("publish", str(rated / "none"), "--study", "s", "--bootstrap", "0")
    assert "e-mail" not in quiet.stderr  # nothing disclosed: nothing to warn about
