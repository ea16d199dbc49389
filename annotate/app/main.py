"""The Streamlit entry script: who is this, and which pages may they see."""

from __future__ import annotations

import streamlit as st

from annotate.app.app_pages import login, rate
from annotate.app.session import current_account

st.set_page_config(page_title="prb-annotate", page_icon=":material/rate_review:", layout="wide")

account = current_account()
if account is None:
    pages = [st.Page(login.draw, title="Log in", icon=":material/login:", url_path="login")]
else:
    st.session_state["account_id"] = account.id
    pages = [st.Page(rate.draw, title="Rate pairs", icon=":material/rate_review:", url_path="rate")]

st.navigation(pages, position="sidebar" if len(pages) > 1 else "hidden").run()
