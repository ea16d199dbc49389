"""Security 1: tokens are random (>= 128 bits, from `secrets`), stored only hashed, and looked up
with a constant-time comparison.

The database finds the row by the token's SHA-256 (an index hit); an attacker who times that
learns about hashes of their guesses, not about the stored token. The final check of the hash is
`hmac.compare_digest`.

Also covered elsewhere: tests/annotate/domain/study/test_accounts.py (the raw SQLite file never
holds a token, rotation and deactivation invalidate a token).
"""

from __future__ import annotations

import ast
import inspect
import math
import re
import secrets

from security_helpers import all_stored_values

from annotate.db import read_session, write_session
from annotate.domain.study import accounts
from annotate.domain.study.studies import create_study, get_study
from annotate.services.admin import people
from annotate.services.participant.enrolment import enrol

URL_SAFE = re.compile(r"^[A-Za-z0-9_-]+$")
MIN_BITS = 128


def test_tokens_come_from_secrets_with_at_least_128_bits():
    tokens = [accounts.generate_token() for _ in range(2000)]
    assert len(set(tokens)) == len(tokens)
    assert all(URL_SAFE.match(t) for t in tokens)
    # URL-safe base64 carries 6 bits per character: the length says how many random bits.
    assert min(len(t) for t in tokens) * 6 >= MIN_BITS
    assert accounts.TOKEN_BYTES * 8 >= MIN_BITS
    # Every character of the alphabet turns up, in every position range: not a narrow generator.
    assert set("".join(tokens)) == set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    )
    first_chars = {t[0] for t in tokens}
    assert len(first_chars) > 60
    # The estimated per-character entropy is close to log2(64) = 6 bits.
    counts: dict[str, int] = {}
    for char in "".join(tokens):
        counts[char] = counts.get(char, 0) + 1
    total = sum(counts.values())
    entropy = -sum(n / total * math.log2(n / total) for n in counts.values())
    assert entropy > 5.9


def test_token_generation_uses_the_secrets_module(monkeypatch):
    calls = []
    real = secrets.token_urlsafe

    def counting(n: int | None = None) -> str:
        calls.append(n)
        return real(n)

    monkeypatch.setattr(secrets, "token_urlsafe", counting)
    accounts.generate_token()
    assert calls == [accounts.TOKEN_BYTES]
    # And nothing in the accounts module reaches for the `random` module.
    tree = ast.parse(inspect.getsource(accounts))
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert "random" not in imported


def test_no_token_is_stored_anywhere_only_its_hash(engine):
    """Accounts made every way (library, admin action, rotation, crowd enrolment): no column of
    any table holds a token, or even a long piece of one."""
    with write_session(engine) as session:
        boss, boss_token = accounts.create_account(session, "boss", role="admin")
        _, alice = accounts.create_account(session, "alice")
        create_study(session, "crowd", pool_open=True, enrolment_open=True)
    links = people.create_accounts(engine, boss.id, ["carol", "dave"], role="researcher")
    made = [new.link.split("token=")[1] for new in links]
    rotated = people.rotate_account(engine, boss.id, "alice").split("token=")[1]
    with read_session(engine) as session:
        key = get_study(session, "crowd").enrolment_key or ""
    crowd = enrol(
        engine, study="crowd", key=key, participant_id="PID123", session_id="SESSIONSECRET42"
    ).token
    tokens = [boss_token, alice, *made, rotated, crowd]

    stored = all_stored_values(engine)
    assert "boss" in stored
    assert "PID123" in stored
    assert "SESSIONSECRET42" not in stored  # the crowd session id, which lets a participant back
    for token in tokens:
        pieces = {token[i : i + 12] for i in range(len(token) - 11)}
        assert not [p for p in pieces if p in stored], "a piece of a token is stored"
    for token in (boss_token, *made, rotated, crowd):
        assert accounts.hash_token(token) in stored
    assert accounts.hash_token(alice) not in stored  # rotated away


def test_lookup_compares_in_constant_time_and_needs_the_exact_token(engine, monkeypatch):
    with write_session(engine) as session:
        account, token = accounts.create_account(session, "alice")
    compared = []
    real = accounts.hmac.compare_digest

    def counting(a, b):  # type: ignore[no-untyped-def]
        compared.append((a, b))
        return real(a, b)

    monkeypatch.setattr(accounts.hmac, "compare_digest", counting)
    with read_session(engine) as session:
        found = accounts.find_account(session, token)
    assert found is not None
    assert found.id == account.id
    assert compared == [(accounts.hash_token(token),) * 2]

    last = token[-1]
    other = "A" if last != "A" else "B"
    with read_session(engine) as session:
        assert accounts.find_account(session, token[:-1] + other) is None
        assert accounts.find_account(session, token[:-1]) is None
        assert accounts.find_account(session, token.swapcase()) is None
        # The stored hash itself is not a token.
        assert accounts.find_account(session, accounts.hash_token(token)) is None
