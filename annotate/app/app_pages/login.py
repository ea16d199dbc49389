"""Log in by personal link (`?token=...`) or by pasting the token."""

from __future__ import annotations

import streamlit as st


def draw() -> None:
    st.title("prb-annotate")
    if st.query_params.get("token"):
        st.error(
            "This login link is not valid: it may have been mistyped, replaced by a newer "
            "link, or deactivated. Please ask the study organisers for a new link."
        )
    with st.form("login"):
        token = st.text_input(
            "Your access token",
            type="password",
            help="The part after `token=` in the link you were given.",
        )
        if st.form_submit_button("Log in", type="primary"):
            st.query_params["token"] = token.strip()
            st.rerun()
