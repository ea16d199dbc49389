"""Log in by personal link (`?token=...`) or by pasting the token."""

from __future__ import annotations

import streamlit as st

from annotate.app.session import NOTICE, REFUSED


def draw() -> None:
    st.title("prb-annotate")
    saved = st.session_state.pop(NOTICE, None)  # the last save, made while the link was valid
    if saved:
        st.success(saved, icon=":material/check_circle:")
    refused = st.session_state.pop(REFUSED, None)  # a submit refused because of the link
    if refused:
        st.error(refused, icon=":material/block:")
    elif st.query_params.get("token") or st.query_params.get("s"):
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
