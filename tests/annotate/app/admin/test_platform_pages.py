"""The crowd platform on the admin pages (issue 34.3), with AppTest through the real entry
script: the Studies page sets the platform and the pay (through the confirmation table), the
Participants page reads the fake Prolific (nothing sent), shows the table, then sends it."""

from __future__ import annotations

from annotate.db import read_session, write_session
from annotate.domain.study import accounts
from annotate.domain.study.studies import get_study
from tests.helpers.admin_helpers import button as _button
from tests.helpers.admin_helpers import page_texts as _texts
from tests.helpers.platform_world import IDS, PLATFORM_STUDY, prolific_world
from tests.security.participants_world import STUDY


def test_the_pages_set_the_platform_then_read_and_send_its_actions(
    page_engine, open_page, monkeypatch
):
    with prolific_world(page_engine, monkeypatch, reward=None, bonus_rule="") as world:
        with write_session(page_engine) as session:
            token = accounts.create_account(session, "boss", role="admin")[1]
            study_id = get_study(session, STUDY).id
        at = open_page(token, page="admin_studies.py", pick=STUDY)
        at.number_input(key=f"study_{study_id}_reward").set_value(150)
        at.text_input(key=f"study_{study_id}_bonus_rule").set_value("per_extra_pair:20")
        _button(at, "Save settings").click().run()
        assert "not saved yet" in _texts(at)
        confirming = at.table[-1].value.to_string()
        assert "bonus rule" in confirming
        assert "reward (minor units)" in confirming
        _button(at, "Confirm").click().run()
        with read_session(page_engine) as session:
            study = get_study(session, STUDY)
            assert (study.reward, study.bonus_rule) == (150, "per_extra_pair:20")
            assert study.platform_study_id == PLATFORM_STUDY
        at = open_page(token, page="admin_participants.py", pick=STUDY)
        at.button(key="platform_read").click().run()
        assert not at.exception, [e.value for e in at.exception]
        shown = at.dataframe[-1].value
        assert IDS["full"][0] in set(shown["participant id"])
        assert "0.40 GBP" in set(shown["amount"])
        assert set(world.fake.calls) == {"list"}
        at.checkbox(key="platform_sure").check().run()
        at.button(key="platform_send").click().run()
        assert not at.exception, [e.value for e in at.exception]
        assert world.fake.status(IDS["full"][1]) == "APPROVED"
        assert world.fake.paid_total == 40
        assert "Sent: 7 action(s)." in [s.value for s in at.success]
