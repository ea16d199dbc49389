"""The results and admin pages' libraries (pandas, scipy, statsmodels, the analysis package) are
imported only for the roles that open those pages, not for every annotator's session (issue 11).

Each case runs in a fresh Python process (this test process has imported them already): the app's
entry script under AppTest, on the test's database, for one account.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

from annotate.cli.server import APP_ENTRY
from annotate.config import DATABASE_ENV
from annotate.db import write_session
from annotate.domain.study import accounts
from annotate.vocabulary import Role

HEAVY = ("pandas", "scipy", "statsmodels", "analysis")

PROBE = textwrap.dedent(
    """
    import json, sys
    from streamlit.testing.v1 import AppTest
    at = AppTest.from_file(sys.argv[1], default_timeout=60)
    at.query_params["token"] = sys.argv[2]
    at.run()
    if sys.argv[3]:  # an admin page, with the demo study picked
        at.switch_page(sys.argv[3]).run()
        (picker,) = [s for s in at.sidebar.selectbox if s.label == "Study"]
        picker.set_value("demo").run()
        assert at.title and at.title[0].value.endswith(": demo"), at.title
    assert not at.exception, [e.value for e in at.exception]
    print(json.dumps({name: name in sys.modules for name in sys.argv[4:]}))
    """
)
STATISTICS = ("scipy", "statsmodels")


def _imported(db_url: str, token: str, page: str = "") -> dict[str, bool]:
    env = dict(os.environ, **{DATABASE_ENV: db_url})
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(APP_ENTRY), token, page, *HEAVY],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def _token(engine, role: str) -> str:
    with write_session(engine) as session:
        return accounts.create_account(session, f"lazy-{role}", role=role)[1]


def test_an_annotators_session_imports_none_of_them(db_url, engine, demo):
    assert not any(_imported(db_url, _token(engine, Role.ANNOTATOR)).values())


def test_the_participants_page_imports_no_statistics(db_url, engine, demo):
    """Its payments table reads pseudonyms and the exclusion rules' facts, not the report
    (it imported the whole statistics stack: first content 2.4 s instead of 0.2 s)."""
    imported = _imported(db_url, _token(engine, Role.ADMIN), "admin/admin_participants.py")
    assert not any(imported[name] for name in STATISTICS), imported


def test_an_admin_opening_the_progress_page_imports_no_statistics(db_url, engine, demo):
    imported = _imported(db_url, _token(engine, Role.ADMIN))
    assert imported["pandas"]  # the progress page's tables (the probe sees imports)
    assert not any(imported[name] for name in ("scipy", "statsmodels", "analysis")), imported
