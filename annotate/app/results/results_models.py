"""The results page's reward-model part: the models beside the humans (table and chart with
intervals), and the label audit with a drill-down to the pair's text.

Only researchers and admins reach it (the results page checks, and so does every service
called here). Pair texts, comments and model outputs are untrusted: Markdown goes through
`inert_markdown`, model outputs are shown as plain text (`st.text`), tables as data cells.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analysis.models.model_report import (
    label_audit_table,
    model_accuracy_figure,
    model_detail_table,
    reference_note,
    reward_model_table,
)
from analysis.schema.report_types import Report
from analysis.schema.tables import Table
from annotate.app.downloads import offer_download
from annotate.app.results.results_downstream import Frames, Words, wording
from annotate.app.safe_text import inert_markdown
from annotate.app.session import engine
from annotate.domain.exports.spreadsheet import spreadsheet_csv
from annotate.domain.study.permissions import Actor
from annotate.services.results import reward_models


def models_state(study: str, actor: Actor) -> str:
    """Changes whenever a model is imported, replaced or removed (a cache key)."""
    models = reward_models.list_models(engine(), actor, study)
    return ";".join(f"{m.name}@{m.imported_at.isoformat()}" for m in models)


def with_models(study: str, report: Report, actor: Actor) -> Report:
    """The report with its `reward_models` and `label_audit` keys."""
    inputs = reward_models.model_inputs(engine(), actor, study)
    return reward_models.with_reward_models(report, inputs)


def _frame(table: Table) -> pd.DataFrame:
    return pd.DataFrame(table.rows, columns=table.headers)


def draw(study: str, report: Report, actor: Actor, comparison: bool = False) -> None:
    """`comparison`: in a comparison study's words (expected, baseline; no verdict)."""
    words = wording(comparison)
    st.subheader("Reward models against the humans")
    models_tab, audit_tab = st.tabs(["Reward models", "Label audit"])
    with models_tab:
        _draw_models(report, *words)
    with audit_tab:
        _draw_audit(study, report, actor, *words)


def _draw_models(report: Report, said: Words, shown: Frames) -> None:
    if not report.get("reward_models"):
        st.info(said(reference_note()), icon=":material/info:")
        return
    table = reward_model_table(report)
    st.dataframe(shown(_frame(table)), hide_index=True, width="stretch")
    st.caption(said(table.note))
    st.plotly_chart(model_accuracy_figure(report), width="stretch", key="reward_model_chart")
    with st.expander("By domain, score margins and position"):
        st.dataframe(shown(_frame(model_detail_table(report))), hide_index=True, width="stretch")


def _draw_audit(study: str, report: Report, actor: Actor, said: Words, shown: Frames) -> None:
    table = label_audit_table(report)
    st.caption(said(table.note))
    audit = report.get("label_audit") or []
    if not audit:
        st.success("No pair's human majority goes against its label.")
        return
    st.dataframe(shown(_frame(table)), hide_index=True, width="stretch")
    offer_download(
        st,
        "label_audit",
        "Label audit (CSV, with scores and comments)",
        lambda: _audit_csv(study, actor),
        file_name=f"{study}_label_audit.csv",
        mime="text/csv",
        key="download_label_audit",
    )
    pair_id = st.selectbox(
        "Show a pair", [a["pair_id"] for a in audit], index=None, key="audit_pair"
    )
    if pair_id is not None:
        draw_pair(study, pair_id, actor, said)


def _audit_csv(study: str, actor: Actor) -> bytes:
    inputs = reward_models.model_inputs(engine(), actor, study)
    return spreadsheet_csv(reward_models.audit_table(inputs)).encode("utf-8")


def draw_pair(study: str, pair_id: str, actor: Actor, said: Words = str) -> None:
    """One pair for the researchers: its texts (chosen and rejected labelled, inert), the
    annotators' comments and every model's result on it."""
    detail = reward_models.audited_pair_detail(engine(), actor, study, pair_id)
    pair = detail.pair
    st.markdown(f"**Question** ({inert_markdown(pair.domain)} · {inert_markdown(pair.category)})")
    st.markdown(inert_markdown(pair.question))
    with st.expander("Narrative and rubric aspects"):
        st.markdown(inert_markdown(pair.narrative))
        for aspect in pair.rubric_aspects:
            st.markdown(f"- {inert_markdown(str(aspect.get('aspect', '')))}")
    left, right = st.columns(2)
    with left:
        st.markdown(said("**Chosen** (the benchmark's label)"))
        st.markdown(inert_markdown(pair.chosen))
    with right:
        st.markdown(said("**Rejected**"))
        st.markdown(inert_markdown(pair.rejected))
    for who, comment in detail.comments:
        st.markdown(f"*{inert_markdown(who)}*: {inert_markdown(comment)}")
    if detail.predictions:
        rows = [
            [p.model, p.kind, p.score_chosen, p.score_rejected, p.prediction, p.correct, p.status]
            for p in detail.predictions
        ]
        columns = ["model", "kind", "score chosen", "score rejected", "prediction", "correct"]
        columns = [said(c) for c in columns]
        st.dataframe(pd.DataFrame(rows, columns=[*columns, "status"]), hide_index=True)
        for p in detail.predictions:
            if p.raw_output:
                st.caption(f"Output of {inert_markdown(p.model)} (as the judge wrote it)")
                st.text(p.raw_output)  # plain text: never Markdown or HTML
