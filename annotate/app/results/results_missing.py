"""The results page's missing data (issue 33.2): the assumption, skips and flags, the test of
skipping against the pair and the sensitivity analysis, and the skips and flags by pair and
by annotator. Tables are data cells (pair ids and pseudonyms are untrusted text)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analysis.schema.missing_tables import missing_table
from analysis.schema.report_types import Report
from annotate.app.safe_text import plain_text

SLOT_COLUMNS = {
    "name": "",
    "n_assigned": "assigned",
    "n_skipped": "skipped",
    "skipped_share": "skipped share",
    "n_flagged": "flagged",
    "flagged_share": "flagged share",
}


def draw_warning(report: Report) -> None:
    """Above the figures: the verdict's words when counting the skips as ties changes it."""
    found = report.get("missing_data")
    if found is None or found["sensitivity"] is None or not found["sensitivity"]["changed"]:
        return
    st.warning(f"**Missing data:** {plain_text(found['words'])}", icon=":material/help:")


def draw(report: Report) -> None:
    found = report.get("missing_data")
    table = missing_table(report)
    if found is None or table is None:
        return
    title = f"Missing data: {found['n_skipped']} skipped, {found['n_flagged']} flagged"
    with st.expander(title, icon=":material/help:"):
        st.markdown(plain_text(found["words"]))
        st.dataframe(pd.DataFrame(table.rows, columns=table.headers), hide_index=True)
        for label, rows, key in (
            ("By pair (most skipped first)", found["by_pair"], "pair"),
            ("By annotator (pseudonyms)", found["by_annotator"], "annotator"),
        ):
            st.markdown(f"**{label}**")
            frame = pd.DataFrame(rows, columns=list(SLOT_COLUMNS)).rename(
                columns={**SLOT_COLUMNS, "name": key}
            )
            st.dataframe(frame, hide_index=True, width="stretch")
        if found["by_pair_truncated"]:
            st.caption("The pairs with the most skips and flags are listed; see the report.")
