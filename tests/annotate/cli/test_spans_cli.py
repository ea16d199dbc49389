"""Spans from the command line (issue 36.3): a study's span labels given in its questionnaire
file (`studies create --questionnaire FILE`) and shown by `studies show`; `export --kind spans`
writes one row per span kept, in CSV, JSONL and Parquet, the side mapped on the server and the
slice of the stored response; the ratings export keeps its columns."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from sqlmodel import select

from annotate.db import make_engine, read_session, write_session
from annotate.db.tables import Assignment
from annotate.domain.assignment import assign_pairs, study_pairs
from annotate.domain.study import accounts
from annotate.domain.study.studies import get_study
from annotate.services.participant.rating import submit_rating
from annotate.vocabulary import (
    DIMENSIONS,
    EXPORT_COLUMNS,
    PROVENANCE_EXPORT_COLUMNS,
    SPAN_EXPORT_COLUMNS,
)

SCORES = {s: dict.fromkeys(DIMENSIONS, 3) for s in "AB"}
QUESTIONNAIRE = """template: prb
span_labels:
  - {key: rubric, label: Breaks the rubric}
  - {key: error, label: Factual error}
"""
CHOSEN = "Try 🎉 *Project Hail Mary*: standalone, great on audio."
REJECTED = "Start *The Expanse*, a nine-book series with a TV adaptation."


@pytest.fixture
def rated(run, db_url, tmp_path, write_records, make_record):
    """Study 'sp' with two span labels, 2 pairs rated with a span on each side; the side the
    chosen response was shown on, by pair."""
    records = [make_record(f"r{i}", chosen=CHOSEN, rejected=REJECTED) for i in range(2)]
    path = write_records(tmp_path / "Books_test.jsonl", records)
    spec = tmp_path / "questionnaire.yaml"
    spec.write_text(QUESTIONNAIRE, encoding="utf-8")
    run("studies", "create", "sp", "--questionnaire", str(spec))
    run("import", str(path), "--study", "sp")
    engine = make_engine(db_url)
    with write_session(engine) as session:
        target = get_study(session, "sp")
        account, _ = accounts.create_account(session, "ana")
        assign_pairs(session, target, account, study_pairs(session, target))
    with read_session(engine) as session:
        items = session.exec(select(Assignment)).all()
    chosen_side = {}
    for item in items:
        # on A: "Project Hail Mary" or "The Expanse" (whichever is there); on B: its first word
        on_a = (7, 24) if item.chosen_side == "A" else (7, 18)
        spans = {"A": [(*on_a, "rubric")], "B": [(0, 3 if item.chosen_side == "B" else 5, "error")]}
        submit_rating(engine, annotator_id=item.annotator_id, assignment_id=item.id,
                      scores=SCORES, seconds=1.0, spans=spans)  # fmt: skip
        chosen_side[item.pair_id] = item.chosen_side
    engine.dispose()
    return chosen_side


def test_studies_show_lists_the_span_labels(run, rated):
    said = run("studies", "show", "sp")
    assert re.search(r"span label rubric\s+Breaks the rubric", said)
    assert re.search(r"span label error\s+Factual error", said)


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet"])
def test_export_kind_spans(run, rated, tmp_path, fmt):
    out = tmp_path / f"spans.{fmt}"
    assert "Wrote 4 spans" in run("export", "-o", str(out), "--kind", "spans", "-f", fmt)
    read = {"csv": pd.read_csv, "parquet": pd.read_parquet}.get(fmt)
    frame = read(out) if read else pd.read_json(out, lines=True)
    assert list(frame.columns) == list(SPAN_EXPORT_COLUMNS)
    assert len(frame) == 4
    for _, row in frame.iterrows():
        assert row["study"] == "sp"
        assert row["annotator"] != "ana"  # a pseudonym
        words = {
            ("A", "chosen"): "Project Hail Mary",
            ("A", "rejected"): "The Expanse",
            ("B", "chosen"): "Try",
            ("B", "rejected"): "Start",
        }
        assert row["text"] == words[(row["side"], row["response"])]
        assert row["label"] == ("rubric" if row["side"] == "A" else "error")
        text = CHOSEN if row["response"] == "chosen" else REJECTED
        assert text[row["start"] : row["end"]] == row["text"]  # code points of the stored text
    ratings = tmp_path / "ratings.csv"
    run("export", "-o", str(ratings))
    columns = [*EXPORT_COLUMNS, *PROVENANCE_EXPORT_COLUMNS, "annotator_excluded"]
    assert list(pd.read_csv(ratings).columns) == columns


def test_the_report_has_the_spans_section(run, rated):
    import json

    report = json.loads(run("report", "--study", "sp", "--bootstrap", "0"))
    rubric, error = report["spans"]
    assert (rubric["label"], rubric["words"]) == ("rubric", "Breaks the rubric")
    on_a = sum(side == "A" for side in rated.values()) / len(rated)  # chosen shown on A
    assert (rubric["chosen_share"], rubric["rejected_share"]) == (on_a, 1 - on_a)  # on A
    assert (error["chosen_share"], error["rejected_share"]) == (1 - on_a, on_a)  # on B
    assert rubric["n_ratings"] == 2
    assert error["label"] == "error"
    assert error["agreement"] == {"f1": None, "n_compared": 0}  # one annotator per pair


def test_the_settings_file_carries_the_span_labels(run, tmp_path):
    spec = tmp_path / "questionnaire.yaml"
    spec.write_text(QUESTIONNAIRE, encoding="utf-8")
    run("studies", "create", "first", "--questionnaire", str(spec))
    settings = tmp_path / "first.yaml"
    run("studies", "export-settings", "--study", "first", str(settings))
    assert "span_labels" in settings.read_text(encoding="utf-8")
    run("studies", "create", "second")
    run("studies", "import-settings", "--study", "second", str(settings), "--yes")
    said = run("studies", "show", "second")
    assert re.search(r"span label rubric\s+Breaks the rubric", said)
    assert re.search(r"span label error\s+Factual error", said)
