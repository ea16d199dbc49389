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
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

import streamlit as st

from annotate.app.admin.study_rules import RULE_WORDS
from annotate.app.safe_text import inert_markdown, plain_lines, plain_text, table_rows
from annotate.app.session import engine
from annotate.app.study_picker import pick_study
from annotate.config import APP_URL_ENV
from annotate.db.tables import Study
from annotate.domain.dataset.importer import DatasetError
from annotate.domain.study.questionnaire import template_name
from annotate.domain.study.settings_model import Settings, setting, words
from annotate.errors import PrbError
from annotate.questionnaire import parse_questionnaire
from annotate.services.admin import studies
from annotate.vocabulary import PoolOrder

HERE = Path(__file__).resolve().parent
NOTICE = "admin_notice"
PENDING = "admin_pending_change"
T = TypeVar("T")


ADMIN_PAGES = (
    ("admin_progress.py", "Progress", ":material/insights:", "admin-progress"),
    ("admin_monitor.py", "Monitor", ":material/monitor_heart:", "admin-monitor"),
    ("admin_flags.py", "Flags and skips", ":material/flag:", "admin-flags"),
    ("admin_adjudication.py", "Adjudication", ":material/gavel:", "admin-adjudication"),
    ("admin_studies.py", "Studies", ":material/tune:", "admin-studies"),
    ("admin_data.py", "Data and gold pairs", ":material/upload_file:", "admin-data"),
    ("admin_people.py", "Annotators", ":material/group:", "admin-annotators"),
    ("admin_participants.py", "Participants", ":material/badge:", "admin-participants"),
    ("admin_assign.py", "Assignments", ":material/assignment_ind:", "admin-assignments"),
    ("admin_publish.py", "Publish", ":material/publish:", "admin-publish"),
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
            f"Nothing was imported: {error.total:,} problem(s) in {plain_text(files)}.{listed}",
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
        st.error(plain_lines(error), icon=":material/error:")  # may quote a name or a file
    return None


def done(change: Callable[[], None], *, message: str) -> None:
    """Run a change that returns nothing; on success, say so after the rerun."""
    if act(lambda: _succeeded(change)):
        notify(message)
        st.rerun()


def _succeeded(change: Callable[[], None]) -> bool:
    change()
    return True


WIDE_TABLE_HINT = (
    "Scroll the table sideways for every column (the first stays in place); a text cut short "
    "shows whole when you point at it or double-click it."
)


def wide_table(
    rows: Any,
    *,
    pinned: str,
    texts: Sequence[str] = (),
    narrow: Sequence[str] = (),
    columns: Mapping[str, Any] | None = None,
) -> None:
    """A table with more columns than a laptop or a phone shows at once (issue 22.9): the
    `pinned` column stays while the others scroll sideways, long `texts` get a medium width
    (the whole text on hover), `narrow` columns a small one, and a hint says how to see it all.
    `columns`: other columns' configuration (e.g. a progress bar).
    """
    config: dict[str, Any] = {pinned: st.column_config.Column(pinned=True)}
    config |= {name: st.column_config.TextColumn(width="medium") for name in texts}
    config |= {name: st.column_config.Column(width="small") for name in narrow}
    config |= dict(columns or {})
    st.dataframe(rows, hide_index=True, width="stretch", column_config=config)
    st.caption(WIDE_TABLE_HINT)


def fresh_for(scope: str, item: object, *keys: str) -> None:
    """Start the widgets `keys` from their defaults whenever the item a form acts on (a flag,
    a pair, an account, a study) is not the one it was drawn for last time in this session:
    nothing picked, typed or marked for one item shows on, or is saved with, the next.

    Call it before the widgets are drawn; `scope` names the form."""
    marker = f"admin_form_item_{scope}"
    if marker in st.session_state and st.session_state[marker] == item:
        return
    for key in keys:
        st.session_state.pop(key, None)
    st.session_state[marker] = item


def notify(message: str, *, form: str | None = None) -> None:
    """A success message shown after the next rerun: under the form `form` when the page
    draws it there (`draw_pending_here`), else at the top (`show_notice`)."""
    st.session_state[NOTICE] = (form, message)


def show_notice(*, here: Collection[str] = ()) -> None:
    """The message of the last change, at the top of the page, unless it belongs under one of
    the forms this page draws (`here`)."""
    held = st.session_state.get(NOTICE)
    if held is not None and held[0] not in here:
        _show(st.session_state.pop(NOTICE)[1])


def _show(message: str) -> None:
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


@dataclass(frozen=True)
class PendingChange:
    """A change an admin asked for and has not confirmed or cancelled yet (issue 22.2): shown
    with Confirm and Cancel under the form that asked (`draw_pending_here`), and at the top of
    every other admin page (`draw_pending`) until decided, so a form that collapses or a page
    left does not leave it looking saved."""

    form: str  # the form that asked, e.g. "pool", "training"
    study: str
    changes: dict[str, tuple[Any, Any]]  # setting -> (now, after)
    apply: Callable[[], str]  # makes the change; returns what to say when it is done
    text: str | None = None  # the text being confirmed as typed (the training's YAML)


def ask_confirmation(
    form: str,
    study: str,
    changes: dict[str, tuple[Any, Any]],
    apply: Callable[[], str],
    *,
    text: str | None = None,
) -> None:
    """Hold a change of `study` until the admin confirms it (`draw_pending_here` under the
    form, `draw_pending` on other pages); a new request replaces one still held. Reruns the
    page, so the confirmation shows at once."""
    st.session_state[PENDING] = PendingChange(form, study, changes, apply, text)
    st.rerun()


def pending_change() -> PendingChange | None:
    held = st.session_state.get(PENDING)
    return held if isinstance(held, PendingChange) else None


def draw_pending(*, here: Collection[str] = ()) -> None:
    """Every admin page draws this first: the change held for confirmation, if any (each
    setting in words, now and after), with Confirm and Cancel. A change asked by one of the
    forms this page draws (`here`) is left to `draw_pending_here` under that form, where the
    admin pressed its button (issue 34.5)."""
    held = pending_change()
    if held is not None and held.form not in here:
        _draw_held(held)


def holds(form: str) -> bool:
    """Whether the form `form` has something to show under it (its change held for
    confirmation, or the message that it was saved or cancelled): an expander around it opens,
    so a rerun that drew it afresh (collapsed) does not hide the confirmation."""
    notice = st.session_state.get(NOTICE)
    held = pending_change()
    return (held is not None and held.form == form) or (notice is not None and notice[0] == form)


def draw_pending_here(form: str) -> None:
    """Under the form `form`: its change held for confirmation, if any, or the message that
    it was saved or cancelled."""
    notice = st.session_state.get(NOTICE)
    if notice is not None and notice[0] == form:
        _show(st.session_state.pop(NOTICE)[1])
    held = pending_change()
    if held is not None and held.form == form:
        _draw_held(held)


def _draw_held(held: PendingChange) -> None:
    with st.container(border=True, key="pending_change"):
        st.warning(
            f"**Study {inert_markdown(held.study)}: not saved yet.** Confirm to change these "
            "settings, or cancel.",
            icon=":material/warning:",
        )
        rows = [
            {
                "setting": setting_words(name),
                "now": _shown(now, name),
                "after": _shown(after, name),
            }
            for name, (now, after) in held.changes.items()
        ]
        st.table(table_rows(rows), hide_index=True)  # long values wrap: nothing is cut
        if held.text is not None:
            st.caption("What you are confirming, as you typed it:")
            st.code(held.text, language="yaml")
        left, right, _ = st.columns([1, 1, 3])
        if left.button("Confirm", type="primary", key="pending_confirm"):
            message = act(held.apply)
            if message is not None:
                st.session_state.pop(PENDING, None)
                notify(message, form=held.form)
                st.rerun()
        if right.button("Cancel", key="pending_cancel"):
            st.session_state.pop(PENDING, None)
            notify(f"Nothing changed in {held.study}.", form=held.form)
            st.rerun()


def ask_settings_change(
    form: str, study: str, changes: dict[str, Any], done: str, *, force: bool = False
) -> None:
    """Show what `changes` would change in `study` (nothing written) and hold them until the
    admin confirms; `done` is said once they are saved. `force` overrides the analysis plan's
    lock once ratings exist (audited by the service)."""
    preview = act(lambda: studies.preview_study_changes(engine(), actor_id(), study, **changes))
    if preview == {}:
        st.info(f"Nothing to change in {plain_text(study)}.", icon=":material/info:")
    elif preview:
        ask_confirmation(form, study, preview, partial(_update_study, study, changes, done, force))


def _update_study(study: str, changes: dict[str, Any], done: str, force: bool) -> str:
    studies.update_study(engine(), actor_id(), study, force=force, **changes)
    return done


# Each setting's name in prose, from the settings model, and the exclusion rules' words.
SETTING_WORDS = {name: words(name) for name in Settings.model_fields} | RULE_WORDS


def setting_words(name: str) -> str:
    """A setting's name as the forms word it (`pool_open` -> 'open pool')."""
    return SETTING_WORDS.get(name, name.replace("_", " "))


POOL_ORDER_WORDS = {
    PoolOrder.DEPTH: "Fill started pairs to k first",
    PoolOrder.BREADTH: "Spread: fewest ratings first",
}


def pool_order_select(where: Any, study: Study, key: str) -> str:
    """The open pool's order, in words (depth first unless the study says breadth)."""
    order = PoolOrder(study.pool_order)
    return str(
        where.selectbox(
            setting("pool_order").label,
            list(PoolOrder),
            index=list(PoolOrder).index(order),
            format_func=lambda o: POOL_ORDER_WORDS[o],
            key=key,
            help="Filling started pairs first gives pairs rated by k people even if the study "
            "stops early; spreading rates every pair once before any twice.",
        )
    )


def _shown(value: Any, name: str = "") -> str:
    """A setting's value in words: on/off, 'no limit', lists and mappings as JSON; the
    questionnaire as its template's name or its questions' keys."""
    if name == "questionnaire" and isinstance(value, dict):
        asked = parse_questionnaire(value)
        return template_name(asked) or f"custom: {', '.join(asked.keys)}"
    if isinstance(value, bool):
        return "on" if value else "off"
    if value is None:
        return "none"
    if isinstance(value, dict) and value and all(k in SETTING_WORDS for k in value):
        return "; ".join(f"{setting_words(k)}: {_shown(v)}" for k, v in value.items())
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False)
    return str(value)
