"""The participant's way out on the study link's pages (issue 24.2), with AppTest: a Withdraw box
on every page after enrolment, a confirmation first, the choice to erase, then the closing page
with the platform's way out (return the submission on Prolific) and no completion code.

Issue 32: only the study's own participant sees the box (an admin, researcher, adjudicator or
annotator opening the study link with their login does not); a tab holding only the address's
session value (a reload, an onlooker) is offered no erasure; the link's first page is the same
for an unknown id, one taking part and one that has withdrawn (another session id)."""

from __future__ import annotations

import pytest
from sqlmodel import select

from annotate.app.participant.withdraw import ERASE_ELSEWHERE
from annotate.db import read_session, write_session
from annotate.db.tables import Annotator, Participation
from annotate.domain.study import accounts
from annotate.domain.study.studies import get_study
from tests.helpers.admin_helpers import assignments, make_study, rate

PID = "5f1a2b3c4d5e6f7a8b9c0d1e"
SESSION = "6a7b8c9d0e1f2a3b4c5d6e7f"


def _open(page_engine, open_page, **settings):
    make_study(
        page_engine,
        "crowd",
        pairs=3,
        overlap=1,
        pool_open=True,
        enrolment_open=True,
        completion_code="DONE-CODE-1",
        **settings,
    )
    with read_session(page_engine) as session:
        key = get_study(session, "crowd").enrolment_key
    return open_page(study="crowd", key=key, PROLIFIC_PID=PID, SESSION_ID=SESSION)


def _texts(at) -> str:
    return "\n".join(str(m.value) for m in [*at.markdown, *at.title])


def _withdraw(at, erase: bool):
    button = at.button(key="withdraw_button")
    assert button.disabled  # nothing happens without the confirmation
    if erase:
        at.checkbox(key="withdraw_erase").check()
    at.checkbox(key="withdraw_confirm").check().run()
    at.button(key="withdraw_button").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_withdrawing_with_erasure_leaves_no_account_and_offers_no_code(page_engine, open_page):
    at = _open(page_engine, open_page)
    at.button(key="crowd_start").click().run()
    (item,) = assignments(page_engine, 1)
    rate(page_engine, item.annotator_id, item.id)
    at.run()
    _withdraw(at, erase=True)
    text = _texts(at)
    assert "You have withdrawn from this study" in text
    assert "Everything you gave in this study has been erased." in text
    assert "return your submission" in text
    assert "DONE-CODE-1" not in text
    assert "token" not in at.query_params
    with read_session(page_engine) as session:
        assert session.exec(select(Annotator)).all() == []
    assert assignments(page_engine, 1) == []


def test_a_refused_withdrawal_says_why_beside_the_button_and_changes_nothing(
    page_engine, open_page
):
    """The login was replaced (an admin made a new link) between drawing the box and the click:
    the button's callback is refused, the reason is shown, nothing is withdrawn."""
    at = _open(page_engine, open_page)
    at.button(key="crowd_start").click().run()
    at.checkbox(key="withdraw_confirm").check().run()
    with write_session(page_engine) as session:
        (account,) = session.exec(select(Annotator)).all()
        accounts.rotate_token(session, account.name)
    at.button(key="withdraw_button").click().run()
    assert "You have withdrawn from this study" not in _texts(at)
    (refusal,) = [e.value for e in at.sidebar.error]
    assert "no longer valid" in refusal
    with read_session(page_engine) as session:
        (account,) = session.exec(select(Annotator)).all()
        records = session.exec(select(Participation)).all()
    assert account.active
    assert all(record.withdrawn_at is None for record in records)
    assert assignments(page_engine, 1) != []


def test_withdrawing_before_start_keeps_the_record_and_ends_the_link(page_engine, open_page):
    # The account exists from the first deliberate action (issue 24.7): here, the consent.
    at = _open(page_engine, open_page, consent_text="I agree to take part.")
    at.button(key="consent_accept").click().run()
    _withdraw(at, erase=False)
    assert "Your work so far is kept" in _texts(at)
    with read_session(page_engine) as session:
        (account,) = session.exec(select(Annotator)).all()
        (record,) = session.exec(select(Participation)).all()
    assert not account.active
    assert record.withdrawn_at is not None
    with read_session(page_engine) as session:
        key = get_study(session, "crowd").enrolment_key
    again = open_page(study="crowd", key=key, PROLIFIC_PID=PID, SESSION_ID=SESSION)
    shown = [*again.error, *again.markdown, *again.warning, *again.info]
    assert "Your participation in this study has ended" in "\n".join(str(e.value) for e in shown)


