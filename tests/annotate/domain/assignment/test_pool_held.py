"""The pair held behind the one being rated (issue 36.2, `pool.hold_next`): a live reservation
like any other, at most one besides the current pair, within the quota, lapsing, counted in
Progress, released on Finish, withdrawal and Log out; never handed out twice under concurrency.
Services on SQLite (and PostgreSQL with PRB_TEST_DATABASE_URL; `both_engines`: both)."""

from __future__ import annotations

import threading
from collections import Counter
from datetime import timedelta

from sqlmodel import col, select

from annotate.db import read_session, write_session
from annotate.db.tables import Annotator, Assignment, Study
from annotate.domain.assignment import assign_pairs, study_pairs
from annotate.domain.rating.progress import annotator_progress, totals
from annotate.domain.rating.queue import pair_view
from annotate.domain.study.studies import get_study
from annotate.services.admin.erasure import withdraw_me
from annotate.services.login import log_out
from annotate.services.participant.enrolment import enrol, finish_study, start
from annotate.services.participant.rating import skip_pair
from annotate.services.participant.work import hold_next, pull_next
from tests.annotate.domain.assignment.test_pool import _run_threads
from tests.helpers.admin_helpers import (
    assignments,
    holders,
    in_minutes,
    make_people,
    make_study,
    rate,
)


def _pool(engine, pairs=6, **settings):
    settings.setdefault("overlap", 2)
    settings.setdefault("reservation_minutes", 30)
    return make_study(engine, pairs=pairs, pool_open=True, **settings)


def _get(engine, assignment_id) -> Assignment:
    with read_session(engine) as session:
        found = session.get(Assignment, assignment_id)
        assert found is not None
        return found


def _live(engine, person: int) -> list[int]:
    """The person's pending reservations (lapsed or not), by id."""
    with read_session(engine) as session:
        query = select(Assignment.id).where(
            Assignment.annotator_id == person,
            Assignment.status == "pending",
            col(Assignment.reserved_until).is_not(None),
        )
        return sorted(int(i or 0) for i in session.exec(query).all())


def test_one_pair_is_held_behind_the_current_one_and_never_more(engine):
    study_id = _pool(engine)
    (a,) = make_people(engine, 1)
    assert hold_next(engine, a, 999) is None  # not a pair of theirs
    current = pull_next(engine, a, study_id)
    held = hold_next(engine, a, current)
    assert held is not None
    assert held != current
    item = _get(engine, held)
    assert (item.status, item.annotator_id, item.position) == ("pending", a, 1)
    left = item.reserved_until - in_minutes(0)
    assert timedelta(minutes=29) < left <= timedelta(minutes=30)  # a reservation like any
    assert hold_next(engine, a, current) == held  # one held: given again, no third
    assert pull_next(engine, a, study_id) == current  # the pair being rated comes first
    assert hold_next(engine, a, held) is None  # the held pair shown: nothing held behind it
    assert _live(engine, a) == [current, held]
    rate(engine, a, current)
    assert pull_next(engine, a, study_id) == held  # rated: the held pair is the current one
    behind = hold_next(engine, a, held)
    assert behind not in (None, current, held)
    assert _live(engine, a) == [held, behind]
    pairs = [x.pair_id for x in assignments(engine, study_id)]
    assert len(pairs) == len(set(pairs)) == 3


def test_a_done_pair_holds_nothing_new(engine):
    study_id = _pool(engine)
    (a,) = make_people(engine, 1)
    current = pull_next(engine, a, study_id)
    rate(engine, a, current)
    assert hold_next(engine, a, current) is None  # revisited after its rating
    assert _live(engine, a) == []


def test_no_pair_is_held_past_the_quota(engine):
    """Quota 3: the held pair counts against it, so with one pair left nothing is held, and
    the page's "Pair n of 3" stays 3 throughout."""
    study_id = _pool(engine, pool_quota=3)
    (a,) = make_people(engine, 1)
    first = pull_next(engine, a, study_id)
    second = hold_next(engine, a, first)
    assert second is not None
    rate(engine, a, first)
    assert hold_next(engine, a, second) is not None  # 1 rated + 2 live = 3
    third = hold_next(engine, a, second)
    rate(engine, a, second)
    assert hold_next(engine, a, third) is None  # 2 rated + the current one: the last pair
    with read_session(engine) as session:
        assert pair_view(session, a, third).total == 3
    rate(engine, a, third)
    assert pull_next(engine, a, study_id) is None
    assert len(assignments(engine, study_id)) == 3


