"""The results page computes what it shows (issue 26, item 2), AppTest on the real entry script:
one chart of the chart tabs built and sent (the open tab's; another's when it is opened), and a
report without the mixed model, whose figures it never shows, and without the by-domain figures
until a by-domain chart is opened; its report downloads are the full report, the same as
`prb-annotate report` computes."""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

from analysis.inference.mixed import NOT_FITTED
from analysis.study_report import StudyData
from annotate.app.results import results
from annotate.services.results.reporting import study_ratings, study_report
from tests.helpers.apptest_helpers import researcher_token


def test_only_the_open_tabs_chart_is_sent(open_app, rated_demo, engine):
    at = open_app(researcher_token(engine), pick="demo")
    assert not at.exception, [e.value for e in at.exception]
    charts = [c for c in at.get("plotly_chart") if c.key != "reward_model_chart"]  # its own tab
    assert len(charts) == 1, "every tab's chart was built and sent"
    assert "Means" in [t.label for t in at.tabs]


def test_the_pages_report_skips_only_the_mixed_model_and_the_domains(rated_demo, engine):
    data = study_ratings(engine, "demo")
    page = study_report(data, mixed=False, domains=False)
    with_domains = study_report(data, mixed=False)
    full = study_report(data)
    assert page["mixed_model"]["note"] == NOT_FITTED
    assert all(d["estimate"] is None for d in page["mixed_model"]["dimensions"].values())
    assert full["mixed_model"]["note"] != NOT_FITTED
    assert all(d["estimate"] is not None for d in full["mixed_model"]["dimensions"].values())
    assert page["by_domain"] == {}
    assert set(full["by_domain"]) == set(full["domains"])
    assert len(full["domains"]) > 1
    assert with_domains["by_domain"] == full["by_domain"]
    for key in ("dimensions", "checks", "human_accuracy", "agreement", "position_bias"):
        assert page[key] == full[key], key


def test_a_by_domain_chart_reads_the_report_with_its_domains(open_app, rated_demo, engine):
    """The page's own report has no by-domain figures; the by-domain tabs draw them."""
    at = open_app(researcher_token(engine), pick="demo")
    tabs = {t.label: t for t in at.tabs}
    assert "Verdicts by domain" in tabs
    at.session_state["results_chart"] = "Verdicts by domain"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    (chart,) = [c for c in at.get("plotly_chart") if c.key != "reward_model_chart"]
    figure = json.loads(chart.proto.spec)
    domains = set(study_report(study_ratings(engine, "demo"))["domains"])
    shown = {str(y) for trace in figure["data"] for y in trace.get("y", []) or []}
    shown |= {str(x) for trace in figure["data"] for x in trace.get("x", []) or []}
    assert domains <= shown, (domains, shown)


def test_the_first_visit_computes_the_pages_report_once(open_app, rated_demo, engine, monkeypatch):
    """The verdict's report and the report the reward models are added to are one cache entry
    (they were two, keyed by arguments passed by keyword and by position: the first visit
    computed the same report twice, 0.8 s each on the demo)."""
    computed: list[dict[str, Any]] = []

    def counted(data: StudyData, **settings: Any) -> Any:
        computed.append(settings)
        return study_report(data, **settings)

    monkeypatch.setattr(results, "study_report", counted)
    st.cache_data.clear()  # nothing computed by another test
    at = open_app(researcher_token(engine), pick="demo")
    assert at.get("plotly_chart"), "the page drew no chart"
    assert [(c["mixed"], c["domains"]) for c in computed] == [(False, False)], computed
