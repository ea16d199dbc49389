"""The export's provenance columns (issue 15.6) on the demo study: the CSV loads straight into
pandas with the dtypes the manual documents, and the validation report is the same as before
the provenance columns, skip rows and adjudications were added to the export.

GNU R's `read.csv` reads the same file without options (`Rscript`, from Debian's r-base-core,
which `scripts/setup.sh test` installs; the R test is skipped where R is missing).
"""

from __future__ import annotations

import io
import json
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from sqlmodel import select

from analysis.report import build_report
from annotate.db import read_session, write_session
from annotate.db.tables import Annotator, Assignment, Pair
from annotate.domain.exports.export import ratings_bytes, ratings_dataframe
from annotate.domain.exports.publish import RATINGS_COLUMNS
from annotate.domain.study import accounts
from annotate.domain.study.permissions import SYSTEM
from annotate.services.admin import adjudication, flags
from annotate.services.admin.demo import DEMO_STUDY, set_up_demo
from annotate.services.participant.rating import skip_pair, submit_rating
from annotate.vocabulary import EXPORT_COLUMNS, PROVENANCE_EXPORT_COLUMNS, FlagAction

READ_OPTIONS = {
    "dtype": {
        "pair_id": "str",
        "score": "Int64",
        "revision": "Int64",
        "focus_losses": "Int64",
        "pastes": "Int64",
    }
}
"""What the manual (docs/reference/export.md) tells pandas users to pass to `read_csv`."""

DOCUMENTED = {  # the manual's table: column -> pandas (3) dtype after read_csv(**READ_OPTIONS)
    "study": "str",
    "pair_id": "str",
    "domain": "str",
    "annotator": "str",
    "response": "str",
    "side": "str",
    "dimension": "str",
    "score": "Int64",
    "seconds": "float64",
    "created_at": "str",
    "purpose": "str",
    "status": "str",
    "revision": "Int64",
    "revision_history": "str",
    "comment": "str",
    "flagged": "bool",
    "flag_reason": "str",
    "flag_resolution": "str",
    "flag_note": "str",
    "skip_reason": "str",
    "queue_position": "int64",
    "shown_at": "str",
    "focus_losses": "Int64",
    "pastes": "Int64",
    "pair_excluded": "bool",
    "exclusion_reason": "str",
}

SCORES = {side: dict.fromkeys(("factuality", "relevance", "helpfulness"), 3) for side in "AB"}


def _assignment(engine, name: str, position: int) -> Assignment:
    with read_session(engine) as session:
        return session.exec(
            select(Assignment)
            .join(Annotator, Annotator.id == Assignment.annotator_id)
            .where(Annotator.name == name, Assignment.position == position)
        ).one()


def _rate(engine, item: Assignment, rubric: int, **kw) -> None:
    given = {side: {**SCORES[side], "rubric_alignment": rubric} for side in "AB"}
    submit_rating(
        engine, annotator_id=item.annotator_id, assignment_id=item.id, scores=given, seconds=7.5,
        **kw,
    )  # fmt: skip


@pytest.fixture
def demo_export(engine) -> pd.DataFrame:
    """The demo with 4 simulated annotators, and the demo annotator's work: a rating revised,
    a flagged rating resolved, a skip; one pair excluded and one adjudicated."""
    setup = set_up_demo(engine, simulated_annotators=4)
    first, second, third = (_assignment(engine, setup.annotator, p) for p in range(3))
    _rate(engine, first, 4)
    _rate(engine, first, 2, comment="changed my mind")
    _rate(engine, second, 5, flag_reason="the profile contradicts the question")
    skip_pair(engine, annotator_id=third.annotator_id, assignment_id=third.id, reason="too long")
    flags.resolve_flag(
        engine, SYSTEM, study=DEMO_STUDY, assignment_id=second.id, action=FlagAction.RESOLVED,
        note="kept",
    )  # fmt: skip
    with read_session(engine) as session:
        excluded, adjudicated = session.exec(
            select(Pair.record_id).where(Pair.id.in_([first.pair_id, second.pair_id]))  # type: ignore[union-attr]
        ).all()
    flags.exclude_pair(engine, SYSTEM, study=DEMO_STUDY, record_id=excluded, reason="typo")
    with write_session(engine) as session:
        accounts.create_account(session, "judge", role="adjudicator")
    adjudication.set_threshold(engine, SYSTEM, study=DEMO_STUDY, threshold=0)
    adjudication.send(engine, SYSTEM, study=DEMO_STUDY, record_id=adjudicated, adjudicator="judge")
    _rate(engine, _assignment(engine, "judge", 0), 1)
    return ratings_dataframe(engine, DEMO_STUDY)


