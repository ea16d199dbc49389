"""Blinding: the side of the chosen response and the queue order, drawn reproducibly."""

from __future__ import annotations

import hashlib
import math
import random

import pytest
from sqlmodel import select

from annotate.db import read_session, write_session
from annotate.db.tables import Assignment, Pair
from annotate.domain.assignment import assign_pairs, blinding, planner, pool, study_pairs
from annotate.domain.assignment.blinding import chosen_side, response_on, shuffled, side_of
from annotate.domain.study import accounts
from annotate.domain.study.permissions import SYSTEM
from annotate.domain.study.studies import get_or_create_study
from annotate.services.admin.data import import_files

RECORDS = [f"{d}_{i}_0" for d in range(3) for i in range(400)]


def within_binomial(count: int, n: int, sds: float = 4.0) -> bool:
    """`count` successes in `n` fair trials lie within `sds` standard deviations of n/2."""
    return abs(count - n / 2) <= sds * math.sqrt(n / 4)


def test_chosen_side_is_a_documented_reproducible_draw():
    # Researchers recompute it from an export: sha256("seed:side:annotator:record id"), even->A.
    for seed, annotator, record in [(1, "alice", "0_1_0"), (20260407, "bob", "2_17_0")]:
        digest = hashlib.sha256(f"{seed}:side:{annotator}:{record}".encode()).digest()
        expected = "A" if int.from_bytes(digest[:8], "big") % 2 == 0 else "B"
        assert chosen_side(seed, annotator, record) == expected
        assert chosen_side(seed, annotator, record) == chosen_side(seed, annotator, record)


def test_sides_are_roughly_balanced_over_many_pairs():
    for seed, annotator in [(7, "alice"), (20260407, "demo-annotator")]:
        a_count = sum(chosen_side(seed, annotator, r) == "A" for r in RECORDS)
        assert within_binomial(a_count, len(RECORDS)), a_count
        assert 0 < a_count < len(RECORDS)


def test_sides_differ_across_annotators_and_seeds():
    alice = [chosen_side(7, "alice", r) for r in RECORDS]
    bob = [chosen_side(7, "bob", r) for r in RECORDS]
    other_seed = [chosen_side(8, "alice", r) for r in RECORDS]
    # independent draws agree about half the time, not always (or never)
    for other in (bob, other_seed):
        agree = sum(x == y for x, y in zip(alice, other, strict=True))
        assert within_binomial(agree, len(RECORDS)), agree


def test_shuffled_is_a_reproducible_permutation_independent_of_input_order():
    ids = RECORDS[:50]
    order = shuffled(3, "alice", ids)
    assert sorted(order) == sorted(ids)
    assert order != sorted(ids)
    assert shuffled(3, "alice", list(reversed(ids))) == order
    mixed = ids[:]
    random.Random(1).shuffle(mixed)
    assert shuffled(3, "alice", mixed) == order
    assert shuffled(3, "bob", ids) != order
    assert shuffled(4, "alice", ids) != order


def test_shuffled_puts_each_record_first_about_equally_often():
    ids = ["a", "b", "c", "d"]
    firsts = [shuffled(seed, "alice", ids)[0] for seed in range(400)]
    for record in ids:
        count = firsts.count(record)
        assert abs(count - 100) <= 4 * math.sqrt(400 * 0.25 * 0.75), (record, count)


@pytest.mark.parametrize("chosen_on", ["A", "B"])
def test_response_on_and_side_of_are_inverse(chosen_on):
    other = "B" if chosen_on == "A" else "A"
    assert response_on(chosen_on, chosen_on) == "chosen"
    assert response_on(other, chosen_on) == "rejected"
    assert side_of("chosen", chosen_on) == chosen_on
    assert side_of("rejected", chosen_on) == other
    for side in ("A", "B"):
        assert side_of(response_on(side, chosen_on), chosen_on) == side


# ---------------------------------------------------------------- stored with the assignment


@pytest.fixture
def study_with_pairs(engine, tmp_path, write_records, make_record):
    path = write_records(
        tmp_path / "Art_and_Entertainment_test.jsonl", [make_record(f"0_{i}_0") for i in range(30)]
    )
    with write_session(engine) as session:
        get_or_create_study(session, "s", seed=12345)
    import_files(engine, SYSTEM, [path], study="s")
    return engine


def queue(engine, name: str) -> list[tuple[int, str, str]]:
    """(position, record id, chosen side) of the annotator's queue, in order."""
    with read_session(engine) as session:
        account = accounts.get_account(session, name)
        rows = session.exec(
            select(Assignment.position, Pair.record_id, Assignment.chosen_side)
            .join(Pair, Pair.id == Assignment.pair_id)
            .where(Assignment.annotator_id == account.id)
            .order_by(Assignment.position)
        ).all()
    return [tuple(row) for row in rows]


