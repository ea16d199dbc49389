"""The results page's pre-registered exclusion rules: the rules and their record, the
sensitivity table (no rule, each rule alone, all rules) and the attention checks per annotator.
Tables are data cells (annotator names are untrusted text)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analysis.designs.exclusion_tables import (
    annotators_under_rules_table,
    rules_sensitivity_table,
    rules_table,
)
from analysis.schema.report_types import Report
from analysis.schema.tables import Table
from annotate.app.results.results_downstream import Frames, Words, wording


def draw(report: Report, comparison: bool = False) -> None:
    """`comparison`: in a comparison study's words (expected, baseline; no verdict)."""
    words = wording(comparison)
    found = report.get("exclusion_rules")
    if found is None:
        return
    excluded = len(found["excluded"])
    with st.expander(f"Pre-registered exclusion rules ({excluded} annotator(s) excluded)"):
        if found["record"]["changed_after_data"]:
            st.warning("The rules were set or changed after data arrived: not pre-registered.")
        for table in (rules_table(report), rules_sensitivity_table(report)):
            _draw_table(table, *words)
        st.markdown("**Attention checks and annotators under the rules**")
        _draw_table(annotators_under_rules_table(report), *words)


def _draw_table(table: Table, said: Words, shown: Frames) -> None:
    st.dataframe(shown(pd.DataFrame(table.rows, columns=table.headers)), hide_index=True)
    st.caption(said(table.note))
