"""What the admin pages share: their place in the navigation, the acting admin, the study picker.

The admin pages are file pages (`st.Page(path)`), so that tests can open them with
`AppTest.switch_page`; each ends with `if __name__ == "__main__": draw()` because Streamlit runs a
page file as `__main__`. Every action they offer goes through a service (`annotate.services`:
studies, people, data, plans, progress), which checks the role again in its transaction; `act`
turns the services' refusals into messages on the page, the one place the pages do so.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

import streamlit as st

from annotate.app.session import engine
from annotate.app.study_picker import pick_study
from annotate.config import APP_URL_ENV
from annotate.db.tables import Study
from annotate.domain.dataset.importer import DatasetError
from annotate.errors import PrbError
from annotate.services import studies
from annotate.vocabulary import PoolOrder

HERE = Path(__file__).resolve().parent
NOTICE = "admin_notice"
PENDING = "admin_pending_change"
T = TypeVar("T")


ADMIN_PAGES = (
    ("admin_progress.py", "Progress", ":material/insights:", "admin-progress"),
    ("admin_flags.py", "Flags and skips", ":material/flag:", "admin-flags"),
    ("admin_adjudication.py", "Adjudication", ":material/gavel:", "admin-adjudication"),
    ("admin_studies.py", "Studies", ":material/tune:", "admin-studies"),
    ("admin_data.py", "Data and gold pairs", ":material/upload_file:", "admin-data"),
    ("admin_people.py", "Annotators", ":material/group:", "admin-annotators"),
    ("admin_assign.py", "Assignments", ":material/assignment_ind:", "admin-assignments"),
    ("admin_audit.py", "Audit log", ":material/history:", "admin-audit"),
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


def done(change: Callable[[], None], *, message: str) -> None:
    """Run a change that returns nothing; on success, say so after the rerun."""
    if act(lambda: _succeeded(change)):
        notify(message)
        st.rerun()


def _succeeded(change: Callable[[], None]) -> bool:
    change()
    return True


def notify(message: str) -> None:
    """A success message shown after the next rerun."""
    st.session_state[NOTICE] = message


def show_notice() -> None:
    message = st.session_state.pop(NOTICE, None)
    if message:
        st.success(message, icon=":material/check_circle:")


def choose_study() -> str | None:
    """The study the admin works on (kept across admin pages), picked in the sidebar; None
    until the admin picks one in this session (no silent default)."""
    found = act(lambda: studies.list_studies(engine(), actor_id()))
    if found is None:
        st.stop()
    names = [s.name for s in found]
    if not names:
        st.info("There is no study yet: create one on the Studies page, or upload a dataset.")
        return None
    return pick_study(names)


def ask_confirmation(
    key: str, study: str, changes: dict[str, tuple[Any, Any]], payload: Any
) -> None:
    """Hold a change of `study` until the admin confirms it (`confirmed`)."""
    st.session_state[PENDING] = {"key": key, "study": study, "changes": changes, "payload": payload}


def confirmed(key: str, study: str) -> Any | None:
    """Draw the change held for the form `key` (each setting: now, after; Confirm, Cancel);
    return its payload once the admin confirms. A change held for another study is dropped."""
    pending = st.session_state.get(PENDING)
    if not pending or pending["key"] != key:
        return None
    if pending["study"] != study:
        st.session_state.pop(PENDING, None)
        return None
    with st.container(border=True):
        st.warning(
            f"**Study {study}**: confirm to change these settings.", icon=":material/warning:"
        )
        rows = [
            {"setting": name, "now": _shown(now), "after": _shown(after)}
            for name, (now, after) in pending["changes"].items()
        ]
        st.dataframe(rows, hide_index=True, width="stretch")
        left, right, _ = st.columns([1, 1, 4])
        if left.button("Confirm", type="primary", key=f"{key}_confirm"):
            st.session_state.pop(PENDING, None)
            return pending["payload"]
        if right.button("Cancel", key=f"{key}_cancel"):
            st.session_state.pop(PENDING, None)
            st.rerun()
    return None


def ask_settings_change(key: str, study: str, changes: dict[str, Any], payload: Any = None) -> None:
    """Show what `changes` would change in `study` (nothing written) and hold them (or
    `payload`, when the form sends more than the settings) until the admin confirms
    (`confirmed(key, study)`)."""
    preview = act(lambda: studies.preview_study_changes(engine(), actor_id(), study, **changes))
    if preview == {}:
        st.info(f"Nothing to change in {study}.", icon=":material/info:")
    elif preview:
        ask_confirmation(key, study, preview, changes if payload is None else payload)


POOL_ORDER_WORDS = {
    PoolOrder.DEPTH: "Fill started pairs to k first",
    PoolOrder.BREADTH: "Spread: fewest ratings first",
}


def pool_order_select(where: Any, study: Study, key: str) -> str:
    """The open pool's order, in words (depth first unless the study says breadth)."""
    order = PoolOrder(study.pool_order)
    return str(
        where.selectbox(
            "Order of the open pool",
            list(PoolOrder),
            index=list(PoolOrder).index(order),
            format_func=lambda o: POOL_ORDER_WORDS[o],
            key=key,
            help="Filling started pairs first gives pairs rated by k people even if the study "
            "stops early; spreading rates every pair once before any twice.",
        )
    )


def _shown(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False) if isinstance(value, dict | list) else str(value)
