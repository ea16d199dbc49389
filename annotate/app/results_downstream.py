"""The results page's Downstream section (issue 25): for a benchmark study with downstream
outputs, each comparison's human and judge gains, the scaling curve and the judge against the
humans (plotly), the correlation claim in a plain sentence, and the responses where judge and
humans differ most; for a comparison study, what it compares instead of a tie/divergence
verdict (it is not a benchmark check).

Only researchers and admins reach it; every service called here checks the role. Condition
names and pair ids are shown as data cells, never as Markdown.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from analysis.downstream import tables
from analysis.renderers.downstream_charts import judge_human_figure, scaling_figure
from analysis.schema.tables import Table
from annotate.app.session import engine
from annotate.domain.study.permissions import Actor
from annotate.services import downstream

PAGE_RESAMPLES = 200


def comparison(study: str, actor: Actor) -> dict[str, Any] | None:
    """The study's comparison record, or None for a study that is not a comparison."""
    return downstream.comparison_of(engine(), actor, study)


def draw_comparison(found: dict[str, Any]) -> None:
    """In place of the verdict: what this comparison study compares."""
    n_identical, n = len(found.get("identical", [])), int(found.get("n_questions", 0))
    st.info(
        "**Comparison study** of two downstream conditions (no tie/divergence verdict: it is "
        "not a benchmark check). Its gain is in the Downstream section of the benchmark study.",
        icon=":material/compare_arrows:",
    )
    st.dataframe(
        pd.DataFrame(
            [[found["expected"], found["baseline"], found.get("source_study", ""), n, n_identical]],
            columns=[
                "expected",
                "baseline",
                "benchmark study",
                "questions",
                "identical (zero gain)",
            ],
        ),
        hide_index=True,
    )


def comparison_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """The dimension table of a comparison study: chosen and rejected named for what they are
    (the expected and the baseline condition), without the Verdict column."""
    names = {"Mean chosen": "Mean expected", "Mean rejected": "Mean baseline"}
    return frame.drop(columns=["Verdict"], errors="ignore").rename(columns=names)


@st.cache_data(show_spinner="Computing the downstream figures…", max_entries=8, ttl=600)
def _summary(study: str, actor: Actor, state: str) -> dict[str, Any] | None:  # noqa: ARG001
    return downstream.downstream_report(engine(), actor, study, n_boot=PAGE_RESAMPLES)


def _frame(table: Table) -> pd.DataFrame:
    return pd.DataFrame(table.rows, columns=table.headers)


def draw(study: str, actor: Actor) -> None:
    """The Downstream section, for a study with downstream outputs (nothing otherwise)."""
    conditions = downstream.list_conditions(engine(), actor, study)
    if not conditions:
        return
    state = ";".join(f"{c.name}@{c.imported_at.isoformat()}" for c in conditions)
    summary = _summary(study, actor, state)
    st.subheader("Downstream")
    if summary is None:
        st.info("No downstream figures yet.")
        return
    claim = summary["claim"]
    if claim is not None:
        st.markdown(claim["sentence"])
    scaling, judge = st.tabs(["Scaling curve", "Judge against humans"])
    scaling.plotly_chart(scaling_figure(summary), width="stretch")
    judge.plotly_chart(judge_human_figure(summary), width="stretch")
    report = {"downstream": summary}
    for title, build in tables.SECTIONS:
        table = build(report)
        if table is not None:
            with st.expander(title, expanded=title == "Comparisons"):
                st.dataframe(_frame(table), hide_index=True, width="stretch")
                st.caption(table.note)
    if summary["largest_gaps"]:
        with st.expander("Where judge and humans differ most"):
            st.dataframe(pd.DataFrame(summary["largest_gaps"]), hide_index=True, width="stretch")