def test_the_csv_loads_in_pandas_with_the_documented_dtypes(demo_export):
    assert list(DOCUMENTED) == [*EXPORT_COLUMNS, *PROVENANCE_EXPORT_COLUMNS]
    back = pd.read_csv(io.BytesIO(ratings_bytes(demo_export, "csv")), **READ_OPTIONS)
    assert {c: str(t) for c, t in back.dtypes.items()} == DOCUMENTED
    assert set(back["status"]) == {"done", "skipped"}
    assert set(back["purpose"]) == {"rating", "adjudication"}
    assert back["flagged"].sum() == 8
    assert back["pair_excluded"].sum() > 0
    assert (back["flag_resolution"] == "resolved").sum() == 8
    revised = back[back["revision"] > 1]
    assert len(revised) == 2  # the rubric scores of both responses changed 4 -> 2
    assert {json.loads(h)[0]["score"] for h in revised["revision_history"]} == {4}
    assert (back["revision_history"].dropna() != "").sum() == len(back) - 1  # not the skip row
    parquet = pd.read_parquet(io.BytesIO(ratings_bytes(demo_export, "parquet")))
    assert list(parquet.columns) == list(DOCUMENTED)
    assert str(parquet["score"].dtype) == "Int64"  # nullable integers survive in Parquet


def test_the_report_is_the_same_as_from_the_fixed_columns_of_ordinary_rows(demo_export, tmp_path):
    ordinary = demo_export[
        (demo_export["purpose"] == "rating") & (demo_export["status"] != "skipped")
    ]
    fixed = ordinary[list(EXPORT_COLUMNS)].astype({"score": "int64"})
    expected = build_report(fixed, n_boot=0)
    report = build_report(demo_export, n_boot=0)
    missing = report.pop("missing_data")  # only the skips and flags are the export's own
    assert expected.pop("missing_data")["n_skipped"] == 0
    assert (missing["n_skipped"], missing["n_flagged"]) == (1, 1)  # 8 flagged scores: 1 rating
    assert report == expected
    path = tmp_path / "ratings.csv"
    path.write_bytes(ratings_bytes(demo_export, "csv"))
    from_csv = build_report(path, n_boot=0)  # what `python -m analysis report` reads
    assert from_csv.pop("missing_data") == missing
    assert from_csv == expected


def test_the_manual_and_the_dataset_card_document_every_provenance_column():
    root = Path(__file__).resolve().parents[4]
    page = (root / "docs" / "reference" / "export.md").read_text(encoding="utf-8")
    for column in PROVENANCE_EXPORT_COLUMNS:
        assert f"| `{column}` | {DOCUMENTED[column]} |" in page, column
    assert set(PROVENANCE_EXPORT_COLUMNS) <= set(RATINGS_COLUMNS)  # the card's column table


R_READ = """
frame <- read.csv(commandArgs(trailingOnly = TRUE)[1])
cat(nrow(frame), ncol(frame), "\\n")
cat(names(frame), sep = ",")
cat("\\n")
cat(sapply(frame, class)[c("score", "flagged", "pair_excluded", "queue_position")], sep = ",")
cat("\\n")
cat(sum(frame$flagged), sum(frame$status == "skipped"), sum(is.na(frame$score)), "\\n")
cat(sum(frame$score, na.rm = TRUE), "\\n")
"""


@pytest.mark.skipif(
    shutil.which("Rscript") is None, reason="needs GNU R (apt-get install r-base-core)"
)
def test_the_csv_loads_in_r_without_options(demo_export, tmp_path):
    path = tmp_path / "ratings.csv"
    path.write_bytes(ratings_bytes(demo_export, "csv"))
    script = tmp_path / "read.R"
    script.write_text(R_READ, encoding="utf-8")
    said = subprocess.run(
        ["Rscript", str(script), str(path)], capture_output=True, text=True, check=True, timeout=60
    ).stdout.splitlines()
    back = pd.read_csv(path, **READ_OPTIONS)
    assert said[0].split() == [str(len(back)), str(len(back.columns))]
    assert said[1].split(",") == list(back.columns)
    assert said[2].split(",") == ["integer", "logical", "logical", "integer"]
    skips = int((back["status"] == "skipped").sum())
    assert said[3].split() == [str(int(back["flagged"].sum())), str(skips), str(skips)]
    assert said[4].split() == [str(int(back["score"].sum()))]
