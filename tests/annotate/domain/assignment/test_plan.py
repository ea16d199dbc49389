"""The fixed plan: exactly k distinct annotators per pair, loads within one, extension."""

from __future__ import annotations

import csv
import io
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import insert
from typer.testing import CliRunner

from annotate.cli import app
from annotate.db import make_engine, write_session
from annotate.db.tables import Annotator, Assignment, Pair, Study
from annotate.domain.assignment import (
    AssignmentError,
    PairSelection,
    plan_fixed,
    select_pairs,
)
from tests.helpers.admin_helpers import (
    all_pairs,
    assignments,
    holders,
    loads,
    make_people,
    make_study,
    rate,
    study_of,
)

PROPERTY = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


ALL = PairSelection()


def _plan(engine, study_id, annotator_ids, k=None, selection=ALL, **kw):
    with write_session(engine) as session:
        study = session.get(Study, study_id)
        pairs = select_pairs(session, study, selection)
        chosen = [session.get(Annotator, i) for i in annotator_ids]
        return plan_fixed(session, study, chosen, pairs, per_pair=k, **kw)


def _fresh(n_pairs: int, m: int, seed: int = 7):
    engine = make_engine("sqlite://")
    study_id = make_study(engine, pairs=n_pairs, seed=seed)
    return engine, study_id, make_people(engine, m)


def _plan_table(engine, study_id) -> set[tuple]:
    pairs = {p.id: p.record_id for p in all_pairs(engine, study_id)}
    return {
        (a.annotator_id, pairs[a.pair_id], a.position, a.chosen_side, a.status)
        for a in assignments(engine, study_id)
    }


@PROPERTY
@given(st.integers(0, 30), st.integers(1, 8), st.data())
def test_every_pair_gets_exactly_k_distinct_annotators_with_loads_within_one(n, m, data):
    k = data.draw(st.integers(1, m), label="k")
    engine, study_id, ids = _fresh(n, m)
    _plan(engine, study_id, ids, k)
    held = holders(engine, study_id)
    assert sorted(held) == sorted(p.id for p in all_pairs(engine, study_id))
    for annotators in held.values():
        assert len(annotators) == k
        assert len(set(annotators)) == k
    load = [loads(engine, study_id)[i] for i in ids]
    assert max(load) - min(load) <= 1
    assert sum(load) == n * k
    # Same seed, pairs and annotators: the same plan, queue places and sides included.
    again, again_id, again_ids = _fresh(n, m)
    _plan(again, again_id, again_ids, k)
    assert _plan_table(again, again_id) == _plan_table(engine, study_id)


@PROPERTY
@given(
    st.integers(1, 15),
    st.integers(0, 15),
    st.integers(2, 6),
    st.integers(0, 3),
    st.data(),
)
def test_extending_keeps_finished_work_and_fills_new_pairs_and_people(n, extra, m, new, data):
    k = data.draw(st.integers(1, m), label="k")
    engine, study_id, ids = _fresh(n, m)
    _plan(engine, study_id, ids, k)
    # Some work is finished, some skipped, before the plan grows.
    before = assignments(engine, study_id)
    finished = data.draw(st.sets(st.sampled_from([a.id for a in before])), label="finished")
    for item in before:
        if item.id in finished:
            rate(engine, item.annotator_id, item.id)
    snapshot = {
        a.id: (a.annotator_id, a.pair_id, a.position, a.chosen_side, a.status)
        for a in assignments(engine, study_id)
    }
    spread_before = _spread(engine, study_id, [*ids])
    if extra:
        with write_session(engine) as session:
            rows = [_extra_pair(study_id, f"q{i:03d}") for i in range(extra)]
            session.execute(insert(Pair), rows)
    ids = ids + make_people(engine, new, prefix="late")
    _plan(engine, study_id, ids, k)
    after = {a.id: a for a in assignments(engine, study_id)}
    for assignment_id, row in snapshot.items():
        a = after[assignment_id]
        assert (a.annotator_id, a.pair_id, a.position, a.chosen_side, a.status) == row
    for annotators in holders(engine, study_id).values():
        assert len(annotators) == k == len(set(annotators))
    assert len(holders(engine, study_id)) == n + extra
    # Greedy least-loaded never widens the spread (newcomers count from zero).
    spread_with_newcomers = max(spread_before, max(loads(engine, study_id).values(), default=0))
    assert _spread(engine, study_id, ids) <= max(1, spread_with_newcomers)


