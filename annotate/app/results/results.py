"""Results for researchers and admins: the validation report, its charts, and downloads (the
sizing planner's form is :mod:`annotate.app.results.results_sizing`)."""

from __future__ import annotations

import json
import re
from functools import partial
from typing import Any

import pandas as pd
import streamlit as st

from analysis.designs.adjudication import adjudication_table
from analysis.designs.aspect_report import aspect_tables
from analysis.designs.attributes import attribute_table
from analysis.designs.preference import preference_table
from analysis.designs.span_report import span_table
from analysis.inference.margins import UNIT_LABELS, UNIT_WORDS
from analysis.methods import CAVEAT_WORDS
from analysis.renderers.charts import FIGURES
from analysis.renderers.render import render_report
from analysis.schema.questions import verdict_claims
from analysis.schema.report_types import Report
from analysis.schema.style import labels_by_key
from analysis.schema.tables import (
    Table,
    accuracy_table,
    dimension_table,
    plan_table,
    verdict_words,
)
from analysis.study_report import Margin, StudyData
from annotate.app.downloads import offer_download
from annotate.app.results import (
    results_downstream,
    results_drilldown,
    results_missing,
    results_models,
    results_rules,
    results_sizing,
)
from annotate.app.safe_text import plain_text, table_rows
from annotate.app.session import engine
from annotate.app.study_picker import page_title, pick_study
from annotate.domain.exports.export import EXPORT_FORMATS, ratings_bytes
from annotate.domain.exports.published import without_free_text
from annotate.domain.study.permissions import RESULTS_ROLES
from annotate.services.login import require_roles
from annotate.services.results.reporting import (
    free_text_download,
    study_names,
    study_ratings,
    study_report,
)
from annotate.vocabulary import DEFAULT_HOLM

REPORT_FORMATS = {
    "json": "application/json",
    "md": "text/markdown",
    "html": "text/html",
    "latex": "application/x-tex",
}
RATINGS_MIME = {
    "csv": "text/csv",
    "jsonl": "application/jsonl",
    "parquet": "application/octet-stream",
}
CHART_TABS = {
    "means": "Means",
    "differences": "Differences",
    "distribution": "Distribution",
    "alpha": "Agreement",
    "domain_accuracy": "Accuracy by domain",
    "domain_verdicts": "Verdicts by domain",
    "position": "Position bias",
    "annotators": "Annotators",
    "reward_models": "Reward models",
}
DOMAIN_CHARTS = {"domain_accuracy", "domain_verdicts"}  # the charts that read `by_domain`
MODEL_CHART = "reward_models"  # the chart that reads `reward_models`


@st.cache_data(show_spinner="Computing the statistics…", max_entries=16, ttl=600)
def _study_report(
    study: str,
    n_scores: int,  # noqa: ARG001  (this, `latest` and `excluded`: the cache's keys)
    latest: str,  # noqa: ARG001
    margin: float | None,
    alpha: float,
    holm: bool,
    n_boot: int,
    excluded: str,  # noqa: ARG001
    mixed: bool = False,
    domains: bool = False,
    _data: StudyData | None = None,
) -> Report:
    """The study's report, cached per study state (score count, newest score, excluded pairs)
    and settings (`margin` None: the study's own, in its unit, with its record). The page
    shows no mixed-model figure, so its report skips the model (about half the time of a
    report), and the by-domain figures, three quarters of the rest, come only with a
    by-domain chart (`domains` True); `mixed` and `domains` True build the full report, for
    its downloads. `_data`, the ratings the page has read already (not hashed: the other
    arguments are the key), spares reading them again."""
    data = _data if _data is not None else study_ratings(engine(), study)
    return study_report(
        data,
        # the page's margin is in the study's unit
        margin=None if margin is None else Margin(margin, data.settings.margin.unit),
        alpha=alpha,
        holm=holm,
        n_boot=n_boot,
        mixed=mixed,
        domains=domains,
    )


@st.cache_data(show_spinner="Comparing the reward models…", max_entries=16, ttl=600)
def _report(
    study: str,
    n_scores: int,
    latest: str,
    margin: float | None,
    alpha: float,
    holm: bool,
    n_boot: int,
    models: str,  # noqa: ARG001  (the imported models: a key of the cache)
    account: int | None,
    excluded: str,
    mixed: bool = False,
    domains: bool = False,
    _data: StudyData | None = None,
) -> Report:
    """`_study_report` with the reward models against the humans (a crossed model per
    imported model: drawn after the verdict, which does not wait for them)."""
    report = _study_report(
        study, n_scores, latest, margin, alpha, holm, n_boot, excluded, mixed, domains, _data
    )
    return results_models.with_models(study, report, account)


