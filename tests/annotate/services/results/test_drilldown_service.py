"""The drill-down service (issue 15.5): the pairs behind a figure with their texts, for the
results roles only, without the pairs an admin excluded, as CSV that pandas reads back.
Real database (SQLite, or PostgreSQL with PRB_TEST_DATABASE_URL), the simulated demo."""

from __future__ import annotations

import io

import pandas as pd
import pytest
from sqlalchemy.engine import Engine
from sqlmodel import select

from analysis.inference.drilldown import figure_pairs as analysis_pairs
from annotate.db import read_session, write_session
from annotate.db.tables import Annotator, Pair
from annotate.domain.study import accounts
from annotate.domain.study.permissions import SYSTEM, PermissionDenied
from annotate.services.admin import flags
from annotate.services.admin.demo import set_up_demo
from annotate.services.results import drilldown
from annotate.services.results.reporting import study_ratings
from annotate.vocabulary import Role

FIGURE = "agreement:rubric_alignment"


@pytest.fixture
def rated(engine: Engine) -> Engine:
    set_up_demo(engine, simulated_annotators=3)
    return engine


def researcher(engine: Engine) -> int:
    with write_session(engine) as session:
        account, _ = accounts.create_account(session, "res", role=Role.RESEARCHER)
        return int(account.id or 0)


def pair_row(engine: Engine, record_id: str) -> Pair:
    with read_session(engine) as session:
        return session.exec(select(Pair).where(Pair.record_id == record_id)).one()


def test_the_pairs_come_with_their_texts_in_the_figures_order(rated):
    actor = researcher(rated)
    table = drilldown.study_figure_pairs(rated, actor, "demo", FIGURE)
    expected = analysis_pairs(study_ratings(rated, "demo").snapshot.ratings, FIGURE)
    assert table["pair_id"].tolist() == expected["pair_id"].tolist()
    first = pair_row(rated, table.loc[0, "pair_id"])
    assert table.loc[0, "chosen"] == first.chosen  # labelled: the researchers' view
    assert table.loc[0, "rejected"] == first.rejected
    assert table.loc[0, "question"] == first.question
    aspects = [a["aspect"] for a in first.rubric_aspects]
    assert table.loc[0, "rubric_aspects"].split(" | ") == aspects


def test_an_excluded_pair_is_not_behind_any_figure(rated):
    first = drilldown.study_figure_pairs(rated, SYSTEM, "demo", "accuracy").loc[0, "pair_id"]
    flags.exclude_pair(rated, SYSTEM, study="demo", record_id=first, reason="bad label")
    for figure in ("accuracy", FIGURE, "verdict:factuality"):
        table = drilldown.study_figure_pairs(rated, SYSTEM, "demo", figure)
        assert first not in table["pair_id"].tolist()


def test_the_csv_reads_back_with_pandas(rated):
    data = study_ratings(rated, "demo")
    csv = drilldown.figure_csv(
        rated, SYSTEM, data, "verdict:rubric_alignment", "Society_and_Culture"
    )
    back = pd.read_csv(io.BytesIO(csv))
    table = drilldown.with_texts(
        rated,
        SYSTEM,
        "demo",
        drilldown.figure_pairs(
            rated, SYSTEM, data, "verdict:rubric_alignment", "Society_and_Culture"
        ),
    )
    assert back["pair_id"].tolist() == table["pair_id"].tolist()
    assert set(back["domain"]) == {"Society_and_Culture"}
    assert back["chosen"].tolist() == table["chosen"].tolist()  # commas, quotes, new lines
    assert back["mean_diff"].tolist() == pytest.approx(table["mean_diff"].tolist())


def test_an_annotator_may_not_drill_down(rated):
    with read_session(rated) as session:
        annotator = session.exec(select(Annotator).where(Annotator.name == "demo-annotator")).one()
    data = study_ratings(rated, "demo")
    with pytest.raises(PermissionDenied):
        drilldown.figure_pairs(rated, annotator.id, data, FIGURE)
    with pytest.raises(PermissionDenied):
        drilldown.pair_texts(rated, annotator.id, "demo", ["x"])
    with pytest.raises(PermissionDenied):
        drilldown.study_figure_pairs(rated, annotator.id, "demo", FIGURE)
