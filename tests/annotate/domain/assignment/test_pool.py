"""The open pool: pulling, k, reservations that lapse, late submits, and concurrency."""

from __future__ import annotations

import threading
from collections import Counter
from datetime import timedelta

import pytest
from sqlalchemy import update

from annotate.db import read_session, write_session
from annotate.db.tables import Assignment, Pair
from annotate.domain.rating.ratings import RatingError
from annotate.services.participant.rating import skip_pair
from annotate.services.participant.work import pull_for_annotator, pull_next
from tests.helpers.admin_helpers import (
    assignments,
    holders,
    in_minutes,
    make_people,
    make_study,
    rate,
    rated_per_pair,
)


def _pool(engine, pairs=6, **settings):
    settings.setdefault("overlap", 2)
    return make_study(engine, pairs=pairs, pool_open=True, **settings)


def _get(engine, assignment_id) -> Assignment:
    with read_session(engine) as session:
        return session.get(Assignment, assignment_id)  # type: ignore[return-value]


def test_a_pull_reserves_one_pair_and_returns_it_until_it_is_done(engine):
    study_id = _pool(engine, reservation_minutes=30)
    (a,) = make_people(engine, 1)
    first = pull_next(engine, a, study_id)
    item = _get(engine, first)
    assert item.status == "pending"
    assert item.annotator_id == a
    assert item.position == 0
    left = item.reserved_until - in_minutes(0)
    assert timedelta(minutes=29) < left <= timedelta(minutes=30)
    assert pull_next(engine, a, study_id) == first  # one live reservation at a time
    rate(engine, a, first)
    second = pull_next(engine, a, study_id)
    assert second != first
    assert _get(engine, second).position == 1


def test_nobody_gets_a_pair_twice_and_no_pair_goes_past_k(engine):
    study_id = _pool(engine, pairs=5, overlap=2)
    ids = make_people(engine, 4)
    got: dict[int, list[int]] = {i: [] for i in ids}
    progress = True
    while progress:
        progress = False
        for person in ids:
            pulled = pull_next(engine, person, study_id)
            if pulled is not None:
                got[person].append(_get(engine, pulled).pair_id)
                rate(engine, person, pulled)
                progress = True
    for pairs in got.values():
        assert len(pairs) == len(set(pairs))
    assert set(rated_per_pair(engine, study_id).values()) == {2}
    assert sum(len(v) for v in got.values()) == 10
    assert max(map(len, got.values())) - min(map(len, got.values())) <= 1


def test_in_breadth_order_the_pair_with_the_fewest_slots_comes_first(engine):
    study_id = _pool(engine, pairs=3, overlap=3, pool_order="breadth")
    ids = make_people(engine, 3)
    first = _get(engine, pull_next(engine, ids[0], study_id)).pair_id
    second = _get(engine, pull_next(engine, ids[1], study_id)).pair_id
    third = _get(engine, pull_next(engine, ids[2], study_id)).pair_id
    assert len({first, second, third}) == 3


def _pilot_pull(engine, study_id, person):
    pulled = pull_next(engine, person, study_id)
    return None if pulled is None else (pulled, _get(engine, pulled))


def _run_pilot(engine, study_id, ids, schedule):
    """Each person pulls and rates until the pool gives them nothing (quota 6): one after the
    other ("sequential"), taking turns ("turns"), or all holding a reservation at once
    ("reserved": everyone pulls before anyone rates)."""
    orders: dict[int, list[int]] = {i: [] for i in ids}
    if schedule == "sequential":
        for person in ids:
            while (got := _pilot_pull(engine, study_id, person)) is not None:
                orders[person].append(got[1].pair_id)
                rate(engine, person, got[0])
        return orders
    while True:
        pulled = [(p, got) for p in ids if (got := _pilot_pull(engine, study_id, p)) is not None]
        if not pulled:
            return orders
        for person, (assignment_id, item) in pulled:
            orders[person].append(item.pair_id)
            if schedule == "turns":
                rate(engine, person, assignment_id)
        if schedule == "reserved":
            for person, (assignment_id, _) in pulled:
                rate(engine, person, assignment_id)


@pytest.mark.parametrize("schedule", ["sequential", "turns", "reserved"])
def test_a_three_person_pilot_fills_six_pairs_three_times(engine, schedule):
    """Issue 22.3: overlap 3, 6 pairs each, 30 pairs in the pool: depth first (the default)
    ends with 6 pairs rated 3 times; breadth first spread the same 18 ratings over 18 pairs."""
    study_id = _pool(engine, pairs=30, overlap=3, pool_quota=6)
    ids = make_people(engine, 3)
    orders = _run_pilot(engine, study_id, ids, schedule)
    assert [len(o) for o in orders.values()] == [6, 6, 6]
    assert all(len(set(o)) == 6 for o in orders.values())  # nobody got a pair twice
    assert sorted(rated_per_pair(engine, study_id).values()) == [3] * 6
    assert len({frozenset(o) for o in orders.values()}) == 1  # the same six pairs
    if schedule == "sequential":  # each one's own draw orders the partly filled pairs
        assert len({tuple(o) for o in orders.values()}) == 3


