"""Logging in by the personal link or by pasting the token; a bad token gets a message only."""

from __future__ import annotations

from annotate.db import write_session
from annotate.domain.study import accounts
from tests.helpers.apptest_helpers import annotator_id, messages, progress

BAD_LINK = "This login link is not valid"


def assert_rating_ui_absent(at) -> None:
    assert len(at.radio) == 0
    assert not [f for f in at.get("form") if getattr(f, "form_id", "") == "pair"]
    assert not [m for m in messages(at.markdown) if m.startswith("**Pair ")]
    assert not [b for b in at.button if (b.key or "").startswith(("nav_", "skip_"))]


def test_login_by_token_in_url_shows_the_first_pair(open_app, demo, engine):
    at = open_app(demo.token)

    assert progress(at) == "**Pair 1 of 27** · 0 rated"
    assert len(at.radio) == 8
    assert not at.error
    assert at.session_state["account_id"] == annotator_id(engine, demo.annotator)


def test_login_page_without_token_shows_only_the_form(open_app, demo):
    at = open_app()

    assert [t.label for t in at.text_input] == ["Your access token"]
    assert not at.error
    assert_rating_ui_absent(at)


def test_login_by_pasting_the_token(open_app, demo, engine):
    at = open_app()
    at.text_input[0].set_value(f"  {demo.token}\n")  # pasted with stray whitespace
    at.button[0].click()
    at.run()

    assert not at.exception
    assert "token" not in at.query_params  # replaced by a session value (issue 24, item 4)
    assert at.query_params["s"].startswith("s2.")
    assert progress(at) == "**Pair 1 of 27** · 0 rated"
    assert at.session_state["account_id"] == annotator_id(engine, demo.annotator)


def test_unknown_token_in_url_gets_the_message_and_no_rating_ui(open_app, demo):
    at = open_app("not-a-real-token")

    assert len(at.error) == 1
    assert BAD_LINK in at.error[0].value
    assert "account_id" not in at.session_state
    assert_rating_ui_absent(at)


def test_unknown_pasted_token_gets_the_message(open_app, demo):
    at = open_app()
    at.text_input[0].set_value(demo.token + "x")
    at.button[0].click()
    at.run()

    assert len(at.error) == 1
    assert BAD_LINK in at.error[0].value
    assert_rating_ui_absent(at)


def test_deactivated_token_gets_the_message_and_no_rating_ui(open_app, demo, engine):
    with write_session(engine) as session:
        accounts.set_active(session, demo.annotator, False)

    at = open_app(demo.token)

    assert len(at.error) == 1
    assert BAD_LINK in at.error[0].value
    assert "account_id" not in at.session_state
    assert_rating_ui_absent(at)


def test_deactivation_takes_effect_on_the_next_run_of_an_open_page(open_app, demo, engine):
    at = open_app(demo.token)
    assert len(at.radio) == 8

    with write_session(engine) as session:
        accounts.set_active(session, demo.annotator, False)
    at.run()

    assert len(at.error) == 1
    assert BAD_LINK in at.error[0].value
    assert_rating_ui_absent(at)


def test_rotated_token_stops_working(open_app, demo, engine):
    with write_session(engine) as session:
        fresh = accounts.rotate_token(session, demo.annotator)

    assert BAD_LINK in open_app(demo.token).error[0].value
    assert progress(open_app(fresh)) == "**Pair 1 of 27** · 0 rated"
