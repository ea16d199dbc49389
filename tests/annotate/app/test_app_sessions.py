"""After login the token leaves the address bar (issue 24, item 4): the page puts a session value
(`s`) in its place, a reload (a new session with only that URL) finds the same account, two
accounts in one browser each keep their own, and the value stops working when the link is
replaced, the account deactivated, the day is over, the value is altered, the person logs out
(an admin's or a researcher's sidebar, an annotator's page) or the server's secret changes; a
value made from what the database holds is refused (issue 32.1). AppTest on the real app, the
database on SQLite (or PostgreSQL with PRB_TEST_DATABASE_URL)."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import sqlite3
import time
from contextlib import closing
from pathlib import Path

import pytest
from sqlmodel import select
from streamlit.testing.v1 import AppTest

from annotate.app.session import LOGGED_OUT
from annotate.cli.server import APP_ENTRY
from annotate.config import SESSION_SECRET_ENV
from annotate.db import read_session, write_session
from annotate.db.tables import Annotator, Assignment
from annotate.domain.exports.backup import backup_database
from annotate.domain.study import accounts
from annotate.services.admin.demo import DEMO_ADMIN
from tests.helpers.apptest_helpers import annotator_id


def _reload(url_session_value: str) -> AppTest:
    """A new tab (a new Streamlit session) opened on the URL holding only the session value."""
    at = AppTest.from_file(str(APP_ENTRY), default_timeout=30)
    at.query_params["s"] = url_session_value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_the_token_leaves_the_url_and_a_reload_still_works(open_app, demo, engine):
    at = open_app(demo.token)
    assert "token" not in at.query_params
    value = at.query_params["s"]
    assert value.startswith(accounts.SESSION_PREFIX)
    assert demo.token not in value
    again = _reload(value)
    assert again.session_state["account_id"] == annotator_id(engine, demo.annotator)
    assert again.query_params["s"] == value  # still valid: kept as it is


def test_two_accounts_in_one_browser_keep_their_own(open_app, demo, engine, second_annotator):
    name_b, token_b = second_annotator
    a, b = open_app(demo.token), open_app(token_b)
    assert a.query_params["s"] != b.query_params["s"]
    assert _reload(a.query_params["s"]).session_state["account_id"] == annotator_id(
        engine, demo.annotator
    )
    assert _reload(b.query_params["s"]).session_state["account_id"] == annotator_id(engine, name_b)


def test_a_new_link_or_deactivation_ends_the_session_value(open_app, demo, engine):
    value = open_app(demo.token).query_params["s"]
    with write_session(engine) as session:
        accounts.rotate_token(session, demo.annotator)
    refused = _reload(value)
    assert "account_id" not in refused.session_state or refused.session_state["account_id"] is None
    assert any("not valid" in e.value for e in refused.error)


def test_an_expired_or_altered_value_finds_no_account(demo, engine):
    with read_session(engine) as session:
        account = accounts.account_named(session, demo.annotator)
        value = accounts.session_value(account)
        assert accounts.find_account(session, value).id == account.id
        later = time.time() + accounts.SESSION_HOURS * 3600 + 1
        assert accounts.find_account(session, value, now=later) is None
        prefix, rest = value[: len(accounts.SESSION_PREFIX)], value[len(accounts.SESSION_PREFIX) :]
        account_id, expiry, mac = rest.split(".")
        other_digit = "1" if mac[-1] == "0" else "0"
        forged = [
            f"{prefix}{account_id}.{int(expiry) + 3600}.{mac}",  # a longer life
            f"{prefix}{int(account_id) + 1}.{expiry}.{mac}",  # someone else
            f"{prefix}{account_id}.{expiry}.{mac[:-1]}{other_digit}",  # another MAC
            f"{prefix}{account_id}.{expiry}",
            f"{prefix}x.{expiry}.{mac}",
        ]
        assert [accounts.find_account(session, f) for f in forged] == [None] * len(forged)
    with write_session(engine) as session:
        accounts.set_active(session, demo.annotator, False)
    with read_session(engine) as session:
        assert accounts.find_account(session, value) is None


def test_logging_out_ends_the_session_values_everywhere_and_the_link_logs_in_again(
    open_app, demo, engine
):
    """An admin's sidebar has Log out: the login page follows, saying so; the address this tab
    had and another tab's stop working (as a browser's history would reopen them); the link
    still logs in, with a new session value that works."""
    at = open_app(demo.admin_token)
    kept = at.query_params["s"]
    other_tab = _reload(kept).query_params["s"]
    assert f"Logged in as {DEMO_ADMIN}" in [c.value for c in at.sidebar.caption]
    at.sidebar.button(key="log_out").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert dict(at.query_params) == {}
    assert "account_id" not in at.session_state
    assert [s.value for s in at.success] == [LOGGED_OUT]
    assert [t.value for t in at.title] == ["prb-annotate"]  # the login page
    for value in (kept, other_tab):
        refused = _reload(value)
        assert "account_id" not in refused.session_state
        assert any("not valid" in e.value for e in refused.error)
    again = open_app(demo.admin_token)
    assert again.session_state["account_id"] == annotator_id(engine, DEMO_ADMIN)
    assert _reload(again.query_params["s"]).session_state["account_id"] == annotator_id(
        engine, DEMO_ADMIN
    )


def test_a_logout_ends_only_that_account_s_values_and_none_issued_after(demo, engine):
    with read_session(engine) as session:
        admin = accounts.account_named(session, DEMO_ADMIN)
        annotator = accounts.account_named(session, demo.annotator)
        before, theirs = accounts.session_value(admin), accounts.session_value(annotator)
    with write_session(engine) as session:
        accounts.end_sessions(session, admin.id)
    with read_session(engine) as session:
        assert accounts.find_account(session, before) is None
        assert accounts.find_account(session, theirs).id == annotator.id
        after = accounts.session_value(accounts.account_named(session, DEMO_ADMIN))
        assert accounts.find_account(session, after).id == admin.id


def _stored(engine, name: str) -> tuple[int, int]:
    """(session epoch, active) as stored for the account."""
    with read_session(engine) as session:
        account = accounts.account_named(session, name)
        return account.session_epoch, account.active


@pytest.mark.parametrize("done", [False, True], ids=["rating page", "done page"])
def test_an_annotator_logs_out_from_the_rating_page_and_the_done_page(open_app, demo, engine, done):
    """Issue 32.8: annotators had no Log out (only admins' and researchers' sidebars did). It is
    on their page, below the pair or the done page's review button, and ends their session
    values like the admin's: the epoch goes up, the account stays active, the link logs in."""
    if done:
        with write_session(engine) as session:
            account = accounts.account_named(session, demo.annotator)
            for item in session.exec(
                select(Assignment).where(Assignment.annotator_id == account.id)
            ):
                item.status = "done"
                session.add(item)
    at = open_app(demo.token)
    titles = [t.value for t in at.title]
    assert ("All done, thank you!" in titles) is done
    kept = at.query_params["s"]
    epoch = _stored(engine, demo.annotator)[0]
    at.button(key="log_out").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert dict(at.query_params) == {}
    assert [s.value for s in at.success] == [LOGGED_OUT]
    assert _stored(engine, demo.annotator) == (epoch + 1, True)
    assert "account_id" not in _reload(kept).session_state
    again = open_app(demo.token)
    assert again.session_state["account_id"] == annotator_id(engine, demo.annotator)


