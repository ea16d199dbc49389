"""A skip made in the app reaches the analysis through the export (issue 33.2): the study's
report counts it by pair and by annotator (the study's pseudonym, never the account's name),
the results page shows the missing-data section and the published card says the assumption."""

from __future__ import annotations

import json

from sqlmodel import col, select

from annotate.db import read_session
from annotate.db.tables import Annotator, Assignment
from annotate.domain.study.permissions import SYSTEM
from annotate.services.admin.publish import card_files
from annotate.services.participant.rating import skip_pair
from annotate.services.results.reporting import study_ratings, study_report
from tests.helpers.apptest_helpers import researcher_token


def _skip_one(engine, annotator: str) -> None:
    with read_session(engine) as session:
        who = session.exec(select(Annotator).where(col(Annotator.name) == annotator)).one()
        item = session.exec(
            select(Assignment)
            .where(col(Assignment.annotator_id) == who.id)
            .order_by(col(Assignment.id))
        ).first()
        assert who.id is not None
        assert item is not None
        assert item.id is not None
        annotator_id, assignment_id = who.id, item.id
    skip_pair(
        engine, annotator_id=annotator_id, assignment_id=assignment_id, reason="odd", flag=True
    )


def test_a_skip_in_the_app_reaches_the_report_page_and_card(open_app, rated_demo, engine):
    _skip_one(engine, rated_demo.annotator)
    report = study_report(study_ratings(engine, "demo"))
    found = report["missing_data"]
    assert (found["n_skipped"], found["n_flagged"]) == (1, 1)
    (skipper,) = [r for r in found["by_annotator"] if r["n_skipped"]]
    assert skipper["n_assigned"] == 1
    assert skipper["name"] != rated_demo.annotator
    assert rated_demo.annotator not in json.dumps(found)  # pseudonyms only
    assert found["sensitivity"] is not None

    at = open_app(researcher_token(engine), pick="demo")
    assert not at.exception, [e.value for e in at.exception]
    labels = [e.label for e in at.expander]
    assert "Missing data: 1 skipped, 1 flagged" in labels, labels

    card = card_files(engine, SYSTEM, "demo")["README.md"].decode()
    assert "## Missing data" in card
    assert "missing at random given the pair and the annotator" in card
