"""The page's own style (style.css) and keyboard script (rate.js), sent once per page run.

The files ship with the package (pyproject package-data). Both are ours, never dataset text.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import streamlit as st

HERE = Path(__file__).resolve().parent


@cache
def _read(name: str) -> str:
    return (HERE / name).read_text(encoding="utf-8")


def apply_style() -> None:
    """The compact style for every page (only style: Streamlit gives it no space)."""
    st.html(f"<style>{_read('style.css')}</style>")
