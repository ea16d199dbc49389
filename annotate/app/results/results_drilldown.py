"""The results page's drill-down: pick a figure (agreement, a verdict, the human accuracy) and a
domain, see the pairs behind it the most telling first, download them as CSV with their texts,
and open one pair: its texts (chosen and rejected labelled: researchers only) and every
annotator's scores.

The results page checks the role, and so does every service called here. Texts go through
`results_models.draw_pair` (inert Markdown); the tables are data cells.
"""

from __future__ import annotations

import json
from functools import partial
from typing import Any

import pandas as pd
import streamlit as st

from analysis.inference.drilldown import annotator_scores, figure_note, figures, parse_figure
from analysis.schema.questions import DEFAULT_TARGET
from analysis.study_report import StudyData
from annotate.app.downloads import offer_download
from annotate.app.results import results_models
from annotate.app.results.results_downstream import Words, wording
from annotate.app.safe_text import inert_markdown
from annotate.app.session import engine
from annotate.domain.study.permissions import Actor
from annotate.services.results import drilldown

ALL_DOMAINS = "All domains"
DEFAULT_FIGURE = f"agreement:{DEFAULT_TARGET}"  # another questionnaire's: its first figure
MAX_ROWS = 1000  # rows drawn in the table (the CSV has every pair)
MAX_CHOICES = 200  # pairs offered in "Show a pair"
FIRST_COLUMNS = ("pair_id", "score_sd", "diff_sd", "disagreement", "outcome", "mean_diff", "scores")
NUMBER = st.column_config.NumberColumn
COLUMNS = {
    "pair_id": st.column_config.TextColumn("Pair", pinned=True),
    "domain": st.column_config.TextColumn("Domain"),
    "score_sd": NUMBER(
        "Score SD", format="%.2f", help="SD of the annotators' scores of the same response"
    ),
    "diff_sd": NUMBER("Difference SD", format="%.2f", help="SD of their chosen - rejected"),
    "disagreement": NUMBER("Disagreement", format="%.2f", help="1 - share of the top vote"),
    "outcome": st.column_config.TextColumn("Counted as"),
    "n_annotators": NUMBER("Annotators", format="%d"),
    "mean_chosen": NUMBER("Mean chosen", format="%.2f"),
    "mean_rejected": NUMBER("Mean rejected", format="%.2f"),
    "mean_diff": NUMBER("Chosen - rejected", format="%+.2f"),
    "scores": st.column_config.TextColumn(
        "Scores (chosen/rejected)", help="Each annotator's scores on the figure's dimension"
    ),
    "n_chosen": NUMBER("Votes chosen", format="%d"),
    "n_tie": NUMBER("Votes tie", format="%d"),
    "n_rejected": NUMBER("Votes rejected", format="%d"),
    "majority": st.column_config.TextColumn("Majority"),
}


@st.cache_data(show_spinner=False, max_entries=32, ttl=600)
def _pairs(
    study: str,  # noqa: ARG001  (this, `n_scores`, `latest` and `excluded`: the cache's keys)
    figure: str,
    domain: str | None,
    n_scores: int,  # noqa: ARG001
    latest: str,  # noqa: ARG001
    excluded: str,  # noqa: ARG001
    account: Actor,
    _data: StudyData,
) -> pd.DataFrame:
    """The figure's pairs, cached per study state (as the page's report is). `_data`, the
    ratings the page has read already (not hashed: the other arguments are the key)."""
    return drilldown.figure_pairs(engine(), account, _data, figure, domain)


