"""The page's own style (style.css) and page script (page.js), sent on every page run.

The files ship with the package (pyproject package-data). Both are ours, never dataset text.
The rating page's keyboard script (rate.js) is put in by `annotate.app.keyboard`.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import streamlit as st

HERE = Path(__file__).resolve().parent
PAGE_SCRIPT = "prb_page_script"  # hidden by style.css


@cache
def _read(name: str) -> str:
    return (HERE / name).read_text(encoding="utf-8")


def apply_style() -> None:
    """The compact style for every page (only style: Streamlit gives it no space), and the page
    script: the side panel out of the Tab order while collapsed, closed after a page is tapped
    on a phone; static tables a Tab stop where they scroll (in a container the style hides;
    unchanged between runs, so it runs once per tab)."""
    st.html(f"<style>{_read('style.css')}</style>")
    with st.container(key=PAGE_SCRIPT):
        st.html(f"<script>{_read('page.js')}</script>", unsafe_allow_javascript=True)
