"""Every download the app offers, in one list, and the one way a page offers one (issue 32).

`DOWNLOADS` names each download button and says whether its file holds personal data
(pseudonymous ratings, free text, names, platform ids): a personal file's address answers only
the browser that clicked, once, within a minute (`annotate.app.private_downloads`). Every CSV
offered is checked, when built, to hold no cell a spreadsheet would run as a formula (the
product escapes them with `annotate.domain.exports.spreadsheet`); a CSV that does is refused.

The data grids (`st.dataframe`) offer no download of their own: the server runs with
`client.disableDataExport` (`annotate.cli.server.PRODUCTION_OPTIONS`), and `GRIDS` counts them
per page module, so that a new grid is looked at too
(`tests/annotate/app/test_downloads_registry.py`
scans the app's source against both lists).
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import streamlit as st

from annotate.app.private_downloads import BROWSER_COOKIE, granted, script_session
from annotate.domain.exports.spreadsheet import is_formula


@dataclass(frozen=True)
class Download:
    """One download button (or one row of them, a file per format)."""

    holds: str
    personal: bool


DOWNLOADS: dict[str, Download] = {
    "results_ratings": Download("the ratings export, free text left out", personal=True),
    "results_aspects": Download("the aspect table, free text left out", personal=True),
    "results_spans": Download("the spans table (labels, places, the words)", personal=True),
    "results_free_text": Download("the free text typed by annotators (audited)", personal=True),
    "results_report": Download("the report: aggregates only", personal=False),
    "drilldown_pairs": Download("a figure's pairs with their texts and scores", personal=True),
    "label_audit": Download("pairs against their label, with scores and comments", personal=True),
    "assignments": Download("the assignment plan, with annotators' names", personal=True),
    "payments": Download("participants' platform ids and completion codes", personal=True),
    "platform_actions": Download("the platform's actions, with platform ids", personal=True),
    "publish_card": Download("the validation card (pseudonymous ratings)", personal=True),
    "settings_file": Download("a study's settings file", personal=False),
}

GRIDS: dict[str, int] = {
    "annotate.app.results.results_drilldown": 2,
    "annotate.app.results.results_models": 4,
    "annotate.app.results.results_rules": 1,
    "annotate.app.results.results_downstream": 3,
    "annotate.app.results.results_missing": 2,
    "annotate.app.results.results": 3,
    "annotate.app.admin.admin_people": 1,
    "annotate.app.admin.admin_data": 2,
    "annotate.app.admin.admin_assign": 1,
    "annotate.app.admin.admin_adjudication": 1,
    "annotate.app.admin.admin_flags": 1,
    "annotate.app.admin.admin_participants": 3,
    "annotate.app.admin.admin_publish": 2,
    "annotate.app.admin.admin_common": 2,
    "annotate.app.admin.admin_monitor": 1,
}
"""`st.dataframe` calls per module: grids without a download of their own (export is off)."""

NO_COOKIE_HELP = "This download needs cookies: reload the page with cookies allowed."


class FormulaInCsv(ValueError):
    """A CSV about to be offered holds a cell a spreadsheet would run as a formula."""


NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
"""A number as pandas and the csv module write one (`-2`, `-0.5`, `1e-05`): a spreadsheet reads
it as that number, never as a formula."""


def check_inert_csv(data: bytes) -> bytes:
    """`data` (CSV) unchanged, if no cell of it but a plain number is a formula to a
    spreadsheet; else FormulaInCsv naming the row and column."""
    reader = csv.reader(io.StringIO(data.decode("utf-8-sig"), newline=""))
    for row_number, row in enumerate(reader, start=1):
        for column, cell in enumerate(row, start=1):
            if is_formula(cell) and not NUMBER.fullmatch(cell):
                raise FormulaInCsv(f"CSV row {row_number}, column {column}: {cell[:20]!r}")
    return data


def _as_bytes(build: Callable[[], bytes | str]) -> bytes:
    data = build()
    return data.encode("utf-8") if isinstance(data, str) else data


def offer_download(
    where: Any,
    name: str,
    label: str,
    build: Callable[[], bytes | str],
    *,
    file_name: str,
    mime: str,
    key: str,
    **button: Any,
) -> None:
    """A download button for `DOWNLOADS[name]` in `where` (st or a column), built when clicked
    (`build`): a CSV is checked to be inert; a personal file is granted to this browser."""
    download = DOWNLOADS[name]  # KeyError: a download nobody classified
    csv_file = mime == "text/csv" or file_name.endswith(".csv")

    def data() -> bytes:
        built = _as_bytes(build)
        return check_inert_csv(built) if csv_file else built

    data_callable: Callable[[], bytes] = data
    if download.personal:  # without the cookie (or a session) no fetch is ever granted
        browser = str(st.context.cookies.get(BROWSER_COOKIE) or "")
        data_callable = granted(data, browser, script_session() or "")
        if not browser:
            button["help"] = NO_COOKIE_HELP
    where.download_button(
        label,
        data=data_callable,
        file_name=file_name,
        mime=mime,
        icon=button.pop("icon", ":material/download:"),
        on_click="ignore",
        key=key,
        **button,
    )