def _spread(engine, study_id, ids) -> int:
    counts = loads(engine, study_id)
    values = [counts[i] for i in ids]
    return max(values) - min(values) if values else 0


def _extra_pair(study_id: int, record_id: str) -> dict:
    from tests.helpers.admin_helpers import pair_row

    return pair_row(study_id, record_id, "Art")


def test_new_pairs_go_to_newcomers_first(engine):
    study_id = make_study(engine, pairs=12)
    ids = make_people(engine, 3)
    _plan(engine, study_id, ids, 2)  # 24 slots: 8 each
    with write_session(engine) as session:
        session.execute(insert(Pair), [_extra_pair(study_id, f"q{i}") for i in range(4)])
    late = make_people(engine, 2, prefix="late")
    result = _plan(engine, study_id, ids + late, 2)
    assert result.created == {"a0": 0, "a1": 0, "a2": 0, "late0": 4, "late1": 4}


def test_rebalance_moves_only_untouched_pending_work(engine):
    study_id = make_study(engine, pairs=12)
    ids = make_people(engine, 2)
    _plan(engine, study_id, ids, 1)  # 6 each
    first = [a for a in assignments(engine, study_id) if a.annotator_id == ids[0]]
    rate(engine, ids[0], first[0].id)
    late = make_people(engine, 2, prefix="late")
    result = _plan(engine, study_id, ids + late, 1, rebalance=True)
    assert result.moved == 6
    assert result.created == {"a0": 0, "a1": 0, "late0": 3, "late1": 3}  # moved-in work
    current = loads(engine, study_id)
    assert sorted(current[i] for i in ids + late) == [3, 3, 3, 3]
    done = [a for a in assignments(engine, study_id) if a.status == "done"]
    assert [(a.id, a.annotator_id) for a in done] == [(first[0].id, ids[0])]
    released = [a for a in assignments(engine, study_id) if a.status == "released"]
    assert len(released) == 6
    assert all(a.annotator_id in ids for a in released)
    for annotators in holders(engine, study_id).values():
        assert len(annotators) == 1


def test_without_rebalance_pending_work_stays_put(engine):
    study_id = make_study(engine, pairs=12)
    ids = make_people(engine, 2)
    _plan(engine, study_id, ids, 1)
    result = _plan(engine, study_id, ids + make_people(engine, 2, prefix="late"), 1)
    assert result.moved == 0
    assert result.total == 0
    assert not [a for a in assignments(engine, study_id) if a.status == "released"]


def test_raising_k_adds_slots_to_people_who_lack_the_pair(engine):
    study_id = make_study(engine, pairs=9)
    ids = make_people(engine, 4)
    _plan(engine, study_id, ids, 1)
    _plan(engine, study_id, ids, 3)
    assert study_of(engine, study_id).overlap == 3
    for annotators in holders(engine, study_id).values():
        assert len(annotators) == 3 == len(set(annotators))
    counts = loads(engine, study_id)
    assert max(counts.values()) - min(counts.values()) <= 1


def test_k_above_the_number_of_annotators_is_refused(engine):
    study_id = make_study(engine, pairs=3)
    ids = make_people(engine, 2)
    with pytest.raises(AssignmentError, match="at least 3 annotators"):
        _plan(engine, study_id, ids, 3)
    assert assignments(engine, study_id) == []