# ------------------------------------------------- the server's secret (issue 32.1)


def _forge(prefix: str, account_id: int, expiry: int, key: bytes, message: str) -> str:
    mac = hmac.new(key, message.encode(), hashlib.sha256).hexdigest()[:32]
    return f"{prefix}{account_id}.{expiry}.{mac}"


def _admin_row_from_a_copy(engine, folder: Path) -> tuple[int, str, int]:
    """The admin's id, token hash and session epoch as a backup holds them: on SQLite the
    product's own backup file, read with plain sqlite3; on PostgreSQL the rows themselves."""
    if engine.url.get_backend_name() != "sqlite":
        with read_session(engine) as session:
            (admin,) = session.exec(select(Annotator).where(Annotator.name == DEMO_ADMIN)).all()
            return admin.id, admin.token_hash, admin.session_epoch
    copy = backup_database(engine, folder / "backup.db")
    with closing(sqlite3.connect(copy)) as database:
        query = "SELECT id, token_hash, session_epoch FROM annotator WHERE name = ?"
        (row,) = database.execute(query, (DEMO_ADMIN,)).fetchall()
    return row


def test_values_minted_from_a_copy_of_the_database_are_refused(open_app, demo, engine, tmp_path):
    """What a database or backup reader has (the token hash, the account id, the session
    epoch) no longer makes a session value: the MAC is keyed by the server's secret alone.
    Before, with $PRB_SESSION_SECRET unset, the first forgery below logged in as the admin,
    with expiries in 2100 and in the year 33658 too."""
    open_app(demo.admin_token)  # the admin has been logged in (as on a real server)
    account_id, token_hash, epoch = _admin_row_from_a_copy(engine, tmp_path)
    prefix = accounts.SESSION_PREFIX
    soon = int(time.time()) + 3600
    forged = []
    for expiry in (soon, 4102444800, 1_000_000_000_000):  # in an hour, 2100, year 33658
        for key, message in (
            (f":{token_hash}", f"{account_id}.{expiry}"),  # the old MAC, secret unset
            (f":{token_hash}", f"{account_id}.{expiry}.{epoch}"),
            (token_hash, f"{account_id}.{expiry}.{epoch}.{token_hash}"),
            ("", f"{account_id}.{expiry}.{epoch}.{token_hash}"),
        ):
            forged.append(_forge(prefix, account_id, expiry, key.encode(), message))
    with read_session(engine) as session:
        assert [accounts.find_account(session, f) for f in forged] == [None] * len(forged)
    for value in forged[:4]:
        refused = _reload(value)
        assert "account_id" not in refused.session_state
        assert any("not valid" in e.value for e in refused.error)


