"""What the admin pages share: their place in the navigation, the acting admin, the study picker.

The admin pages are file pages (`st.Page(path)`), so that tests can open them with
`AppTest.switch_page`; each ends with `if __name__ == "__main__": draw()` because Streamlit runs a
page file as `__main__`. Every action they offer goes through a service (`annotate.services`:
studies, people, data, plans, progress), which checks the role again in its transaction; `act`
turns the services' refusals into messages on the page, the one place the pages do so.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar
from urllib.parse import urlsplit

import streamlit as st

from annotate.app.session import engine
from annotate.config import APP_URL_ENV
from annotate.domain.importer import DatasetError
from annotate.errors import PrbError
from annotate.services import studies

HERE = Path(__file__).resolve().parent
STUDY = "admin_study"
NOTICE = "admin_notice"
T = TypeVar("T")


ADMIN_PAGES = (
    ("admin_progress.py", "Progress", ":material/insights:", "admin-progress"),
    ("admin_studies.py", "Studies", ":material/tune:", "admin-studies"),
    ("admin_data.py", "Data and gold pairs", ":material/upload_file:", "admin-data"),
    ("admin_people.py", "Annotators", ":material/group:", "admin-annotators"),
    ("admin_assign.py", "Assignments", ":material/assignment_ind:", "admin-assignments"),
)


def admin_pages() -> list[st.Page]:
    return [
        st.Page(HERE / file, title=title, icon=icon, url_path=url)
        for file, title, icon, url in ADMIN_PAGES
    ]


def link_base() -> str | None:
    """Where people reach the app: $PRB_APP_URL when set (None: the library reads it), else
    the address this admin is using, so links work without configuration."""
    if os.environ.get(APP_URL_ENV):
        return None
    try:
        url = st.context.url
    except Exception:
        return None
    if not url:
        return None
    parts = urlsplit(url)
    prefix = str(st.get_option("server.baseUrlPath") or "").strip("/")
    return f"{parts.scheme}://{parts.netloc}" + (f"/{prefix}" if prefix else "")


def actor_id() -> int:
    return int(st.session_state["account_id"])


def act(action: Callable[[], T]) -> T | None:
    """Run an admin action; show why on the page (and return None) when it is refused.

    The one place the pages map the services' refusals (`PrbError`) to messages; a dataset's
    problems are listed in a table, each with where it is.
    """
    try:
        return action()
    except DatasetError as error:
        files = ", ".join(dict.fromkeys(p.file for p in error.problems))
        listed = (
            f" The first {len(error.problems):,} are listed."
            if error.total > len(error.problems)
            else ""
        )
        st.error(
            f"Nothing was imported: {error.total:,} problem(s) in {files}.{listed}",
            icon=":material/error:",
        )
        st.dataframe(
            [
                {"where": p.location, "field": p.field or "", "problem": p.message}
                for p in error.problems
            ],
            hide_index=True,
            width="stretch",
        )
    except PrbError as error:
        st.error(str(error), icon=":material/error:")
    return None


def notify(message: str) -> None:
    """A success message shown after the next rerun."""
    st.session_state[NOTICE] = message


def show_notice() -> None:
    message = st.session_state.pop(NOTICE, None)
    if message:
        st.success(message, icon=":material/check_circle:")


def choose_study(label: str = "Study") -> str | None:
    """The study the admin works on (kept across admin pages), picked in the sidebar."""
    found = act(lambda: studies.list_studies(engine(), actor_id()))
    if found is None:
        st.stop()
    names = [s.name for s in found]
    if not names:
        st.info("There is no study yet: create one on the Studies page, or upload a dataset.")
        return None
    current = st.session_state.get(STUDY)
    index = names.index(current) if current in names else 0
    st.session_state[STUDY] = st.sidebar.selectbox(label, names, index=index)
    return st.session_state[STUDY]
