"""The one study picker of the app (sidebar), shared by the admin pages and the results page.

A new session has no study chosen: nothing acts on a study until the admin or researcher picks
one, and the choice is kept across pages (`st.session_state[STUDY]`)."""

from __future__ import annotations

import streamlit as st

from annotate.app.safe_text import plain_text

STUDY = "admin_study"
LABEL = "Study"
PLACEHOLDER = "Choose a study"


def pick_study(names: list[str]) -> str | None:
    """The study picked in the sidebar in this session (None until one is picked)."""
    current = st.session_state.get(STUDY)
    picked = st.sidebar.selectbox(
        LABEL,
        names,
        index=names.index(current) if current in names else None,
        placeholder=PLACEHOLDER,
    )
    st.session_state[STUDY] = picked
    return picked


def page_title(page: str, study: str | None, names: list[str] | None = None) -> None:
    """The page's title, naming the study it acts on (or asking for one)."""
    st.title(page if study is None else f"{page}: {plain_text(study)}")
    if study is None and names != []:
        st.info("Choose the study to work on in the sidebar.", icon=":material/left_panel_open:")