def test_breadth_order_spreads_the_same_pilot_over_eighteen_pairs(engine):
    study_id = _pool(engine, pairs=30, overlap=3, pool_quota=6, pool_order="breadth")
    ids = make_people(engine, 3)
    _run_pilot(engine, study_id, ids, "sequential")
    assert sorted(rated_per_pair(engine, study_id).values()) == [1] * 18


def test_depth_order_never_gives_a_person_the_same_pair_twice_and_keeps_k(engine):
    study_id = _pool(engine, pairs=4, overlap=2)
    ids = make_people(engine, 5)
    orders = _run_pilot(engine, study_id, ids, "turns")
    assert all(len(set(o)) == len(o) for o in orders.values())
    assert sorted(rated_per_pair(engine, study_id).values()) == [2] * 4
    positions = [_positions(engine, person, study_id) for person in ids]
    assert all(p == list(range(len(p))) for p in positions)  # queue order recorded


def _positions(engine, person, study_id):
    mine = [a for a in assignments(engine, study_id) if a.annotator_id == person]
    return [a.position for a in sorted(mine, key=lambda a: a.id)]


def test_closed_pool_quota_and_inactive_accounts_get_nothing(engine):
    closed = make_study(engine, "closed", pairs=3, pool_open=False)
    (a, b) = make_people(engine, 2)
    assert pull_next(engine, a, closed) is None
    study_id = _pool(engine, pairs=6, pool_quota=2)
    rate(engine, a, pull_next(engine, a, study_id))
    rate(engine, a, pull_next(engine, a, study_id))
    assert pull_next(engine, a, study_id) is None  # quota reached
    with write_session(engine) as session:
        from annotate.domain.study.accounts import set_active

        set_active(session, "a1", False)
    assert pull_next(engine, b, study_id) is None


def test_a_lapsed_reservation_is_released_and_its_pair_goes_to_someone_else(engine):
    study_id = _pool(engine, pairs=1, overlap=1, reservation_minutes=10)
    (a, b) = make_people(engine, 2)
    held = pull_next(engine, a, study_id)
    assert pull_next(engine, b, study_id) is None  # the only slot is reserved
    taken_over = pull_next(engine, b, study_id, now=in_minutes(11))
    assert taken_over is not None
    assert _get(engine, held).status == "released"
    assert _get(engine, taken_over).pair_id == _get(engine, held).pair_id
    # a never gets the pair back, even after b's reservation lapses too.
    assert pull_next(engine, a, study_id, now=in_minutes(30)) is None


def _expire(engine, assignment_id):
    with write_session(engine) as session:
        session.execute(
            update(Assignment)
            .where(Assignment.id == assignment_id)
            .values(reserved_until=in_minutes(-1))
        )


def test_a_late_submit_is_accepted_while_the_slot_is_still_free(engine):
    study_id = _pool(engine, pairs=1, overlap=1)
    (a,) = make_people(engine, 1)
    held = pull_next(engine, a, study_id)
    _expire(engine, held)
    assert rate(engine, a, held).status == "saved"
    assert _get(engine, held).status == "done"
    assert rated_per_pair(engine, study_id) == Counter({_get(engine, held).pair_id: 1})


def test_a_late_submit_after_release_is_accepted_if_a_slot_is_still_free(engine):
    study_id = _pool(engine, pairs=1, overlap=2)
    (a, b, c) = make_people(engine, 3)
    held = pull_next(engine, a, study_id)
    _expire(engine, held)
    other = pull_next(engine, b, study_id)  # releases a's lapsed item, takes one of 2 slots
    assert _get(engine, held).status == "released"
    assert _get(engine, other).pair_id == _get(engine, held).pair_id
    rate(engine, a, held)  # the second slot was free: accepted, and it counts
    assert _get(engine, held).status == "done"
    assert pull_next(engine, c, study_id) is None  # both slots are now taken