def test_domain_selection_and_seeded_stratified_sample(engine):
    study_id = make_study(engine, pairs=30)  # 10 per domain
    with write_session(engine) as session:
        study = session.get(Study, study_id)
        art = select_pairs(session, study, PairSelection(domains=("Art",)))
        two = select_pairs(session, study, PairSelection(per_domain=2))
        three = select_pairs(session, study, PairSelection(per_domain=3))
        with pytest.raises(AssignmentError, match="Nope"):
            select_pairs(session, study, PairSelection(domains=("Nope",)))
        study.seed = 8
        other = select_pairs(session, study, PairSelection(per_domain=3))
    assert {p.domain for p in art} == {"Art"}
    assert len(art) == 10
    assert Counter(p.domain for p in two) == {"Art": 2, "Life": 2, "Society": 2}
    assert {p.id for p in two} < {p.id for p in three}  # a larger sample extends a smaller one
    assert {p.id for p in other} != {p.id for p in three}  # the draw depends on the seed


def test_gold_pairs_are_mixed_in_at_the_gold_rate_outside_the_plan(engine):
    study_id = make_study(engine, pairs=15, gold_rate=0.25)
    with write_session(engine) as session:
        gold = session.exec(
            Pair.__table__.select().where(Pair.study_id == study_id).limit(3)  # type: ignore[attr-defined]
        ).all()
        for row in gold:
            pair = session.get(Pair, row.id)
            pair.gold_preference = "chosen"
            session.add(pair)
    ids = make_people(engine, 3)
    result = _plan(engine, study_id, ids, 2)  # 12 ordinary pairs x 2 = 8 each, + round(8/3)=3
    assert result.created == {"a0": 8, "a1": 8, "a2": 8}
    assert result.gold == {"a0": 3, "a1": 3, "a2": 3}
    gold_ids = {row.id for row in gold}
    by_pair = holders(engine, study_id)
    assert all(len(by_pair[g]) == 3 for g in gold_ids)  # every annotator, not k
    assert all(len(v) == 2 for p, v in by_pair.items() if p not in gold_ids)
    # Gold is shuffled in with the rest, not appended at the end of the queue.
    positions = sorted(
        (a.position, a.pair_id in gold_ids)
        for a in assignments(engine, study_id)
        if a.annotator_id == ids[0]
    )
    assert [g for _, g in positions] != [False] * 8 + [True] * 3


def test_cli_assign_per_pair_3_over_the_demo_with_5_annotators(tmp_path, demo_files):
    db = str(tmp_path / "cli.db")
    runner = CliRunner()

    def run(*args: str) -> str:
        result = runner.invoke(app, ["--db", db, *args])
        assert result.exit_code == 0, result.output
        return result.output

    run("import", *map(str, demo_files), "--study", "demo")
    run("annotators", "add", "ann1", "ann2", "ann3", "ann4", "ann5")
    assert "loads 16-17" in run("assign", "--study", "demo", "--per-pair", "3")
    rows = list(csv.DictReader(io.StringIO(run("assignments", "--study", "demo", "-f", "csv"))))
    assert list(rows[0]) == ["annotator", "pair_id", "position", "chosen_side", "status"]
    by_pair: dict[str, set[str]] = {}
    for row in rows:
        by_pair.setdefault(row["pair_id"], set()).add(row["annotator"])
    assert len(by_pair) == 27
    assert {len(v) for v in by_pair.values()} == {3}
    per_person = Counter(row["annotator"] for row in rows)
    assert len(rows) == 81
    assert max(per_person.values()) - min(per_person.values()) <= 1
    positions = {}
    for row in rows:
        positions.setdefault(row["annotator"], []).append(int(row["position"]))
    assert all(sorted(p) == list(range(len(p))) for p in positions.values())
    assert {row["chosen_side"] for row in rows} == {"A", "B"}
    # Running it again changes nothing.
    assert "0 new assignments" in run("assign", "--study", "demo", "--per-pair", "3")
    engine = make_engine(db)
    with write_session(engine) as session:
        assert session.exec(Assignment.__table__.select()).all().__len__() == 81  # type: ignore[attr-defined]
    engine.dispose()