def draw(study: str, data: StudyData, actor: Actor, comparison: bool = False) -> None:
    """`comparison`: in a comparison study's words (expected, baseline)."""
    said, _ = wording(comparison)
    st.subheader("Pairs behind the figures")
    left, right = st.columns([3, 2])
    asked = data.settings.questionnaire
    named = figures(asked)
    names = list(named)
    figure = left.selectbox(
        "Figure",
        names,
        index=names.index(DEFAULT_FIGURE) if DEFAULT_FIGURE in named else 0,
        format_func=named.__getitem__,
        key="drill_figure",
    )
    domains = sorted(data.snapshot.ratings["domain"].astype(str).unique())
    choice = right.selectbox("Domain", [ALL_DOMAINS, *domains], key="drill_domain")
    domain = None if choice == ALL_DOMAINS else choice
    keys = (
        len(data.snapshot.ratings),
        str(data.snapshot.ratings["created_at"].max()),
        json.dumps(data.snapshot.excluded, sort_keys=True),
    )
    table = _pairs(study, figure, domain, *keys, actor, data)
    st.caption(said(f"{figure_note(figure, asked)} {len(table)} pairs."))
    if table.empty:
        st.info("No pair is behind this figure (each needs the scores it counts).")
        return
    shown = _display_order(table.head(MAX_ROWS), all_domains=domain is None)
    columns = {name: _worded(column, said) for name, column in COLUMNS.items()}
    st.dataframe(shown, hide_index=True, width="stretch", column_config=columns, height=248)
    if len(table) > MAX_ROWS:
        st.caption(f"The first {MAX_ROWS} of {len(table)} pairs; the CSV has all of them.")
    slug = figure.replace(":", "_") + ("" if domain is None else f"_{domain}")
    offer_download(
        st,
        "drilldown_pairs",
        "These pairs with their texts (CSV)",
        partial(drilldown.figure_csv, engine(), actor, data, figure, domain),
        file_name=f"{study}_{slug}_pairs.csv",
        mime="text/csv",
        key="download_drilldown",
    )
    _draw_pair_choice(study, data, table, parse_figure(figure, asked)[1], actor, said)


def _worded(column: Any, said: Words) -> Any:
    """A column's label and help in the page's words."""
    return {**column, "label": said(column["label"]), "help": said(column["help"] or "") or None}


def _display_order(table: pd.DataFrame, *, all_domains: bool) -> pd.DataFrame:
    """The figure's measure and the scores first (what a phone shows without scrolling), the
    domain last and only when the table spans several."""
    first = [c for c in FIRST_COLUMNS if c in table.columns]
    rest = [c for c in table.columns if c not in first and c != "domain"]
    return table[[*first, *rest, *(["domain"] if all_domains else [])]]


def _draw_pair_choice(
    study: str, data: StudyData, table: pd.DataFrame, dim: str, actor: Actor, said: Words
) -> None:
    choices = table["pair_id"].head(MAX_CHOICES).tolist()
    labels = dict(zip(choices, _labels(table.head(MAX_CHOICES)), strict=True))
    pair_id = st.selectbox(
        "Show a pair",
        choices,
        index=None,
        format_func=labels.__getitem__,
        placeholder="Choose a pair (in the table's order)",
        key="drill_pair",
    )
    if pair_id is None:
        return
    rank = choices.index(pair_id)
    row = table.iloc[rank]
    st.markdown(
        f"**Pair {inert_markdown(pair_id)}** ({rank + 1} of {len(table)}) · "
        f"{int(row['n_annotators'])} annotators · {said('mean chosen - rejected')} "
        f"{row['mean_diff']:+.2f} on {dim.replace('_', ' ')}"
    )
    scores = annotator_scores(data.snapshot.ratings, pair_id, data.settings.questionnaire)
    keys = [str(c) for c in scores.columns if c != "annotator"]
    labels = {key: key.replace("_", " ").capitalize() for key in keys}
    st.dataframe(
        scores[["annotator", dim, *(d for d in keys if d != dim)]],  # the figure's first (phones)
        hide_index=True,
        width="stretch",
        column_config={"annotator": "Annotator", **labels},
    )
    st.caption(said("Each annotator's scores, chosen/rejected, on every dimension."))
    results_models.draw_pair(study, pair_id, actor, said)


def _labels(table: pd.DataFrame) -> list[str]:
    """`1. r_12 (Travel)`: rank, pair and domain, as the table lists them."""
    pairs = zip(table["pair_id"], table["domain"], strict=True)
    return [f"{rank}. {pair} ({domain})" for rank, (pair, domain) in enumerate(pairs, start=1)]