def _headline(state: dict[str, Any]) -> Report:
    """The page's report without the reward models (its verdict, tables and most charts).

    Called as `_report` calls it, every argument by position (`mixed` and `domains` False):
    a cache's key is made of the arguments as passed, so keywords or defaults left out would
    make another entry, and the first visit would compute the same report twice."""
    return _study_report(
        state["study"],
        state["n_scores"],
        state["latest"],
        state["margin"],
        state["alpha"],
        state["holm"],
        state["n_boot"],
        state["excluded"],
        False,  # mixed
        False,  # domains
        state["_data"],
    )


def _full_report(state: dict[str, Any], fmt: str) -> str:
    """The report in `fmt` with every figure (the mixed model and the domains too): built
    when a download button is pressed, cached like the page's."""
    return render_report(_report(**state, mixed=True, domains=True), fmt)


def draw() -> None:
    account = st.session_state.get("account_id")
    require_roles(engine(), account, *RESULTS_ROLES)
    names = study_names(engine())
    study = pick_study(names) if names else None
    page_title("Results", study, names)
    if not names:
        st.info("No study yet: import a dataset first.")
    if study is None:
        return
    data = study_ratings(engine(), study)
    if data.snapshot.ratings.empty:
        st.info("No ratings in this study yet.")
        results_downstream.draw(study, account)
        return
    margin, alpha, holm, n_boot = _settings(data)
    latest = str(data.snapshot.ratings["created_at"].max())
    try:
        models = results_models.models_state(study, account)
        # the excluded pairs, the exclusion rules and their facts (gold pairs are not counted
        # in n_scores): a change of any of them computes the report again
        rules = [data.snapshot.rules, data.snapshot.annotator_facts]
        excluded = json.dumps([data.snapshot.excluded, *rules], sort_keys=True)
        state: dict[str, Any] = {
            "study": study,
            "n_scores": len(data.snapshot.ratings),
            "latest": latest,
            # the study's own margin keeps its unit and record
            "margin": None if margin == data.settings.margin.value else margin,
            "alpha": alpha,
            "holm": holm,
            "n_boot": n_boot,
            "models": models,
            "account": account,
            "excluded": excluded,
            "_data": data,
        }
        report = _headline(state)
    except ValueError as error:
        st.error(f"The statistics cannot be computed: {error}")
        return
    comparison = results_downstream.comparison(study, account)
    if comparison is None:
        _draw_verdict(report)
    else:  # a comparison of downstream conditions: no tie/divergence verdict
        results_downstream.draw_comparison(comparison)
    _draw_tables(report, comparison is not None)
    _draw_charts(state, comparison is not None)
    results_drilldown.draw(study, data, account, comparison is not None)
    try:
        with_models = _report(**state)
    except ValueError as error:
        st.error(f"The reward models cannot be compared: {error}")
        return
    results_models.draw(study, with_models, account, comparison is not None)
    results_downstream.draw(study, account)
    results_sizing.draw_power(data, margin, alpha)
    _draw_downloads(study, data, state)


def _settings(data: StudyData) -> tuple[float, float, bool, int]:
    with st.expander("Settings", icon=":material/tune:"):
        left, middle, right, last = st.columns(4)
        margin = left.number_input(
            f"Equivalence margin ({UNIT_LABELS[data.settings.margin.unit]})",
            min_value=0.05,
            value=float(data.settings.margin.value),
            step=0.05,
            help=f"In the study's unit: {UNIT_WORDS[data.settings.margin.unit]}.",
        )
        alpha = middle.number_input(
            "Alpha",
            min_value=0.001,
            max_value=0.5,
            value=float(data.settings.alpha),
            step=0.01,
            format="%.3f",
            help="The study's pre-registered alpha; another value is shown as a departure from "
            "the plan.",
        )
        n_boot = right.number_input(
            "Bootstrap resamples for alpha CIs", min_value=0, max_value=5000, value=200, step=100
        )
        holm = last.checkbox("Holm correction of the by-domain tests", value=DEFAULT_HOLM)
    return float(margin), float(alpha), bool(holm), int(n_boot)