def test_assign_pairs_stores_drawn_sides_and_a_shuffled_queue(study_with_pairs):
    engine = study_with_pairs
    with write_session(engine) as session:
        study = get_or_create_study(session, "s")
        alice, _ = accounts.create_account(session, "alice")
        created = assign_pairs(session, study, alice, study_pairs(session, study))
    assert len(created) == 30
    rows = queue(engine, "alice")
    record_ids = [f"0_{i}_0" for i in range(30)]
    assert [position for position, _, _ in rows] == list(range(30))
    assert [record for _, record, _ in rows] == shuffled(12345, "alice", record_ids)
    assert [side for _, _, side in rows] == [
        chosen_side(12345, "alice", record) for _, record, _ in rows
    ]
    assert {side for _, _, side in rows} == {"A", "B"}
    with read_session(engine) as session:
        statuses = set(session.exec(select(Assignment.status)).all())
    assert statuses == {"pending"}


def test_assign_pairs_twice_does_not_duplicate_and_appends_new_pairs(
    study_with_pairs, tmp_path, write_records, make_record
):
    engine = study_with_pairs
    with write_session(engine) as session:
        study = get_or_create_study(session, "s")
        alice, _ = accounts.create_account(session, "alice")
        assign_pairs(session, study, alice, study_pairs(session, study))
    first = queue(engine, "alice")
    with write_session(engine) as session:
        study = get_or_create_study(session, "s")
        again = assign_pairs(
            session, study, accounts.get_account(session, "alice"), study_pairs(session, study)
        )
    assert again == []
    assert queue(engine, "alice") == first

    more = write_records(
        tmp_path / "more" / "Art_and_Entertainment_test.jsonl",
        [make_record(f"0_{i}_0") for i in range(30, 35)],
    )
    import_files(engine, SYSTEM, [more], study="s")
    with write_session(engine) as session:
        study = get_or_create_study(session, "s")
        added = assign_pairs(
            session, study, accounts.get_account(session, "alice"), study_pairs(session, study)
        )
    assert len(added) == 5
    rows = queue(engine, "alice")
    assert rows[:30] == first
    assert [position for position, _, _ in rows] == list(range(35))
    assert sorted(record for _, record, _ in rows[30:]) == [f"0_{i}_0" for i in range(30, 35)]


def test_two_annotators_get_different_orders_and_sides(study_with_pairs):
    engine = study_with_pairs
    with write_session(engine) as session:
        study = get_or_create_study(session, "s")
        for name in ("alice", "bob"):
            account, _ = accounts.create_account(session, name)
            assign_pairs(session, study, account, study_pairs(session, study))
    alice, bob = queue(engine, "alice"), queue(engine, "bob")
    assert [r for _, r, _ in alice] != [r for _, r, _ in bob]
    sides_alice = {r: s for _, r, s in alice}
    sides_bob = {r: s for _, r, s in bob}
    assert sorted(sides_alice) == sorted(sides_bob)
    assert sides_alice != sides_bob


# ---------------------------------------------------------------- one draw for everything


def test_draw_is_the_documented_sha256_number():
    # Independent reference: sha256 of "part:part:..." read as a big-endian 64-bit number.
    for parts in [(1, "side", "alice", "0_1_0"), (7, "plan", "p001"), (3, "pool", "bob", "r")]:
        digest = hashlib.sha256(":".join(map(str, parts)).encode()).digest()
        assert blinding.draw(*parts) == int.from_bytes(digest[:8], "big")


def test_blinding_and_assignment_use_the_one_draw(study_with_pairs, monkeypatch):
    """Replacing `blinding.draw` changes the side, the plan's tie-break and the pool's pick
    together: no module keeps a copy of the draw."""
    engine = study_with_pairs
    favourite = "0_7_0"
    real = planner.plan(12345, [favourite], ["ann", "bob"], 1, planner.Existing())
    winner, loser = ("ann", "bob") if real.new["ann"] else ("bob", "ann")

    def rigged(*parts: object) -> int:
        if loser in parts or winner in parts:
            return 0 if loser in parts else 1
        return 0 if favourite in parts else 1

    monkeypatch.setattr(blinding, "draw", rigged)
    assert chosen_side(12345, "alice", favourite) == "A"  # 0 is even
    assert chosen_side(12345, "alice", "0_8_0") == "B"  # 1 is odd
    rigged_plan = planner.plan(12345, [favourite], ["ann", "bob"], 1, planner.Existing())
    assert rigged_plan.new[loser] == [favourite]  # the tie now goes the other way
    with write_session(engine) as session:
        study = get_or_create_study(session, "s")
        study.pool_open = True
        alice, _ = accounts.create_account(session, "alice")
        assert alice.id is not None
        assert study.id is not None
        pulled = pool.pull_next(session, alice.id, study.id)
        item = session.get(Assignment, pulled)
        assert item is not None
        pair = session.get(Pair, item.pair_id)
        assert pair is not None
        assert pair.record_id == favourite
        assert item.chosen_side == "A"
