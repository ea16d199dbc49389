"""The aspect checklist option on the admin Studies page: off by default, set through the
confirmed change, recorded in the audit log."""

from __future__ import annotations

from annotate.db import read_session, write_session
from annotate.domain.study import accounts
from annotate.domain.study.audit import entries
from annotate.domain.study.studies import get_study
from tests.helpers.admin_helpers import button, make_study
from tests.helpers.admin_helpers import page_texts as texts


def test_the_admin_turns_the_aspect_checklist_on_through_the_confirmation(page_engine, open_page):
    make_study(page_engine, "s", pairs=2, overlap=1)
    with write_session(page_engine) as session:
        token = accounts.create_account(session, "boss", role="admin")[1]
        study_id = get_study(session, "s").id
    at = open_page(token, page="admin_studies.py", pick="s")
    toggle = at.toggle(key=f"study_{study_id}_aspect_checklist")
    assert toggle.value is False
    toggle.set_value(True)
    button(at, "Save settings").click().run()
    assert at.table[0].value.set_index("setting").loc["aspect checklist", "after"] == "on"
    with read_session(page_engine) as session:
        assert get_study(session, "s").aspect_checklist is False  # not before the confirmation
    button(at, "Confirm").click().run()
    assert "Settings of s saved." in texts(at)
    with read_session(page_engine) as session:
        assert get_study(session, "s").aspect_checklist is True
        (entry,) = [e for e in entries(session) if e.action == "study.update"]
    assert entry.after == {"aspect_checklist": True}
