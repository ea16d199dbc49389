"""The results page's Downstream section (issue 25): for a benchmark study with downstream
outputs, each comparison's human and judge gains, the scaling curve and the judge against the
humans (plotly), the correlation claim in a plain sentence, and the responses where judge and
humans differ most; for a comparison study, what it compares instead of a tie/divergence
verdict (it is not a benchmark check).

Only researchers and admins reach it; every service called here checks the role. Condition
names and pair ids are shown as data cells, never as Markdown.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pandas as pd
import streamlit as st

from analysis.downstream import tables
from analysis.renderers.downstream_charts import judge_human_figure, scaling_figure
from analysis.schema.tables import Table
from annotate.app.session import engine
from annotate.domain.study.permissions import Actor
from annotate.services.results import downstream

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
    return words_frame(frame.drop(columns=["Verdict"], errors="ignore"))


_RENAMED = tuple(
    (re.compile(rf"\b{old}\b"), new)
    for old, new in (
        ("chosen", "expected"),
        ("Chosen", "Expected"),
        ("rejected", "baseline"),
        ("Rejected", "Baseline"),
    )
)
_VERDICT_SENTENCE = re.compile(
    r"validated|\bties? on\b|\bdiverges on\b|intersection-union", re.IGNORECASE
)


def comparison_words(text: str) -> str:
    """A report's words as a comparison study's guide says them (issue 34.5): chosen and
    rejected are the expected and the baseline condition, and no sentence speaks of the
    benchmark's verdict (tie, diverges, 'validated'): a comparison is not a benchmark check."""
    sentences = re.split(r"(?<=[.;])\s+", text)
    kept = " ".join(s for s in sentences if not _VERDICT_SENTENCE.search(s))
    for pattern, word in _RENAMED:
        kept = pattern.sub(word, kept)
    return kept


def words_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A table's headers and text cells in a comparison study's words (a column of the
    benchmark's verdict, such as "Validated", left out)."""
    verdicts = [c for c in frame.columns if _VERDICT_SENTENCE.search(str(c))]
    kept = frame.drop(columns=verdicts)
    renamed = kept.rename(columns={c: comparison_words(str(c)) for c in kept.columns})
    return renamed.map(lambda v: comparison_words(v) if isinstance(v, str) else v)


Words = Callable[[str], str]
Frames = Callable[[pd.DataFrame], pd.DataFrame]


def wording(comparison: bool) -> tuple[Words, Frames]:
    """How a results section says its texts and tables: in a comparison study's words, or
    as they are."""
    if comparison:
        return comparison_words, words_frame
    return str, pd.DataFrame.copy


def words_figure(figure: Any) -> Any:
    """A chart's title, axes, legend and hover names in a comparison study's words."""
    figure.for_each_trace(lambda t: t.update(name=comparison_words(t.name or "")))
    layout = figure.layout
    if layout.title.text:
        layout.title.text = comparison_words(layout.title.text)
    figure.for_each_xaxis(lambda a: a.update(title_text=comparison_words(a.title.text or "")))
    figure.for_each_yaxis(lambda a: a.update(title_text=comparison_words(a.title.text or "")))
    for note in layout.annotations or ():
        note.text = comparison_words(note.text or "")
    return figure


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