def test_a_value_never_lives_longer_than_the_server_issues(demo, engine):
    """Signed with the real secret but claiming a later expiry than the 24 hours the server
    gives (as only the secret's holder could make): refused, whatever the expiry."""
    with read_session(engine) as session:
        account = accounts.account_named(session, demo.annotator)
        day = accounts.SESSION_HOURS * 3600
        now = time.time()
        later = [now + 3600, 4102444800 - day, 1_000_000_000_000 - day]  # 2100, year 33658
        values = [accounts.session_value(account, now=t) for t in later]
        assert [accounts.find_account(session, v) for v in values] == [None] * 3
        # (made now: a day's life, accepted; the same secret and format)
        assert accounts.find_account(session, accounts.session_value(account)).id == account.id
        too_long = f"{accounts.SESSION_PREFIX}{account.id}.{'9' * 5000}.{'0' * 32}"
        assert accounts.find_account(session, too_long) is None


def test_a_new_secret_ends_every_session(open_app, demo, engine, monkeypatch):
    admin_value = open_app(demo.admin_token).query_params["s"]
    annotator_value = open_app(demo.token).query_params["s"]
    monkeypatch.setenv(SESSION_SECRET_ENV, secrets.token_urlsafe(32))  # rotated
    for value in (admin_value, annotator_value):
        refused = _reload(value)
        assert "account_id" not in refused.session_state
    again = open_app(demo.token)  # the links log in, under the new secret
    assert _reload(again.query_params["s"]).session_state["account_id"] == annotator_id(
        engine, demo.annotator
    )
