"""Keyboard rating and where the eye goes (rate.js), put in the page once per browser tab.

The script is ours (a packaged file, never dataset text). Streamlit keeps an unchanged element
between runs, so it runs once; it also guards itself against a second run.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import streamlit as st

SCRIPT = Path(__file__).resolve().parent / "rate.js"
ASSETS_KEY = "prb_assets"  # hidden by style.css


@cache
def _script() -> str:
    return SCRIPT.read_text(encoding="utf-8")


def shortcuts_help(
    minimum: int, maximum: int, preference: bool = False, aspects: bool = False, spans: int = 0
) -> str:
    """The shortcuts, as listed on the page (with those of the study's design options;
    `spans`: how many span labels the pair component offers)."""
    extra = " · in the aspect checklist, 0-2 mark the coverage" if aspects else ""
    if spans:
        extra += (
            " · to mark a span, select text in a response with the mouse or a finger, or on "
            "a focused response with arrows and Shift+arrows (Ctrl: by word), then press "
            f"1-{spans} or a label's button (Tab reaches each span's Remove)"
        )
    extra += " · in the preference, 1-5 pick A much better .. B much better" if preference else ""
    return (
        f"**Keys:** {minimum}-{maximum} score the highlighted question and move to the next"
        f"{extra} · Tab / Shift+Tab move between questions · Enter on Submit, Ctrl+Enter or "
        "Ctrl+S submits · Alt+P / Alt+N previous / next pair"
    )


def inject_keyboard() -> None:
    with st.container(key=ASSETS_KEY):
        st.html(f"<script>{_script()}</script>", unsafe_allow_javascript=True)
