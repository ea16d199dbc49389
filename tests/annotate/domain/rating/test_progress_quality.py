"""The dashboard's numbers: progress per annotator and domain, flags, gold and straight-lining."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from annotate.cli import app
from annotate.db import read_session, write_session
from annotate.db.tables import Pair, Study
from annotate.domain.assignment import PairSelection
from annotate.domain.assignment.blinding import side_of
from annotate.domain.rating.quality import GoldError, mark_gold
from annotate.domain.study.permissions import SYSTEM
from annotate.services.admin import adjudication, flags, plans, progress
from annotate.services.participant.rating import skip_pair
from annotate.services.participant.work import pull_next
from tests.helpers.admin_helpers import assignments, make_people, make_study, rate, scores


@pytest.fixture
def rated(engine):
    """3 annotators, 5 ordinary pairs x k=2, and the gold pair p000 mixed into every queue."""
    study_id = make_study(engine, "s", pairs=6, overlap=2, gold_rate=0.2)
    ids = make_people(engine, 3)
    (boss,) = make_people(engine, 1, prefix="boss", role="admin")
    with write_session(engine) as session:
        study = session.get(Study, study_id)
        mark_gold(session, study, ["p000"], "chosen")
    plans.make_plan(
        engine, boss, study="s", annotators=["a0", "a1", "a2"], selection=PairSelection()
    )
    items = {i: [] for i in ids}
    for item in sorted(assignments(engine, study_id), key=lambda a: a.position):
        items[item.annotator_id].append(item)
    return engine, study_id, ids, boss, items


def test_progress_per_annotator_and_domain(rated):
    engine, _study_id, ids, boss, items = rated
    a0, a1 = items[ids[0]], items[ids[1]]
    rate(engine, ids[0], a0[0].id, seconds=10, flag_reason="broken markdown")
    rate(engine, ids[0], a0[1].id, seconds=30)
    rate(engine, ids[0], a0[2].id, seconds=20)
    skip_pair(engine, annotator_id=ids[1], assignment_id=a1[0].id, reason="unclear")
    board = progress.dashboard(engine, boss, "s")
    rows = {r.name: r for r in board.annotators}
    assert (rows["a0"].assigned, rows["a0"].done, rows["a0"].skipped) == (len(a0), 3, 0)
    assert (rows["a0"].pending, rows["a0"].flagged, rows["a0"].median_seconds) == (
        len(a0) - 3,
        1,
        20,
    )
    assert (rows["a1"].done, rows["a1"].skipped, rows["a1"].median_seconds) == (0, 1, None)
    assert sum(r.assigned for r in board.annotators) == 5 * 2 + 3  # 5 pairs x k + 1 gold each
    with read_session(engine) as session:
        domain_of = {p.id: p.domain for p in session.exec(Pair.__table__.select()).all()}  # type: ignore[attr-defined]
    domains = {d.name: d for d in board.domains}
    assert set(domains) == {"Art", "Life", "Society"}
    assert domains["Art"].pairs == 1
    assert domains["Life"].pairs == 2
    done_art = sum(1 for a in a0[:3] if domain_of[a.pair_id] == "Art")
    assert domains["Art"].done == done_art
    assert sum(d.done for d in board.domains) == 3
    assert [(f.annotator, f.reason) for f in board.flagged] == [("a0", "broken markdown")]
    assert board.gold[0].record_id == "p000"
    assert board.gold[0].expect == "chosen"


def test_an_open_pool_counts_slots_ratings_adjudications_and_what_is_left(engine):
    """Issue 22.6: overlap 2 over 5 pairs is 10 slots. a0 and a1 rate X, a0 rates and flags Y,
    a2 holds a reservation, and an adjudicator's rating of Y is not Y's second rating."""
    study_id = make_study(engine, "s", pairs=5, overlap=2, pool_open=True)
    a0, a1, a2 = make_people(engine, 3)
    (judge,) = make_people(engine, 1, prefix="judge", role="adjudicator")
    x = pull_next(engine, a0, study_id)
    rate(engine, a0, x)
    rate(engine, a1, pull_next(engine, a1, study_id))  # depth first: X again
    y = pull_next(engine, a0, study_id)
    rate(engine, a0, y, flag_reason="both answers cut off")
    reserved = pull_next(engine, a2, study_id)
    assert reserved is not None
    (item,) = flags.flag_queue(engine, SYSTEM, "s")
    flags.resolve_flag(
        engine, SYSTEM, study="s", assignment_id=item.assignment_id, action="adjudication", note=""
    )
    adjudication.send(engine, SYSTEM, study="s", record_id=item.record_id, adjudicator="judge0")
    (sent,) = [a for a in assignments(engine, study_id) if a.annotator_id == judge]
    rate(engine, judge, sent.id)

    board = progress.dashboard(engine, SYSTEM, "s")
    totals = board.totals
    assert (totals.pool, totals.pairs, totals.slots) == (True, 5, 10)
    assert totals.ratings == 3  # not 4: the adjudication is not a rating of the k
    assert totals.complete == 1  # X; Y has one rating and an adjudication
    assert totals.in_progress == 1  # a2's reservation
    assert totals.to_rate == 10 - 3  # reserved or never pulled, all still to rate
    assert (totals.adjudications, totals.adjudicated) == (1, 1)
    rows = {r.name: r for r in board.annotators}
    assert (rows["judge0"].assigned, rows["judge0"].done, rows["judge0"].adjudicated) == (0, 0, 1)
    assert sum(r.done for r in board.annotators) == 3
    assert sum(d.complete for d in board.domains) == 1
    assert sum(d.adjudicated for d in board.domains) == 1


def test_a_fixed_plan_s_still_to_rate_is_what_is_planned_and_not_done(rated):
    engine, _study_id, ids, boss, items = rated
    rate(engine, ids[0], items[ids[0]][0].id)
    skip_pair(engine, annotator_id=ids[1], assignment_id=items[ids[1]][0].id, reason="unclear")
    totals = progress.dashboard(engine, boss, "s").totals
    planned = sum(1 for i in assignments(engine, _study_id) if not _gold(engine, i.pair_id))
    assert totals.pool is False
    assert totals.to_rate == planned - totals.ratings
    assert totals.in_progress == totals.to_rate - 1  # the skip gave its slot back (issue 34.2)


def _gold(engine, pair_id: int) -> bool:
    with read_session(engine) as session:
        return session.get(Pair, pair_id).gold_preference is not None


def test_gold_accuracy_and_straight_lining(rated):
    engine, _study_id, ids, boss, items = rated
    with read_session(engine) as session:
        gold_id = (
            session.exec(
                Pair.__table__.select().where(Pair.record_id == "p000")  # type: ignore[attr-defined]
            )
            .one()
            .id
        )
    # Every annotator rates everything: a0 straight-lines (all 3s), a1 prefers chosen on
    # the rubric (correct on gold), a2 prefers rejected (wrong).
    for person, wanted in zip(ids, ("flat", "chosen", "rejected"), strict=True):
        for item in items[person]:
            given = scores(3)
            if wanted != "flat":
                better = side_of(wanted, item.chosen_side)
                given[better]["rubric_alignment"] = 5
            rate(engine, person, item.id, given=given)
    quality = {q.annotator: q for q in progress.dashboard(engine, boss, "s").quality}
    holds_gold = {p: any(i.pair_id == gold_id for i in items[p]) for p in ids}
    assert all(holds_gold.values())  # gold goes to everyone, outside k
    assert quality["a0"].straight_lined == quality["a0"].rated == len(items[ids[0]])
    assert quality["a0"].straight_lining == 1.0
    assert quality["a0"].gold_accuracy == 0.0
    assert quality["a1"].straight_lined == 0
    assert quality["a1"].gold_accuracy == 1.0
    assert quality["a2"].gold_rated == 1
    assert quality["a2"].gold_correct == 0


def test_marking_unknown_pairs_gold_is_refused(engine):
    make_study(engine, "s", pairs=2)
    from annotate.domain.study.studies import get_study

    with write_session(engine) as session:
        study = get_study(session, "s")
    with pytest.raises(GoldError, match="nope"), write_session(engine) as session:
        mark_gold(session, study, ["p000", "nope"], "chosen")
    with read_session(engine) as session:
        assert all(p.gold_preference is None for p in session.exec(Pair.__table__.select()))  # type: ignore[attr-defined]


def test_cli_gold_accounts_and_progress(tmp_path, demo_files):
    db = str(tmp_path / "cli.db")
    runner = CliRunner()

    def run(*args: str, code: int = 0) -> str:
        result = runner.invoke(app, ["--db", db, *args])
        assert result.exit_code == code, result.output
        return result.output

    run("import", *map(str, demo_files), "--study", "demo")
    run("gold", "mark", "ae_1_0", "lp_2_0", "--expect", "chosen", "--study", "demo")
    run("gold", "mark", "zz", "--expect", "chosen", "--study", "demo", code=1)
    assert _lines(run("gold", "list", "--study", "demo"))[0] == [
        "ae_1_0",
        "Art_and_Entertainment",
        "chosen",
    ]
    run("annotators", "add", "ann1", "ann2")
    run("studies", "edit", "demo", "--gold-rate", "0.1")
    run("assign", "ann1", "ann2", "--study", "demo", "-k", "1", "--yes")
    out = run("progress", "--study", "demo")
    assert "ann1" in out
    assert "Society_and_Culture" in out
    run("annotators", "deactivate", "ann2")
    assert ["ann2", "annotator", "deactivated"] in _lines(run("annotators", "list"))
    run("annotators", "activate", "ann2")
    assert "token=" in run("annotators", "rotate", "ann2")
    run("annotators", "role", "ann2", "researcher")
    assert ["ann2", "researcher", "active"] in _lines(run("annotators", "list"))
    run("annotators", "role", "ann2", "boss", code=1)
    out = run("reassign", "ann1", "--study", "demo")
    assert "Released" in out


def _lines(output: str) -> list[list[str]]:
    return [line.split() for line in output.splitlines() if line.strip()]
