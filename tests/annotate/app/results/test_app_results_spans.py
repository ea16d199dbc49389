"""Spans reach the results page, its downloads and the card (issue 36.3): a study with span
labels shows the spans table per label and offers the spans table for download; the card has
its spans section. (The demo rated by simulated annotators, spans added to its ratings.)"""

from __future__ import annotations

import io
import json

import pandas as pd
from sqlmodel import col, select

from annotate.db import write_session
from annotate.db.tables import Assignment, Span, Study
from annotate.domain.study.permissions import SYSTEM
from annotate.questionnaire import parse_questionnaire
from annotate.services.admin.publish import card_files
from tests.helpers.apptest_helpers import researcher_token

LABELS = [{"key": "rubric", "label": "Breaks the rubric"}, {"key": "error", "label": "Wrong"}]


def _spans_on_the_demo(engine) -> None:
    with write_session(engine) as session:
        study = session.exec(select(Study).where(Study.name == "demo")).one()
        study.questionnaire = parse_questionnaire(
            {"template": "prb", "span_labels": LABELS}
        ).stored()
        session.add(study)
        done = session.exec(
            select(Assignment).where(col(Assignment.status) == "done").order_by(col(Assignment.id))
        ).all()
        for number, item in enumerate(done[:12]):
            response = "rejected" if number % 3 else "chosen"
            session.add(
                Span(assignment_id=item.id, response=response, label="rubric", start=0, end=5)
            )


def test_the_results_page_and_the_card_show_the_spans(open_app, rated_demo, engine):
    _spans_on_the_demo(engine)
    at = open_app(researcher_token(engine), pick="demo")
    assert not at.exception, [e.value for e in at.exception]
    labels = [e.label for e in at.expander]
    assert "Spans: chosen vs rejected, and agreement" in labels, labels
    (box,) = [e for e in at.expander if e.label == "Spans: chosen vs rejected, and agreement"]
    table = box.dataframe[0].value
    assert list(table["Span label"]) == ["Breaks the rubric", "Wrong"]
    assert list(table["Spans"]) == ["12", "0"]
    assert "**Spans table**" in [m.value for m in at.markdown]
    files = card_files(engine, SYSTEM, "demo")
    card = files["README.md"].decode()
    assert "## Spans" in card
    assert "| Breaks the rubric | 12 |" in card
    assert "- `spans.parquet`: one row per span" in card
    assert "config_name: spans" in card  # a config of its own: load_dataset(folder, "spans")
    published = pd.read_parquet(io.BytesIO(files["spans.parquet"]))
    assert len(published) == 12
    assert set(published["annotator"]).isdisjoint({"ana", "boss"})  # pseudonyms
    croissant = json.loads(files["croissant.json"])
    assert any("spans" in str(r.get("@id", r.get("name"))) for r in croissant["recordSet"])


def test_a_study_without_span_labels_shows_no_spans(open_app, rated_demo, engine):
    at = open_app(researcher_token(engine), pick="demo")
    assert "Spans: chosen vs rejected, and agreement" not in [e.label for e in at.expander]
    assert "**Spans table**" not in [m.value for m in at.markdown]
    files = card_files(engine, SYSTEM, "demo")
    assert "## Spans" not in files["README.md"].decode()
    assert "spans.parquet" not in files
