"""The fixed-plan planner: plain data in, plain plan out, no database.

Pairs are named by their record ids and annotators by their names (both what the seeded draws of
`annotate.domain.assignment.blinding` are computed from). Given the pairs to cover, the annotators
to use, k, the work that exists already and the study's seed and gold rate, `plan` says which
(annotator, pair) to add and which untouched items to move; `annotate.domain.assignment.fixed`
reads the inputs from the database and writes the result.

The rules:

- every pair gets k slots; each missing slot goes to the least-loaded annotator who never had
  the pair, ties broken by a draw from the seed (`takers`), pairs taken in a seeded order. With
  equal starting loads the loads end within one of each other; the same inputs give the same plan.
- pairs that already have k slots are left alone, and existing work is never touched, except that
  with `rebalance` untouched pending items move from the most- to the least-loaded annotators
  until loads are within one (each move lowers the sum of squared loads, so this ends).
- each annotator gets gold pairs they never had in proportion to their new ordinary work
  (`gold_count`), so gold is the study's gold rate of what they are given.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from annotate.domain.assignment import blinding


@dataclass(frozen=True)
class Movable:
    """An untouched pending fixed-plan item that rebalancing may move: its id and its pair."""

    item: int
    pair: str


@dataclass(frozen=True)
class Existing:
    """The work that exists before planning."""

    taken: Mapping[str, int] = field(default_factory=dict)  # record id -> slots held
    had: Mapping[str, set[str]] = field(default_factory=dict)  # record id -> ever had it
    loads: Mapping[str, int] = field(default_factory=dict)  # annotator -> ordinary slots held
    # annotator -> items rebalancing may move, the last in their queue first
    movable: Mapping[str, Sequence[Movable]] = field(default_factory=dict)


@dataclass(frozen=True)
class Move:
    """Release `item` (the giver's) and give its pair to the taker."""

    item: int
    giver: str
    taker: str
    pair: str


@dataclass
class Plan:
    new: dict[str, list[str]]  # annotator -> ordinary pairs to add (moved ones included)
    gold: dict[str, list[str]]  # annotator -> gold pairs to add
    moves: list[Move]
    short: list[str]  # pairs left below k (too few annotators who never had them)
    loads: dict[str, int]  # annotator -> ordinary slots held afterwards


def plan(
    seed: int,
    pairs: Sequence[str],
    annotators: Sequence[str],
    k: int,
    existing: Existing,
    *,
    gold_pairs: Sequence[str] = (),
    gold_rate: float = 0.0,
    rebalance: bool = False,
) -> Plan:
    """Give every pair k slots among the annotators, balanced, on top of the existing work."""
    people = list(dict.fromkeys(annotators))
    had: dict[str, set[str]] = defaultdict(set, {p: set(a) for p, a in existing.had.items()})
    load = {a: existing.loads.get(a, 0) for a in people}
    new: dict[str, list[str]] = {a: [] for a in people}
    ordered = sorted(dict.fromkeys(pairs), key=lambda p: blinding.draw(seed, "plan", p))
    wants = [(p, k - existing.taken.get(p, 0)) for p in ordered]
    short = hand_out(seed, wants, people, load, had, new)
    moves = _rebalance(people, load, had, existing.movable, new) if rebalance else []
    gold = {
        person: _gold_for(seed, person, gold_pairs, had, gold_count(len(new[person]), gold_rate))
        for person in people
    }
    return Plan(new=new, gold=gold, moves=moves, short=short, loads=load)


def takers(seed: int, pair: str, candidates: Iterable[str], load: Mapping[str, int]) -> list[str]:
    """The candidates in the order they take a new slot on `pair`: least loaded first, ties
    broken by a draw from the seed."""
    return sorted(candidates, key=lambda a: (load[a], blinding.draw(seed, pair, a)))


def hand_out(
    seed: int,
    wants: Iterable[tuple[str, int]],
    people: Sequence[str],
    load: dict[str, int],
    had: dict[str, set[str]],
    new: dict[str, list[str]],
) -> list[str]:
    """Give each (pair, slots wanted) to that many of `people` who never had the pair, in
    `takers` order, updating `load`, `had` and `new` (annotator -> pairs) as it goes; return the
    pairs that could not get every wanted slot."""
    short = []
    for pair, need in wants:
        if need <= 0:
            continue
        candidates = takers(seed, pair, (a for a in people if a not in had[pair]), load)
        for person in candidates[:need]:
            new[person].append(pair)
            load[person] += 1
            had[pair].add(person)
        if len(candidates) < need:
            short.append(pair)
    return short


def gold_count(regular: int, rate: float) -> int:
    """How many gold pairs to mix in with `regular` ordinary ones so gold is `rate` of all."""
    if regular <= 0 or rate <= 0:
        return 0
    return round(regular * rate / (1 - rate))


def sample_per_domain(seed: int, by_domain: Mapping[str, Iterable[str]], n: int) -> set[str]:
    """The first n of a seeded shuffle of each domain's record ids, so a larger n later keeps
    every pair drawn before (a plan extends, it is not redrawn)."""
    chosen: set[str] = set()
    for domain, members in sorted(by_domain.items()):
        order = sorted(members)
        random.Random(blinding.draw(seed, "sample", domain)).shuffle(order)
        chosen.update(order[:n])
    return chosen


def _gold_for(
    seed: int, person: str, golds: Sequence[str], had: dict[str, set[str]], n: int
) -> list[str]:
    if n <= 0:
        return []
    unseen = sorted(
        (g for g in golds if person not in had[g]),
        key=lambda g: blinding.draw(seed, "gold", person, g),
    )
    picked = unseen[:n]
    for gold in picked:
        had[gold].add(person)
    return picked


def _rebalance(
    people: Sequence[str],
    load: dict[str, int],
    had: dict[str, set[str]],
    movable: Mapping[str, Sequence[Movable]],
    new: dict[str, list[str]],
) -> list[Move]:
    """Move untouched pending items from the most- to the least-loaded until loads are within
    one. Items at the end of a queue move first."""
    left = {person: list(movable.get(person, ())) for person in people}
    moves = []
    while move := _find_move(sorted(people, key=lambda a: (load[a], a)), load, had, left):
        left[move.giver].remove(next(m for m in left[move.giver] if m.item == move.item))
        new[move.taker].append(move.pair)
        load[move.giver] -= 1
        load[move.taker] += 1
        had[move.pair].add(move.taker)
        moves.append(move)
    return moves


def _find_move(
    order: Sequence[str],
    load: Mapping[str, int],
    had: Mapping[str, set[str]],
    movable: Mapping[str, Sequence[Movable]],
) -> Move | None:
    for giver in reversed(order):
        for taker in order:
            if load[giver] - load[taker] <= 1:
                break
            for item in movable[giver]:
                if taker not in had[item.pair]:
                    return Move(item.item, giver, taker, item.pair)
    return None