def test_no_pair_is_held_past_the_skip_limit(engine):
    study_id = _pool(engine, pool_quota=5, skip_limit=1)
    (a,) = make_people(engine, 1)
    first = pull_next(engine, a, study_id)
    skip_pair(engine, annotator_id=a, assignment_id=first, reason="unclear")
    current = pull_next(engine, a, study_id)
    assert current is None  # the limit reached: no current pair, nor a held one


def test_an_unproven_crowd_participant_gets_a_held_pair_after_a_first_submit(engine):
    """A participant with nothing submitted holds one pair only (the crowd limits count
    reservations: made-up ids must not hold two each)."""
    study_id = _pool(
        engine, pairs=8, overlap=1, enrolment_open=True, pool_quota=5, finish_minimum=2
    )
    with read_session(engine) as session:
        key = get_study(session, "s").enrolment_key or ""
    visit = enrol(
        engine, study="s", key=key, participant_id="5f1a2b3c4d5e6f7a8b9c0d1e", session_id="s1"
    )
    me = visit.annotator_id
    first = start(engine, me, study="s", key=key)
    assert first is not None
    assert hold_next(engine, me, first) is None
    rate(engine, me, first)
    current = pull_next(engine, me, study_id)
    assert hold_next(engine, me, current) is not None


def test_a_held_pair_lapses_like_any_reservation(engine):
    study_id = _pool(engine, pairs=2, overlap=1, reservation_minutes=10)
    a, b = make_people(engine, 2)
    current = pull_next(engine, a, study_id)
    held = hold_next(engine, a, current)
    assert pull_next(engine, b, study_id) is None  # both pairs' only slots are a's
    taken_over = pull_next(engine, b, study_id, now=in_minutes(11))
    assert taken_over is not None
    assert (_get(engine, held).status, _get(engine, held).release_reason) == (
        "released",
        "lapsed",
    )
    assert _get(engine, current).status == "released"
    assert hold_next(engine, b, taken_over, now=in_minutes(11)) is not None  # the other pair


def test_progress_counts_the_held_pair_as_being_rated(engine):
    study_id = _pool(engine)
    (a,) = make_people(engine, 1)
    current = pull_next(engine, a, study_id)
    hold_next(engine, a, current)
    with read_session(engine) as session:
        study = session.get_one(Study, study_id)
        assert totals(session, study).in_progress == 2
        (row,) = annotator_progress(session, study_id)
    assert (row.assigned, row.pending, row.done) == (2, 2, 0)


def test_log_out_releases_the_held_pair_and_keeps_the_current_one(engine):
    study_id = _pool(engine)
    other = make_study(engine, "t", pairs=3, pool_open=True)
    (a,) = make_people(engine, 1)
    current = pull_next(engine, a, study_id)
    held = hold_next(engine, a, current)
    elsewhere = pull_next(engine, a, other)
    elsewhere_held = hold_next(engine, a, elsewhere)
    log_out(engine, a)
    assert _get(engine, current).status == "pending"  # resumed with the link
    assert _get(engine, elsewhere).status == "pending"
    for item in (held, elsewhere_held):
        assert (_get(engine, item).status, _get(engine, item).release_reason) == (
            "released",
            "logged out",
        )
    assert hold_next(engine, a, current) not in (None, held)  # a new one, never the same pair