def test_a_late_submit_is_refused_once_the_slot_was_refilled(engine):
    study_id = _pool(engine, pairs=1, overlap=1)
    (a, b) = make_people(engine, 2)
    held = pull_next(engine, a, study_id)
    _expire(engine, held)
    refill = pull_next(engine, b, study_id)
    with pytest.raises(RatingError, match="given to someone else"):
        rate(engine, a, held)
    with pytest.raises(RatingError, match="given to someone else"):
        skip_pair(engine, annotator_id=a, assignment_id=held, reason="too long")
    assert _get(engine, held).status == "released"
    rate(engine, b, refill)
    assert set(rated_per_pair(engine, study_id).values()) == {1}


def test_gold_pairs_are_pulled_at_the_gold_rate_and_do_not_use_slots(engine):
    study_id = _pool(engine, pairs=24, overlap=1, gold_rate=0.3)
    with write_session(engine) as session:
        for pair in session.exec(Pair.__table__.select().limit(4)).all():  # type: ignore[attr-defined]
            session.get(Pair, pair.id).gold_preference = "chosen"
    ids = make_people(engine, 2)
    for person in ids:
        while (pulled := pull_next(engine, person, study_id)) is not None:
            rate(engine, person, pulled)
    with read_session(engine) as session:
        gold = {p.id for p in session.exec(Pair.__table__.select()).all() if p.gold_preference}  # type: ignore[attr-defined]
    held = holders(engine, study_id)
    assert {p for p in held if p not in gold}
    assert all(len(v) == 1 for p, v in held.items() if p not in gold)
    assert len([p for p in held if p not in gold]) == 20  # every ordinary pair, once
    gold_seen = Counter(a.annotator_id for a in assignments(engine, study_id) if a.pair_id in gold)
    assert sum(gold_seen.values()) >= 3  # ~30% of the first pulls, at most 4 per person


def test_the_rating_page_pulls_only_from_pools_the_annotator_is_in(engine):
    pool = _pool(engine, pairs=2)
    (member, stranger) = make_people(engine, 2)
    first = pull_next(engine, member, pool)
    rate(engine, member, first)
    assert pull_for_annotator(engine, member) not in (None, first)
    assert pull_for_annotator(engine, stranger) is None


# ---------------------------------------------------------------- concurrency


def _run_threads(n: int, work) -> list[BaseException]:
    errors: list[BaseException] = []
    barrier = threading.Barrier(n)

    def body(i: int) -> None:
        try:
            barrier.wait()
            work(i)
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=body, args=(i,)) for i in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    return errors


def test_twenty_threads_pulling_and_completing_never_exceed_k(both_engines):
    engine = both_engines
    k, n_pairs = 3, 30
    study_id = _pool(engine, pairs=n_pairs, overlap=k)
    ids = make_people(engine, 20)
    done: Counter = Counter()

    def work(i: int) -> None:
        while (pulled := pull_next(engine, ids[i], study_id)) is not None:
            rate(engine, ids[i], pulled, value=1 + i % 5)
            done[ids[i]] += 1

    errors = _run_threads(20, work)
    assert not errors, errors
    per_pair = rated_per_pair(engine, study_id)
    assert len(per_pair) == n_pairs
    assert set(per_pair.values()) == {k}
    assert sum(done.values()) == n_pairs * k
    statuses = Counter(a.status for a in assignments(engine, study_id))
    assert statuses == {"done": n_pairs * k}
    for annotators in holders(engine, study_id).values():
        assert len(set(annotators)) == len(annotators)


def test_late_submits_racing_fresh_pulls_never_overfill(both_engines):
    engine = both_engines
    n_pairs = 10
    study_id = _pool(engine, pairs=n_pairs, overlap=1)
    dropouts = make_people(engine, n_pairs, prefix="late")
    newcomers = make_people(engine, n_pairs, prefix="new")
    held = [pull_next(engine, person, study_id) for person in dropouts]
    for item in held:
        _expire(engine, item)
    outcomes: Counter = Counter()

    def work(i: int) -> None:
        if i % 2 == 0:
            person, item = dropouts[i // 2], held[i // 2]
            try:
                rate(engine, person, item)
                outcomes["late accepted"] += 1
            except RatingError:
                outcomes["late refused"] += 1
        else:
            person = newcomers[i // 2]
            pulled = pull_next(engine, person, study_id)
            if pulled is not None:
                rate(engine, person, pulled)
                outcomes["fresh"] += 1

    errors = _run_threads(2 * n_pairs, work)
    assert not errors, errors
    per_pair = rated_per_pair(engine, study_id)
    assert max(per_pair.values()) == 1  # never two ratings for a k=1 pair
    assert sum(per_pair.values()) == outcomes["late accepted"] + outcomes["fresh"]
    assert outcomes["late accepted"] + outcomes["late refused"] == n_pairs
    done = Counter(a.pair_id for a in assignments(engine, study_id) if a.status == "done")
    assert max(done.values()) == 1
