"""A crowd participant's Log out (issue 32.8: only admins and researchers had one), with AppTest
on the real app: on the rating page and on the done page, it ends the participant's session
values like an admin's (the session epoch goes up; the account and its work stay as they were),
the page becomes the login page, and the study link logs in again."""

from __future__ import annotations

import pytest
from sqlmodel import select
from streamlit.testing.v1 import AppTest

from annotate.app.session import LOGGED_OUT
from annotate.cli.server import APP_ENTRY
from annotate.db import read_session
from annotate.db.tables import Annotator
from annotate.domain.study.studies import get_study
from tests.helpers.admin_helpers import assignments, make_study, rate

PID = "5f1a2b3c4d5e6f7a8b9c0d1e"
SESSION = "6a7b8c9d0e1f2a3b4c5d6e7f"


def _link(page_engine) -> dict[str, str]:
    with read_session(page_engine) as session:
        key = get_study(session, "crowd").enrolment_key
    return {"study": "crowd", "key": key, "PROLIFIC_PID": PID, "SESSION_ID": SESSION}


def _stored(page_engine) -> tuple[int, bool, list[tuple[int, str]]]:
    """(session epoch, account active, its assignments and their status) of the one
    participant."""
    with read_session(page_engine) as session:
        (account,) = session.exec(select(Annotator)).all()
        work = sorted((a.id, a.status) for a in assignments(page_engine, 1))
        return account.session_epoch, account.active, work


@pytest.mark.parametrize("done", [False, True], ids=["rating page", "done page"])
def test_a_participant_logs_out_and_the_study_link_logs_in_again(page_engine, open_page, done):
    make_study(
        page_engine, "crowd", pairs=1, overlap=1, pool_open=True, enrolment_open=True,
        completion_code="DONE-CODE-1",
    )  # fmt: skip
    at = open_page(**_link(page_engine))
    at.button(key="crowd_start").click().run()
    if done:
        (item,) = assignments(page_engine, 1)
        rate(page_engine, item.annotator_id, item.id)
        at.run()
        assert "All done, thank you!" in [t.value for t in at.title]
    else:
        assert any("Pair 1 of 1" in m.value for m in at.markdown)
    kept = at.query_params["s"]
    epoch, active, work = _stored(page_engine)

    at.button(key="log_out").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert dict(at.query_params) == {}
    assert [s.value for s in at.success] == [LOGGED_OUT]
    assert _stored(page_engine) == (epoch + 1, True, work)  # nothing else changed
    assert active
    assert len(work) == 1

    tab = AppTest.from_file(str(APP_ENTRY), default_timeout=60)
    tab.query_params["s"] = kept  # the address the browser kept
    tab.run()
    assert "account_id" not in tab.session_state
    assert any("not valid" in e.value for e in tab.error)
    again = open_page(**_link(page_engine))  # the study link, as from Prolific
    assert again.query_params["s"] != kept
    assert "account_id" in again.session_state
