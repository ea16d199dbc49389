"""Every admin action form starts each item from its own state (issue 22.1, admin part): an
action, a note, a reason or a choice made for one flag, pair or account never shows on, nor is
saved with, the next one. Driven with AppTest through the real entry script.

`test_after_sending_flag_a_to_adjudication_flag_b_opens_with_the_default_action` reproduces
issue 22's point 2 (it failed before the forms' keys named their item: flag B opened with "Send
to adjudication" and the note "Skip accepted" was saved as an adjudication).
"""

from __future__ import annotations

from typing import Any

import pytest
from sqlmodel import select

from annotate.db import read_session, write_session
from annotate.db.tables import Assignment, FlagResolution, Pair
from annotate.domain.assignment import PairSelection
from annotate.domain.study import accounts
from annotate.domain.study.permissions import SYSTEM
from annotate.services.admin import flags, plans
from annotate.services.participant.rating import skip_pair
from annotate.vocabulary import FlagAction
from tests.helpers.admin_helpers import button, make_people, make_study, page_texts


@pytest.fixture
def two_skips(page_engine) -> str:
    """Study `s`: a0 skipped p000 (flag A) and p001 (flag B); returns the admin's token."""
    make_study(page_engine, "s", pairs=3, overlap=1)
    (a0,) = make_people(page_engine, 1)
    plans.make_plan(page_engine, SYSTEM, study="s", annotators=["a0"], selection=PairSelection())
    for record_id, reason in (("p000", "broken text"), ("p001", "offensive")):
        skip_pair(
            page_engine,
            annotator_id=a0,
            assignment_id=_assignment(page_engine, record_id).id,
            reason=reason,
        )
    with write_session(page_engine) as session:
        return accounts.create_account(session, "boss", role="admin")[1]


def _assignment(engine, record_id: str) -> Assignment:
    with read_session(engine) as session:
        return session.exec(select(Assignment).join(Pair).where(Pair.record_id == record_id)).one()


def _resolution(engine, record_id: str) -> FlagResolution | None:
    with read_session(engine) as session:
        return session.exec(
            select(FlagResolution).where(
                FlagResolution.assignment_id == _assignment(engine, record_id).id
            )
        ).first()


def _one(widgets: Any, label: str) -> Any:
    """The one widget with this label (keys are the page's business)."""
    found = [w for w in widgets if w.label.startswith(label)]
    assert len(found) == 1, [w.label for w in widgets]
    return found[0]


def _shown_item(at: Any) -> str:
    picker = _one(at.selectbox, "Open an item")
    return str(picker.options[picker.index])


def _open_item(at: Any, record_id: str) -> None:
    picker = _one(at.selectbox, "Open an item")
    (index,) = [i for i, o in enumerate(picker.options) if f"pair {record_id}" in o]
    picker.select_index(index).run()


def test_after_sending_flag_a_to_adjudication_flag_b_opens_with_the_default_action(
    page_engine, open_page, two_skips
):
    at = open_page(two_skips, page="admin_flags.py", pick="s")
    assert "pair p000" in _shown_item(at)
    _one(at.radio, "Action").set_value("Send to adjudication")
    _one(at.text_area, "Note").input("two readings")
    button(at, "Save").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert _resolution(page_engine, "p000").action == FlagAction.ADJUDICATION

    # only flag B is open now: it opens with the default action and an empty note
    assert "pair p001" in _shown_item(at)
    assert _one(at.radio, "Action").value == "Resolve (keep the ratings)"
    assert _one(at.text_area, "Note").value == ""
    _one(at.text_area, "Note").input("Skip accepted")
    button(at, "Save").click().run()
    saved = _resolution(page_engine, "p001")
    assert (saved.action, saved.note) == (FlagAction.RESOLVED, "Skip accepted")


def test_an_exclusion_reason_typed_for_one_pair_does_not_show_on_the_next(
    page_engine, open_page, two_skips
):
    at = open_page(two_skips, page="admin_flags.py", pick="s")
    _one(at.text_input, "Reason to leave the pair out").input("duplicate of p009")
    button(at, "Exclude the pair").click().run()
    assert "Pair p000 is left out of the analysis." in page_texts(at)
    at.toggle(key="flags_open").set_value(False).run()
    _open_item(at, "p001")
    assert _one(at.text_input, "Reason to leave the pair out").value == ""
    assert _one(at.radio, "Action").value == "Resolve (keep the ratings)"


def test_the_adjudicator_picked_for_one_pair_is_not_carried_to_the_next(
    page_engine, open_page, two_skips
):
    for record_id in ("p000", "p001"):
        flags.resolve_flag(
            page_engine, SYSTEM, study="s", assignment_id=_assignment(page_engine, record_id).id,
            action=FlagAction.ADJUDICATION, note="",
        )  # fmt: skip
    with write_session(page_engine) as session:
        for name in ("judge0", "judge1"):
            accounts.create_account(session, name, role="adjudicator")
    at = open_page(two_skips, page="admin_adjudication.py", pick="s")
    _one(at.selectbox, "Pair").select("p001").run()
    who = _one(at.selectbox, "Adjudicator")
    assert (who.options, who.value) == (["judge0", "judge1"], "judge0")
    who.select("judge1").run()
    _one(at.selectbox, "Pair").select("p000").run()
    assert _one(at.selectbox, "Adjudicator").value == "judge0"  # p000 starts afresh


def test_the_role_offered_for_an_account_is_its_own(page_engine, open_page, two_skips):
    with write_session(page_engine) as session:
        accounts.create_account(session, "res", role="researcher")
    at = open_page(two_skips, page="admin_people.py")
    _one(at.selectbox, "Account").select("res").run()
    assert _role(at).value == "researcher"
    _role(at).select("admin").run()
    _one(at.selectbox, "Account").select("a0").run()
    assert _role(at).value == "annotator"


def _role(at: Any) -> Any:
    """The role of the account being changed (not the one of the accounts to create)."""
    (found,) = [w for w in at.selectbox if w.label == "Role" and w.key != "new_account_role"]
    return found
