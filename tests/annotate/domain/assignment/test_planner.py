"""The fixed-plan planner on plain data: no database anywhere in this file."""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict

from hypothesis import given, settings
from hypothesis import strategies as st

from annotate.domain.assignment.planner import (
    Existing,
    Movable,
    gold_count,
    hand_out,
    plan,
    sample_per_domain,
)

PAIRS = [f"p{i:02d}" for i in range(12)]
PEOPLE = ["ann", "bob", "cy", "dee"]


def _slots(result_new: dict[str, list[str]]) -> Counter[str]:
    return Counter(p for pairs in result_new.values() for p in pairs)


@settings(max_examples=60, deadline=None)
@given(
    n_pairs=st.integers(0, 40),
    n_people=st.integers(1, 8),
    k=st.integers(1, 8),
    seed=st.integers(0, 2**31),
)
def test_every_pair_gets_k_distinct_annotators_and_loads_end_within_one(n_pairs, n_people, k, seed):
    pairs = [f"r{i}" for i in range(n_pairs)]
    people = [f"a{i}" for i in range(n_people)]
    result = plan(seed, pairs, people, k, Existing())
    per_pair = _slots(result.new)
    if k <= n_people:
        assert all(per_pair[p] == k for p in pairs)
        assert not result.short
    else:
        assert all(per_pair[p] == n_people for p in pairs)
        assert result.short == sorted(result.short, key=lambda p: result.short.index(p))
        assert set(result.short) == set(pairs)
    for person, got in result.new.items():
        assert len(got) == len(set(got)) == result.loads[person]
    assert max(result.loads.values()) - min(result.loads.values()) <= 1
    assert not result.moves
    assert all(not g for g in result.gold.values())


def test_the_same_inputs_give_the_same_plan_and_another_seed_another():
    first = plan(7, PAIRS, PEOPLE, 2, Existing())
    assert plan(7, list(reversed(PAIRS)), PEOPLE, 2, Existing()) == first
    assert plan(8, PAIRS, PEOPLE, 2, Existing()).new != first.new


def test_a_tie_goes_to_the_smaller_sha256_draw():
    # Independent reference: the draw recomputed here with hashlib, not through the package.
    def sha(*parts: object) -> int:
        text = ":".join(str(p) for p in parts).encode("utf-8")
        return int.from_bytes(hashlib.sha256(text).digest()[:8], "big")

    for seed in range(20):
        result = plan(seed, ["only"], ["ann", "bob"], 1, Existing())
        expected = min(["ann", "bob"], key=lambda a: sha(seed, "only", a))
        assert result.new[expected] == ["only"]


def test_existing_work_is_extended_not_redone():
    existing = Existing(
        taken={"p00": 2, "p01": 1},
        had={"p00": {"ann", "bob"}, "p01": {"ann"}},
        loads={"ann": 2, "bob": 1},
    )
    result = plan(3, ["p00", "p01", "p02"], PEOPLE, 2, existing)
    assert _slots(result.new) == Counter({"p01": 1, "p02": 2})  # p00 is full already
    assert "p01" not in result.new["ann"]  # nobody gets a pair they had
    assert result.new["ann"] == []  # the most loaded gets nothing while others are below
    assert result.loads["ann"] == 2
    assert sum(result.loads.values()) == 3 + 3
    assert max(result.loads.values()) - min(result.loads.values()) <= 1


def test_a_newcomer_gets_the_new_work_first():
    existing = Existing(loads={"ann": 3, "bob": 3, "cy": 3})
    result = plan(1, ["n1", "n2", "n3"], ["ann", "bob", "cy", "dee"], 1, existing)
    assert sorted(result.new["dee"]) == ["n1", "n2", "n3"]


def test_rebalance_moves_untouched_items_to_the_least_loaded_never_to_a_former_holder():
    movable = {"ann": [Movable(i, f"p{i:02d}") for i in range(6)]}
    existing = Existing(
        taken={f"p{i:02d}": 1 for i in range(6)},
        had={f"p{i:02d}": {"ann"} for i in range(6)} | {"p00": {"ann", "bob"}},
        loads={"ann": 6},
        movable=movable,
    )
    result = plan(5, [], ["ann", "bob", "cy"], 1, existing, rebalance=True)
    assert sorted(result.loads.values()) == [2, 2, 2]
    assert len(result.moves) == 4
    assert all(m.giver == "ann" for m in result.moves)
    assert not any(m.pair == "p00" and m.taker == "bob" for m in result.moves)
    for move in result.moves:
        assert move.pair in result.new[move.taker]
    without = plan(5, [], ["ann", "bob", "cy"], 1, existing)
    assert not without.moves
    assert without.loads["ann"] == 6


def test_gold_is_mixed_in_at_the_rate_from_pairs_never_had():
    golds = ["g1", "g2", "g3", "g4"]
    existing = Existing(had={"g1": {"ann"}})
    result = plan(2, PAIRS, ["ann", "bob"], 1, existing, gold_pairs=golds, gold_rate=0.25)
    for person in ("ann", "bob"):
        assert len(result.gold[person]) == gold_count(len(result.new[person]), 0.25) == 2
    assert "g1" not in result.gold["ann"]
    assert gold_count(6, 0.25) == 2
    assert gold_count(0, 0.5) == 0
    assert gold_count(5, 0) == 0


def test_hand_out_reports_pairs_nobody_can_take():
    load = {"ann": 0, "bob": 0}
    had = {"x": {"ann", "bob"}, "y": {"ann"}}
    new: dict[str, list[str]] = {"ann": [], "bob": []}

    short = hand_out(
        1, [("x", 1), ("y", 1), ("z", 0)], ["ann", "bob"], load, defaultdict(set, had), new
    )
    assert short == ["x"]
    assert new == {"ann": [], "bob": ["y"]}
    assert load["bob"] == 1


def test_a_larger_sample_keeps_every_pair_drawn_before():
    by_domain = {"Art": [f"a{i}" for i in range(9)], "Life": [f"l{i}" for i in range(4)]}
    two = sample_per_domain(4, by_domain, 2)
    three = sample_per_domain(4, by_domain, 3)
    assert len(two) == 4
    assert len(three) == 6
    assert two < three
    assert sample_per_domain(4, by_domain, 10) == {p for ps in by_domain.values() for p in ps}
