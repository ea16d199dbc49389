"""Accounts: tokens shown once and stored only as a hash; roles; deactivation; rotation."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from sqlalchemy.engine import make_url
from sqlmodel import select

from annotate.db import read_session, write_session
from annotate.db.tables import Annotator
from annotate.domain.study import accounts
from annotate.domain.study.accounts import AccountError
from annotate.vocabulary import ROLES


def create(engine, name: str, role: str = "annotator") -> str:
    with write_session(engine) as session:
        _, token = accounts.create_account(session, name, role=role)
    return token


def find(engine, token: str | None) -> str | None:
    with read_session(engine) as session:
        account = accounts.find_account(session, token)
        return None if account is None else account.name


def all_stored_text(engine) -> str:
    """Every value of every annotator row, as text."""
    with read_session(engine) as session:
        rows = session.exec(select(Annotator)).all()
        return "\n".join(repr(row.model_dump()) for row in rows)


def test_token_is_random_long_and_stored_only_as_its_hash(engine, db_url):
    tokens = [create(engine, f"person{i}") for i in range(3)]
    assert len(set(tokens)) == 3
    assert all(len(t) >= 32 for t in tokens)
    with read_session(engine) as session:
        stored = {a.name: a.token_hash for a in session.exec(select(Annotator))}
    assert stored == {f"person{i}": accounts.hash_token(t) for i, t in enumerate(tokens)}
    text = all_stored_text(engine)
    assert not any(t in text for t in tokens)

    if make_url(db_url).get_backend_name() == "sqlite":
        engine.dispose()  # closing checkpoints the WAL; read whatever files exist
        database = Path(make_url(db_url).database)
        raw = b"".join(
            Path(f"{database}{suffix}").read_bytes()
            for suffix in ("", "-wal", "-shm")
            if Path(f"{database}{suffix}").exists()
        )
        assert b"person0" in raw  # the search does see row data...
        assert accounts.hash_token(tokens[0]).encode() in raw
        for token in tokens:  # ...but never a token
            assert token.encode() not in raw


def test_find_account_by_token(engine):
    alice = create(engine, "alice")
    bob = create(engine, "bob", role="admin")
    assert find(engine, alice) == "alice"
    assert find(engine, bob) == "bob"
    assert find(engine, f"  {alice}\n") == "alice"  # pasted with whitespace
    assert find(engine, alice + "x") is None
    assert find(engine, "") is None
    assert find(engine, None) is None


def test_deactivated_account_is_not_found_and_can_be_reactivated(engine):
    token = create(engine, "alice")
    with write_session(engine) as session:
        assert accounts.set_active(session, "alice", False).active is False
    assert find(engine, token) is None
    with write_session(engine) as session:
        accounts.set_active(session, "alice", True)
    assert find(engine, token) == "alice"


def test_rotate_token_invalidates_the_old_one(engine):
    old = create(engine, "alice")
    with write_session(engine) as session:
        new = accounts.rotate_token(session, "alice")
    assert new != old
    assert find(engine, old) is None
    assert find(engine, new) == "alice"


@pytest.mark.parametrize("role", ROLES)
def test_every_role_can_be_created(engine, role):
    create(engine, "someone", role=role)
    with read_session(engine) as session:
        assert accounts.get_account(session, "someone").role == role


def test_roles_are_validated(engine):
    assert ROLES == ("annotator", "admin", "researcher", "adjudicator")
    with pytest.raises(AccountError, match="unknown role 'boss'; expected one of annotator"):
        create(engine, "x", role="boss")
    create(engine, "y")
    with pytest.raises(AccountError, match="unknown role"), write_session(engine) as session:
        accounts.set_role(session, "y", "root")
    with write_session(engine) as session:
        accounts.set_role(session, "y", "researcher")
    with read_session(engine) as session:
        assert [(a.name, a.role) for a in accounts.list_accounts(session)] == [("y", "researcher")]


def test_duplicate_and_empty_names_are_refused(engine):
    create(engine, "alice")
    with pytest.raises(AccountError, match="an account named 'alice' already exists"):
        create(engine, "alice")
    with pytest.raises(AccountError, match="already exists"):
        create(engine, "  alice ")
    with pytest.raises(AccountError, match="non-empty name"):
        create(engine, "   ")
    with read_session(engine) as session:
        assert [a.name for a in accounts.list_accounts(session)] == ["alice"]


def test_unknown_account_names_raise(engine):
    with (
        pytest.raises(AccountError, match="no account named 'ghost'"),
        write_session(engine) as session,
    ):
        accounts.rotate_token(session, "ghost")


def test_login_link_carries_the_token(monkeypatch):
    link = accounts.login_link("abc-_123", "https://rate.example.org/")
    assert link == "https://rate.example.org/?token=abc-_123"
    monkeypatch.setenv("PRB_APP_URL", "http://host:9000/app/")
    parsed = urlparse(accounts.login_link("t0k"))
    assert (parsed.netloc, parsed.path, parse_qs(parsed.query)) == (
        "host:9000",
        "/app/",
        {"token": ["t0k"]},
    )