def _draw_verdict(report: Report) -> None:
    checks = report["checks"]
    words = verdict_words(report, labels_by_key(report))
    ties, diverges = verdict_claims(report)
    plan = report.get("plan")
    interim = "**Interim:** " if plan is not None and plan["interim"] else ""
    if checks["validated"]:
        st.success(
            f"{interim}**Validated.** {ties} and {diverges[:1].lower()}{diverges[1:]} ({words}).",
            icon=":material/verified:",
        )
    else:
        said = words[:1].upper() + words[1:]
        st.warning(f"{interim}**Not validated.** {said}.", icon=":material/report:")
    simulated = report.get("simulated")
    if simulated is not None:
        show = st.warning if simulated["counted"] else st.info
        show(f"**Simulated ratings:** {simulated['note']}.", icon=":material/smart_toy:")
    if plan is not None and plan["note"] != "as pre-registered":
        st.warning(f"**Analysis plan:** {plain_text(plan['note'])}.", icon=":material/history:")
    look = None if plan is None else plan.get("sequential")
    if look is not None:
        st.info(
            f"**Group-sequential plan: {plain_text(look['decision'])}.** "
            f"{plain_text(look['words'])}.",
            icon=":material/flag:",
        )
    results_missing.draw_warning(report)  # a verdict that holds only if skips are at random
    if checks["reliability_caveat"]:  # the figure's own sentence says it all: once, not twice
        words = plain_text(checks["reliability"]) if "reliability" in checks else CAVEAT_WORDS
        st.warning(f"**Reliability caveat:** {words.removeprefix('Reliability caveat: ')}",
                   icon=":material/warning:")  # fmt: skip
    elif "reliability" in checks:
        st.caption(checks["reliability"])
    accuracy = report["human_accuracy"]
    columns = st.columns(4)
    columns[0].metric("Pairs", report["n_pairs"])
    columns[1].metric("Annotators", report["n_annotators"])
    columns[2].metric("Scores", report["n_scores"])
    columns[3].metric(
        "Human accuracy",
        "–" if accuracy["accuracy"] is None else f"{accuracy['accuracy']:.1%}",
        help="Probability that a single annotator's rubric-alignment score puts chosen above "
        "rejected (ties as half), comparable to a reward model's accuracy; strict rate, tie "
        "share and the panel majority are under Human accuracy below.",
    )


def _frame(table: Table) -> pd.DataFrame:
    return pd.DataFrame(table.rows, columns=table.headers)


def _draw_tables(report: Report, comparison: bool = False) -> None:
    """The report's tables; a comparison study's in its own words (expected and baseline, no
    verdict: `results_downstream.comparison_words`)."""
    said, shown = results_downstream.wording(comparison)
    table = dimension_table(report)
    frame = _frame(table)
    if comparison:  # expected against baseline, and no tie/divergence verdict
        frame = results_downstream.comparison_frame(frame)
    # A static table: its cells wrap where a laptop or a phone is too narrow for ten columns
    # (issue 34.5: the data grid cut off d_z with no visible way to scroll).
    rows = [{k: _unbroken(v) for k, v in row.items()} for row in frame.to_dict("records")]
    st.table(table_rows(rows), hide_index=True)
    st.caption(plain_text(said(table.note)))
    with st.expander("Human accuracy"):
        st.dataframe(shown(_frame(accuracy_table(report))), hide_index=True)
    for title, optional in (
        ("Analysis plan (pre-registered)", plan_table(report)),
        ("Direct preference", preference_table(report)),
        ("By annotator attribute (survey)", attribute_table(report)),
        *aspect_tables(report),  # a study with the aspect checklist
        ("Spans: chosen vs rejected, and agreement", span_table(report)),  # span labels
        ("Adjudication: before and after", _adjudicated(report)),
    ):
        if optional is not None:  # a study with that design option
            with st.expander(title):
                st.dataframe(shown(_frame(optional)), hide_index=True)
                st.caption(plain_text(said(optional.note)))  # may quote an admin's words
    results_rules.draw(report, comparison)  # a study's pre-registered exclusion rules
    results_missing.draw(report)  # skips and flags, the MAR test, the sensitivity analysis
    exclusions = report["exclusions"]
    if exclusions["n_excluded_total"] or exclusions["incomplete_pair_ratings"]:
        with st.expander(f"Exclusions ({exclusions['n_excluded_total']} pair-dimensions)"):
            st.markdown(exclusions["note"])
            st.json(exclusions["dimensions"], expanded=False)
    if exclusions["excluded_pairs"]:
        with st.expander(f"Pairs left out by an admin ({len(exclusions['excluded_pairs'])})"):
            st.dataframe(exclusions["excluded_pairs"], hide_index=True, width="stretch")


