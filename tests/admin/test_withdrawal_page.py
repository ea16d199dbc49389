"""The participant's way out on the study link's pages (issue 24.2), with AppTest: a Withdraw box
on every page after enrolment, a confirmation first, the choice to erase, then the closing page
with the platform's way out (return the submission on Prolific) and no completion code."""

from __future__ import annotations

from admin_helpers import assignments, make_study, rate
from sqlmodel import select

from annotate.db import read_session
from annotate.db.tables import Annotator, Participation
from annotate.domain.study.studies import get_study

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