def test_the_consent_page_promises_the_side_panel_only_where_it_is(page_engine, open_page):
    """Issue 34.5: a visitor's consent page said "open the side panel (»)", which appears only
    once they agree (the account comes with it); the rating page's hint says it where it is."""
    at = _open(page_engine, open_page, consent_text="I agree to take part.")
    assert not _has_withdraw_box(at)
    (hint,) = [c.value for c in at.caption]
    assert "Once you take part" in hint
    assert "open the side panel" not in hint
    at.button(key="consent_accept").click().run()
    assert _has_withdraw_box(at)
    assert any("open the side panel (»)" in c.value for c in at.caption)


# ---------------------------------------------------------------- issue 32.2 and 32.5


def _has_withdraw_box(at) -> bool:
    labels = [e.proto.label for e in at.get("expandable")]
    return "Withdraw from this study" in labels or any(
        b.key == "withdraw_button" for b in at.button
    )


@pytest.mark.parametrize("role", ["admin", "researcher", "adjudicator", "annotator"])
def test_no_other_role_sees_the_withdraw_box_on_a_study_link(page_engine, open_page, role):
    participant = _open(page_engine, open_page)
    participant.button(key="crowd_start").click().run()
    assert _has_withdraw_box(participant)  # the study's own participant does
    with write_session(page_engine) as session:
        _, token = accounts.create_account(session, f"{role}-1", role=role)
        key = get_study(session, "crowd").enrolment_key
    other = open_page(token, study="crowd", key=key, PROLIFIC_PID=PID, SESSION_ID=SESSION)
    assert "s" in other.query_params  # logged in as the other account
    assert not _has_withdraw_box(other)
    with read_session(page_engine) as session:
        assert all(a.active for a in session.exec(select(Annotator)).all())


def test_a_tab_holding_only_the_session_value_cannot_erase(page_engine, open_page):
    at = _open(page_engine, open_page)
    at.button(key="crowd_start").click().run()
    assert any(c.key == "withdraw_erase" for c in at.checkbox)  # the tab that enrolled
    with read_session(page_engine) as session:
        key = get_study(session, "crowd").enrolment_key
    seen = at.query_params["s"]  # what an onlooker reads in the address
    onlooker = open_page(s=seen, study="crowd", key=key, PROLIFIC_PID=PID, SESSION_ID=SESSION)
    assert _has_withdraw_box(onlooker)
    assert not any(c.key == "withdraw_erase" for c in onlooker.checkbox)
    assert ERASE_ELSEWHERE in "\n".join(str(c.value) for c in onlooker.caption)
    onlooker.checkbox(key="withdraw_confirm").check().run()
    onlooker.button(key="withdraw_button").click().run()
    assert "Your work so far is kept" in _texts(onlooker)
    with read_session(page_engine) as session:
        (account,) = session.exec(select(Annotator)).all()  # withdrawn, not erased
        (record,) = session.exec(select(Participation)).all()
    assert not account.active
    assert record.withdrawn_at is not None


def test_the_link_s_first_page_is_the_same_for_unknown_active_and_withdrawn_ids(
    page_engine, open_page
):
    active = _open(page_engine, open_page, consent_text="I agree to take part.")
    active.button(key="consent_accept").click().run()  # the account exists from here
    with read_session(page_engine) as session:
        key = get_study(session, "crowd").enrolment_key
    gone = open_page(
        study="crowd", key=key, PROLIFIC_PID="70bb22cc33dd44ee55ff6600", SESSION_ID="x1"
    )
    gone.button(key="consent_accept").click().run()
    _withdraw(gone, erase=False)
    pages = []
    for pid in (PID, "70bb22cc33dd44ee55ff6600", "80cc33dd44ee55ff66007711"):
        at = open_page(study="crowd", key=key, PROLIFIC_PID=pid, SESSION_ID="not-theirs")
        shown = [*at.title, *at.markdown, *at.error, *at.warning, *at.info, *at.caption]
        pages.append(([str(e.value) for e in shown], [b.key for b in at.button]))
        assert "s" not in at.query_params
    assert pages[0] == pages[1] == pages[2]
    assert "I agree to take part." in pages[0][0]
    assert "consent_accept" in pages[0][1]
