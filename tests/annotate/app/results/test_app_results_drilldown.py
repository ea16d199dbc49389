"""The results page's drill-down (issue 15.5, AppTest on the real entry script): a figure's
pairs most telling first, the CSV with their texts, one pair's texts and scores, and nothing
of it on an annotator's page."""

from __future__ import annotations

import io

import pandas as pd
from sqlmodel import select
from streamlit.testing.v1 import AppTest

from analysis.inference.drilldown import figure_pairs
from annotate.db import write_session
from annotate.db.tables import Pair
from annotate.domain.study.studies import get_study
from annotate.services.results.reporting import study_ratings
from tests.helpers.apptest_helpers import researcher_token


def drill_table(at: AppTest) -> pd.DataFrame:
    """The drill-down's table: the one with the Scores column."""
    tables = [df.value for df in at.dataframe if "scores" in df.value.columns]
    assert len(tables) == 1, [list(df.value.columns) for df in at.dataframe]
    return tables[0]


def test_a_figure_lists_its_pairs_most_telling_first_with_a_csv(
    open_app, rated_demo, engine, downloads
):
    at = open_app(researcher_token(engine), pick="demo")
    ratings = study_ratings(engine, "demo").snapshot.ratings
    shown = drill_table(at)  # the default figure: agreement on rubric alignment
    expected = figure_pairs(ratings, "agreement:rubric_alignment")
    assert shown["pair_id"].tolist() == expected["pair_id"].tolist()
    at.selectbox(key="drill_figure").set_value("verdict:helpfulness").run()
    assert not at.exception, [e.value for e in at.exception]
    expected = figure_pairs(ratings, "verdict:helpfulness")
    assert drill_table(at)["pair_id"].iloc[0] == expected["pair_id"].iloc[0]
    at.selectbox(key="drill_domain").set_value("Society_and_Culture").run()
    shown = drill_table(at)
    in_domain = figure_pairs(ratings, "verdict:helpfulness", domain="Society_and_Culture")
    assert shown["pair_id"].tolist() == in_domain["pair_id"].tolist()
    assert "domain" not in shown.columns  # one domain: not repeated on every row
    labels = [b.proto.label for b in at.get("download_button")]
    assert "These pairs with their texts (CSV)" in labels
    name = "demo_verdict_helpfulness_Society_and_Culture_pairs.csv"
    csv = pd.read_csv(io.BytesIO(downloads[name]()))
    assert csv["pair_id"].tolist() == shown["pair_id"].tolist()
    assert {"question", "rubric_aspects", "chosen", "rejected"} <= set(csv.columns)
    assert set(csv["domain"]) == {"Society_and_Culture"}


def test_a_pair_opens_with_its_texts_and_every_annotators_scores(open_app, rated_demo, engine):
    at = open_app(researcher_token(engine), pick="demo")
    choice = at.selectbox(key="drill_pair")
    first = drill_table(at)["pair_id"].iloc[0]
    assert choice.options[0] == f"1. {first} ({drill_table(at)['domain'].iloc[0]})"
    choice.set_value(first).run()
    assert not at.exception, [e.value for e in at.exception]
    assert any(m.value == "**Chosen** (the benchmark's label)" for m in at.markdown)
    wanted = {"annotator", "rubric_alignment"}  # the missing-data grid has an annotator too
    scores = next(df.value for df in at.dataframe if wanted <= set(df.value.columns))
    assert len(scores) == 3  # the three simulated annotators
    ratings = study_ratings(engine, "demo").snapshot.ratings
    mine = ratings[(ratings["pair_id"] == first) & (ratings["dimension"] == "rubric_alignment")]
    by = mine.set_index(["annotator", "response"])["score"]
    expected = [f"{by[(a, 'chosen')]}/{by[(a, 'rejected')]}" for a in scores["annotator"]]
    assert scores["rubric_alignment"].tolist() == expected
    assert list(scores.columns[:2]) == ["annotator", "rubric_alignment"]  # the figure's first
    assert any(
        m.value.startswith(f"**Pair {first}** (1 of 27) · 3 annotators") for m in at.markdown
    )


def test_an_annotator_sees_no_drill_down(open_app, rated_demo):
    at = open_app(rated_demo.token)
    assert "Pairs behind the figures" not in [s.value for s in at.subheader]
    assert not [s for s in at.selectbox if s.key == "drill_figure"]


HOSTILE = '<img src=x onerror="window.__pwned=1"> **bold** ![x](http://evil/x.png)'


def test_hostile_pair_ids_and_texts_stay_inert(open_app, rated_demo, engine):
    with write_session(engine) as session:  # one pair with markup in its id and its texts
        demo_pair = (Pair.record_id == "ae_1_0", Pair.study_id == get_study(session, "demo").id)
        pair = session.exec(select(Pair).where(*demo_pair)).one()  # not the downstream demo's
        pair.record_id = f"x{HOSTILE}"
        pair.question = pair.chosen = HOSTILE
        session.add(pair)
    at = open_app(researcher_token(engine), pick="demo")
    hostile_id = f"x{HOSTILE}"
    assert hostile_id in drill_table(at)["pair_id"].tolist()  # a data cell: never rendered
    at.selectbox(key="drill_pair").set_value(hostile_id).run()
    assert not at.exception, [e.value for e in at.exception]
    shown = [m.value for m in at.markdown]
    assert any(m.startswith("**Pair x&lt;img") for m in shown), shown
    assert not any("<img" in m or "](http://evil" in m for m in shown)