def _crowd(engine):
    """A crowd study and a participant who rated one pair, now rating a second with a third
    held; (study id, participant id, their token, the study key, current, held)."""
    study_id = _pool(
        engine, pairs=8, overlap=1, enrolment_open=True, pool_quota=5, finish_minimum=1
    )
    with read_session(engine) as session:
        key = get_study(session, "s").enrolment_key or ""
    visit = enrol(
        engine, study="s", key=key, participant_id="5f1a2b3c4d5e6f7a8b9c0d1e", session_id="s1"
    )
    me = visit.annotator_id
    rate(engine, me, start(engine, me, study="s", key=key))
    current = pull_next(engine, me, study_id)
    held = hold_next(engine, me, current)
    assert held is not None
    return study_id, me, visit.token, key, current, held


def test_finish_releases_the_held_pair(engine):
    _, me, token, _, current, held = _crowd(engine)
    assert finish_study(engine, me, study="s", token=token) == 2
    assert {_get(engine, current).status, _get(engine, held).status} == {"released"}


def test_withdrawal_releases_the_held_pair(engine):
    _, me, token, key, current, held = _crowd(engine)
    withdraw_me(engine, me, study="s", key=key, token=token, erase_data=False)
    assert {_get(engine, current).status, _get(engine, held).status} == {"released"}
    with read_session(engine) as session:
        person = session.get(Annotator, me)
        assert person is not None
        assert not person.active


# ---------------------------------------------------------------- concurrency


def _race(engine, study_id: int, people: list[int]) -> dict[int, list[int]]:
    """Each person in a thread of their own: rate the current pair while one is held, until
    the pool gives nothing; the pairs each one was handed, current or held."""
    handed: dict[int, list[int]] = {p: [] for p in people}
    lock = threading.Lock()

    def work(i: int) -> None:
        person = people[i]
        while (current := pull_next(engine, person, study_id)) is not None:
            held = hold_next(engine, person, current)
            with lock:
                for item in (current, held):
                    if item is not None and item not in handed[person]:
                        handed[person].append(item)
            rate(engine, person, current, value=1 + i % 5)

    errors = _run_threads(len(people), work)
    assert not errors, errors
    return handed


def test_two_annotators_racing_for_the_last_pairs_never_share_one(both_engines):
    """k = 1 and 5 pairs: every pair is handed out (as current or held) to exactly one of the
    two, rated once, and nobody is left holding anything."""
    engine = both_engines
    for race in range(3):  # the race, three times on fresh studies
        study_id = make_study(engine, f"race{race}", pairs=5, overlap=1, pool_open=True)
        people = make_people(engine, 2, prefix=f"r{race}-")
        handed = _race(engine, study_id, people)
        pairs = [_get(engine, item).pair_id for items in handed.values() for item in items]
        assert len(pairs) == len(set(pairs)) == 5  # nothing handed out twice
        statuses = Counter(a.status for a in assignments(engine, study_id))
        assert statuses == {"done": 5}
        assert all(len(v) == 1 for v in holders(engine, study_id).values())


def test_many_annotators_holding_pairs_never_exceed_k(both_engines):
    engine = both_engines
    study_id = make_study(engine, "k2", pairs=12, overlap=2, pool_open=True, pool_quota=5)
    people = make_people(engine, 6)
    handed = _race(engine, study_id, people)
    statuses = Counter(a.status for a in assignments(engine, study_id))
    assert set(statuses) == {"done"}  # every pair handed out was rated, none left held
    assert statuses["done"] == sum(len(items) for items in handed.values())
    per_pair = Counter(a.pair_id for a in assignments(engine, study_id))
    assert max(per_pair.values()) <= 2  # k
    assert all(len(items) <= 5 for items in handed.values())  # never past the quota
    for annotators in holders(engine, study_id).values():
        assert len(annotators) == len(set(annotators))


def test_a_pair_of_a_fixed_plan_holds_nothing_from_a_pool(engine):
    """The next planned pair is already in the queue (the page holds that one); a closed pool
    reserves nothing more."""
    study_id = make_study(engine, "planned", pairs=3, pool_open=False)
    (a,) = make_people(engine, 1)
    with write_session(engine) as session:
        study = session.get_one(Study, study_id)
        person = session.get_one(Annotator, a)
        planned = assign_pairs(session, study, person, study_pairs(session, study))
        last = planned[-1].id
    assert last is not None
    assert hold_next(engine, a, last) is None
    assert len(assignments(engine, study_id)) == 3
