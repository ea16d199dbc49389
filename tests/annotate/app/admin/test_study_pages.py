"""The study-operation pages (issue 15.1, 15.2) with AppTest through the real entry script: no
study is picked in a new session and titles name the picked one; a plan that changes k asks
first and its annotators are not preselected; the flag queue with the pair's text, resolving,
excluding and restoring; the audit log page."""

from __future__ import annotations

import pytest
from sqlmodel import select

from annotate.db import read_session, write_session
from annotate.db.tables import Assignment, AuditEntry
from annotate.domain.assignment import PairSelection
from annotate.domain.study import accounts
from annotate.domain.study.permissions import SYSTEM
from annotate.domain.study.studies import get_study
from annotate.services.admin import flags, plans
from annotate.services.participant.rating import skip_pair
from tests.helpers.admin_helpers import button as _button
from tests.helpers.admin_helpers import make_people, make_study, rate
from tests.helpers.admin_helpers import page_texts as _texts


@pytest.fixture
def boss(page_engine) -> str:
    """Studies `demo` (first) and `new`; `new` has 4 pairs given to a0, a1 (k=2), a0 flagged
    p000 with hostile text and skipped p001."""
    make_study(page_engine, "demo", pairs=3, overlap=3)
    make_study(page_engine, "new", pairs=4, overlap=2)
    make_people(page_engine, 2)
    make_people(page_engine, 1, prefix="sim-0")  # a simulated account: "sim-00"
    plans.make_plan(
        page_engine, SYSTEM, study="new", annotators=["a0", "a1"], selection=PairSelection()
    )
    with read_session(page_engine) as session:
        mine = session.exec(
            select(Assignment).where(Assignment.annotator_id == 1).order_by(Assignment.pair_id)
        ).all()
    rate(page_engine, 1, mine[0].id, flag_reason="<script>alert(1)</script> wrong")
    skip_pair(page_engine, annotator_id=1, assignment_id=mine[1].id, reason="too long")
    with write_session(page_engine) as session:
        return accounts.create_account(session, "boss", role="admin")[1]


def test_a_new_session_picks_no_study_and_titles_name_the_picked_one(open_page, boss):
    at = open_page(boss, page="admin_assign.py")
    assert at.title[0].value == "Assignments"
    assert "Choose the study to work on in the sidebar." in _texts(at)
    assert not at.get("tabs")
    assert not at.main.button  # (the sidebar has Log out)
    (picker,) = [s for s in at.sidebar.selectbox if s.label == "Study"]
    assert picker.value is None
    picker.set_value("new").run()
    assert at.title[0].value == "Assignments: new"
    at.switch_page("admin/admin_progress.py").run()
    assert at.title[0].value == "Progress: new"  # the choice is kept across pages


def test_the_plan_marks_simulated_accounts_by_their_flag_not_their_name(
    page_engine, open_page, boss
):
    """A person named like the simulated annotators ("sim-00") is a person; an account the
    simulation made is marked whatever its name."""
    make_people(page_engine, 1, prefix="robot")
    with write_session(page_engine) as session:
        robot = accounts.get_account(session, "robot0")
        robot.simulated = True
        session.add(robot)
    at = open_page(boss, page="admin_assign.py", pick="demo")
    shown = at.multiselect(key="plan_people").options
    assert "robot0 (simulated)" in shown
    assert "sim-00" in shown
    assert "sim-00 (simulated)" not in shown


def test_a_plan_has_no_preselected_annotators_and_a_new_k_asks_first(page_engine, open_page, boss):
    at = open_page(boss, page="admin_assign.py", pick="demo")
    people = at.multiselect(key="plan_people")
    assert people.value == []
    assert "sim-00" in people.options[-1]
    _button(at, "Assign").click().run()
    assert "Choose the annotators of the plan." in _texts(at)
    at.multiselect(key="plan_people").set_value(["a0", "a1"])
    at.number_input(key="plan_k").set_value(2)
    _button(at, "Assign").click().run()
    assert "**Study demo: not saved yet.** Confirm to change these settings" in _texts(at)
    with read_session(page_engine) as session:
        assert get_study(session, "demo").overlap == 3  # not before the confirmation
    _button(at, "Confirm").click().run()
    assert "6 new assignments" in _texts(at)
    with read_session(page_engine) as session:
        assert get_study(session, "demo").overlap == 2
        entry = session.exec(select(AuditEntry).where(AuditEntry.who == "boss")).one()
    assert (entry.action, entry.before, entry.after["overlap"]) == (
        "plan.assign",
        {"overlap": 3},
        2,
    )


def test_cancel_leaves_the_settings_as_they_were(page_engine, open_page, boss):
    at = open_page(boss, page="admin_studies.py", pick="new")
    with read_session(page_engine) as session:
        study_id = get_study(session, "new").id
    at.number_input(key=f"study_{study_id}_k").set_value(1)
    _button(at, "Save settings").click().run()
    _button(at, "Cancel").click().run()
    assert not [b for b in at.button if b.label == "Confirm"]
    with read_session(page_engine) as session:
        assert get_study(session, "new").overlap == 2
    _button(at, "Save settings").click().run()  # the form still holds k = 1: no change is
    assert "Nothing to change" not in _texts(at)  # assumed, the preview is shown again


def test_the_flag_queue_resolves_excludes_and_restores(page_engine, open_page, boss):
    at = open_page(boss, page="admin_flags.py", pick="new")
    assert at.title[0].value == "Flags and skips: new"
    queue = at.dataframe[0].value
    assert list(queue["kind"]) == ["flag", "skip"]
    assert list(queue["reason"]) == ["<script>alert(1)</script> wrong", "too long"]
    assert "chosen text p000" in _texts(at)  # the pair's text, the first item opened
    assert "<script>alert(1)</script> wrong" in [t.value for t in at.text]  # shown as text
    _button(at, "Save").click().run()
    assert "needs a note" in _texts(at)
    at.text_area(key="flag_note").input("annotator misread the profile")
    _button(at, "Save").click().run()
    assert "resolved" in _texts(at)
    assert list(at.dataframe[0].value["kind"]) == ["skip"]  # only open items by default

    at.radio(key="flag_action").set_value("Send to adjudication")
    at.text_area(key="flag_note").input("two readings of the rubric")
    _button(at, "Save").click().run()
    at.toggle(key="flags_open").set_value(False).run()
    at.selectbox(key="flags_item").select_index(1).run()  # the skip, now sent to adjudication
    links = [link.label for link in at.get("page_link")]
    assert links == ["In the adjudication queue: send it to an adjudicator there"]

    at.text_input(key="exclude_why").input("question is ambiguous")
    _button(at, "Exclude the pair").click().run()
    assert "Pair p001 is left out of the analysis." in _texts(at)
    (excluded,) = flags.exclusions(page_engine, SYSTEM, "new")
    assert (excluded.record_id, excluded.by) == ("p001", "boss")
    _button(at, "Restore").click().run()
    assert flags.exclusions(page_engine, SYSTEM, "new") == []

    at.switch_page("admin/admin_audit.py").run()
    assert at.title[0].value == "Audit log: new"
    log = at.dataframe[0].value
    assert list(log["action"])[:4] == [
        "pair.restore",
        "pair.exclude",
        "flag.adjudication",
        "flag.resolved",
    ]
    assert set(log["who"][:4]) == {"boss"}