def _unbroken(cell: object) -> object:
    """An interval ("[-0.91, 0.56]") kept on one line: a narrow cell breaks before it."""
    return re.sub(r"\[([^\]]*), ", "[\\1,\u00a0", cell) if isinstance(cell, str) else cell


def _adjudicated(report: Report) -> Table | None:
    """The adjudication table, for a study with adjudicated pairs."""
    return adjudication_table(report) if "adjudication" in report else None


def _draw_charts(state: dict[str, Any], comparison: bool = False) -> None:
    """The charts in tabs; only the open tab's chart is built and sent (a tab change reruns).
    A by-domain chart reads the report with its by-domain figures, the reward models' chart
    the report with the models (each cached); the others the page's own report."""
    tabs = st.tabs(
        [CHART_TABS.get(name, name) for name in FIGURES], key="results_chart", on_change="rerun"
    )
    for tab, (name, build) in zip(tabs, FIGURES.items(), strict=True):
        if not tab.open:
            continue
        if name in DOMAIN_CHARTS:
            report = _report(**state, domains=True)
        elif name == MODEL_CHART:
            report = _report(**state)
        else:
            report = _headline(state)
        figure = build(report)
        if comparison:  # expected and baseline, as the comparison's guide says
            figure = results_downstream.words_figure(figure)
        tab.plotly_chart(figure, width="stretch")


def _export_row(title: str, frame: pd.DataFrame, file_stem: str, name: str, key: str) -> None:
    """A table's downloads, one button per export format."""
    row = st.columns(len(EXPORT_FORMATS) + 1)
    row[0].markdown(f"**{title}**")
    for column, fmt in zip(row[1:], EXPORT_FORMATS, strict=True):
        offer_download(
            column,
            name,
            fmt,
            partial(ratings_bytes, frame, fmt),
            file_name=f"{file_stem}.{fmt}",
            mime=RATINGS_MIME[fmt],
            key=f"{key}_{fmt}",
        )


def _free_text_csv(data: StudyData, account: Any) -> bytes:
    """The free text as CSV, its download audited (built when the button is clicked)."""
    return ratings_bytes(free_text_download(engine(), account, data), "csv")


def _draw_downloads(study: str, data: StudyData, state: dict[str, Any]) -> None:
    st.subheader("Downloads")
    ratings = without_free_text(data.snapshot.ratings, data.snapshot.free_text)
    _export_row(
        "Ratings export", ratings, f"{study}_ratings", "results_ratings", "download_ratings"
    )
    if data.snapshot.aspects is not None:  # a study with the aspect checklist: its aspect table
        aspects = without_free_text(data.snapshot.aspects, data.snapshot.free_text)
        _export_row(
            "Aspect table", aspects, f"{study}_aspects", "results_aspects", "download_aspects"
        )
    if data.snapshot.spans is not None:  # a study with span labels: its spans table
        spans = data.snapshot.spans
        _export_row("Spans table", spans, f"{study}_spans", "results_spans", "download_spans")
    report_row = st.columns(len(REPORT_FORMATS) + 1)
    report_row[0].markdown("**Report**")
    for column, fmt in zip(report_row[1:], REPORT_FORMATS, strict=True):
        offer_download(
            column,
            "results_report",
            fmt,
            partial(_full_report, state, fmt),
            file_name=f"{study}_report.{fmt}",
            mime=REPORT_FORMATS[fmt],
            key=f"download_report_{fmt}",
        )
    st.caption(
        "The ratings export and the aspect table leave out the free text (comments, reasons, "
        "rationales, survey text): it is a download of its own, and each one is recorded in "
        "the audit log."
    )
    offer_download(
        st,
        "results_free_text",
        "Free text (CSV, audited)",
        partial(_free_text_csv, data, state["account"]),
        file_name=f"{study}_free_text.csv",
        mime="text/csv",
        key="download_free_text",
    )
