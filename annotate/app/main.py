"""The Streamlit entry script: who is this, and which pages may they see.

Only what every visitor needs is imported here: the results and admin pages (pandas, plotly,
scipy, statsmodels) are imported when a role that may open them opens them.
"""

from __future__ import annotations

import logging

import streamlit as st

from annotate.app import login
from annotate.app.participant import rate
from annotate.app.participant.enrol import enrol_from_link, is_enrolment_link
from annotate.app.private_downloads import end_grants_of_this_session
from annotate.app.safe_text import plain_text
from annotate.app.session import current_account, log_out
from annotate.app.style import apply_style
from annotate.domain.study.permissions import may_administer, may_see_results
from annotate.errors import Unavailable

# An emoji icon is drawn in the page (a data: URL); a Material icon would be fetched from
# fonts.gstatic.com on every page load, telling Google each annotator's address.
st.set_page_config(page_title="prb-annotate", page_icon="📝", layout="wide")
apply_style()
end_grants_of_this_session()  # a personal download is fetched before the next run


def _results() -> None:
    from annotate.app.results import results  # heavy: only when opened

    results.draw()


try:
    account = current_account()  # a session that found its account keeps it (session.py)
except Unavailable:
    # The cause goes to the server log (as an uncaught error's would), never to the browser.
    logging.getLogger(__name__).warning("the database did not answer", exc_info=True)
    st.error("The database did not answer. Please try again in a moment.")
    st.button("Try again", icon=":material/refresh:")
    st.stop()
if is_enrolment_link():
    account = enrol_from_link(account)
if account is None:
    pages = [st.Page(login.draw, title="Log in", icon=":material/login:", url_path="login")]
else:
    st.session_state["account_id"] = account.id
    pages = [st.Page(rate.draw, title="Rate pairs", icon=":material/rate_review:", url_path="rate")]
    if may_see_results(account.role):
        pages = [
            st.Page(_results, title="Results", icon=":material/monitoring:", url_path="results"),
            *pages,
        ]
    if may_administer(account.role):
        from annotate.app.admin.admin_common import admin_pages

        pages = admin_pages() + pages

# every page listed: past twelve pages Streamlit hides the last ones behind "View more"
st.navigation(pages, position="sidebar" if len(pages) > 1 else "hidden", expanded=True).run()
if account is not None and len(pages) > 1:
    with st.sidebar:  # below the page's own controls (the study picker)
        st.divider()
        st.caption(f"Logged in as {plain_text(account.name)}")
        st.button("Log out", key="log_out", icon=":material/logout:", on_click=log_out)
elif account is not None:  # an annotator's or a participant's page has no sidebar menu
    st.button("Log out", key="log_out", icon=":material/logout:", type="tertiary", on_click=log_out)
