"""Adjudication (issue 15.3) and the export's provenance (issue 15.6), through the services the
pages and the CLI call, on a real database (SQLite, or PostgreSQL with PRB_TEST_DATABASE_URL).

The study is `adjudication_helpers.make_disputed`'s (its docstring gives the scores).
"""

from __future__ import annotations

import json
from dataclasses import asdict

import pandas as pd
import pytest
from sqlmodel import select

from annotate.db import read_session
from annotate.db.tables import AuditEntry, Pair
from annotate.domain.assignment import as_utc, blinding, slots_taken
from annotate.domain.exports.export import ratings_dataframe
from annotate.domain.operations.adjudication import AdjudicationError, beyond, spread
from annotate.domain.rating.queue import pair_view, queue
from annotate.domain.study.permissions import SYSTEM, PermissionDenied
from annotate.errors import Conflict
from annotate.services.admin import adjudication, flags, plans
from annotate.services.results.reporting import study_ratings, study_report
from annotate.vocabulary import EXPORT_COLUMNS, PROVENANCE_EXPORT_COLUMNS
from tests.helpers.adjudication_helpers import assignment_of, make_disputed, side_scores
from tests.helpers.admin_helpers import rate


@pytest.fixture
def disputed(engine):
    return make_disputed(engine)


def test_spread_and_threshold_by_hand():
    assert spread([1, -1, 0]) == 2
    assert spread([2, 1, 1]) == 1
    assert spread([3]) is None  # one judgement cannot disagree
    assert beyond([1, -1, 0], 2) is True
    assert beyond([2, 1, 1], 2) is False
    assert beyond([2, 1, 1], 1) is True
    assert beyond([1, -1], None) is False  # no threshold: flags only


def test_the_queue_holds_pairs_beyond_the_threshold_and_flagged_ones(engine, disputed):
    threshold, queue_now = adjudication.queue(engine, disputed, "s")
    assert threshold is None
    assert [c.record_id for c in queue_now] == ["p003"]
    (flagged,) = queue_now
    assert flagged.differences == (1, 1)
    assert flagged.flag_notes == ("a2: two readings",)
    assert "flag sent to adjudication" in flagged.reasons

    adjudication.set_threshold(engine, disputed, study="s", threshold=2)
    threshold, queue_now = adjudication.queue(engine, disputed, "s")
    assert threshold == 2
    assert [(c.record_id, c.spread, c.beyond_threshold) for c in queue_now] == [
        ("p001", 2, True),
        ("p003", 0, False),
    ]
    assert queue_now[0].differences == (-1, 0, 1)
    adjudication.set_threshold(engine, SYSTEM, study="s", threshold=1)
    assert [c.record_id for c in adjudication.queue(engine, SYSTEM, "s")[1]] == [
        "p001",
        "p002",
        "p003",
    ]
    with read_session(engine) as session:
        entries = session.exec(
            select(AuditEntry).where(AuditEntry.action == "study.adjudication_threshold")
        ).all()
    assert [(e.who, e.before, e.after) for e in entries] == [
        ("boss0", {"adjudication_threshold": None}, {"adjudication_threshold": 2}),
        ("system", {"adjudication_threshold": 2}, {"adjudication_threshold": 1}),
    ]
    with pytest.raises(Exception, match="adjudication threshold must be 0 or more"):
        adjudication.set_threshold(engine, SYSTEM, study="s", threshold=-1)


def test_only_admins_see_or_change_the_queue(engine, disputed):
    annotator = assignment_of(engine, "a0", "p000").annotator_id
    with pytest.raises(PermissionDenied):
        adjudication.queue(engine, annotator, "s")
    with pytest.raises(PermissionDenied):
        adjudication.send(engine, annotator, study="s", record_id="p003", adjudicator="a3")
    with pytest.raises(PermissionDenied):
        adjudication.set_threshold(engine, annotator, study="s", threshold=1)


def test_a_pair_goes_blind_to_someone_who_never_had_it(engine, disputed):
    adjudication.set_threshold(engine, SYSTEM, study="s", threshold=2)
    assert adjudication.eligible(engine, disputed, "s", "p001") == ["a3"]  # a4 is inactive
    for who, refusal in (("a0", "has the annotator role"), ("a4", "deactivated")):
        with pytest.raises((Conflict, AdjudicationError), match=refusal):
            adjudication.send(engine, disputed, study="s", record_id="p001", adjudicator=who)
    with pytest.raises(AdjudicationError, match="not in the adjudication queue"):
        adjudication.send(engine, disputed, study="s", record_id="p000", adjudicator="a3")

    adjudication.send(engine, disputed, study="s", record_id="p001", adjudicator="a3")
    made = assignment_of(engine, "a3", "p001")
    assert (made.purpose, made.status, made.position) == ("adjudication", "pending", 0)
    assert made.chosen_side == blinding.chosen_side(7, "a3", "p001")  # make_study's seed 7
    with pytest.raises(Conflict, match="already with adjudicator a3"):
        adjudication.send(engine, disputed, study="s", record_id="p001", adjudicator="a3")
    (queued,) = adjudication.queue(engine, SYSTEM, "s")[1][:1]
    assert [(a.name, a.status) for a in queued.adjudicators] == [("a3", "pending")]

    # the adjudicator's queue and pair view are those of any pair: nothing says disputed
    with read_session(engine) as session:
        entries = queue(session, made.annotator_id)
        view = pair_view(session, made.annotator_id, made.id)
    assert [e.assignment_id for e in entries] == [made.id]
    shown = json.dumps(asdict(view), default=str).lower()
    for word in ("adjudicat", "disput", "spread", "two readings", '"chosen"', '"rejected"'):
        assert word not in shown
    a_text = "chosen text p001" if made.chosen_side == "A" else "rejected text p001"
    assert a_text in json.dumps(asdict(view), default=str)  # texts only by side

    # on top of the k: the pair still holds 3 slots, and the adjudicator's submit is taken
    with read_session(engine) as session:
        pair_id = session.exec(select(Pair.id).where(Pair.record_id == "p001")).one()
        assert slots_taken(session, made.study_id, as_utc())[pair_id] == 3
    rate(engine, made.annotator_id, made.id, given=side_scores(made.chosen_side, 2))
    assert assignment_of(engine, "a3", "p001").status == "done"
    with read_session(engine) as session:
        entry = session.exec(select(AuditEntry).where(AuditEntry.action == "pair.adjudicate"))
        (sent,) = entry.all()
    assert sent.who == "boss0"
    assert sent.after == {"pair": "p001", "adjudicator": "a3", "assignment": made.id}


def test_the_report_shows_before_and_after_and_the_changed_pair(engine, disputed):
    adjudication.set_threshold(engine, SYSTEM, study="s", threshold=2)
    adjudication.send(engine, SYSTEM, study="s", record_id="p001", adjudicator="a3")
    made = assignment_of(engine, "a3", "p001")
    rate(engine, made.annotator_id, made.id, given=side_scores(made.chosen_side, 2))
    data = study_ratings(engine, "s")
    report = study_report(data, n_boot=0)
    # before: the adjudication is not one of the ordinary ratings (3 annotators, 4 pairs)
    assert report["n_annotators"] == 3
    assert report["n_pair_ratings"] == 11  # 12 assignments, one skipped
    summary = report["adjudication"]
    # p001's mean difference 0 (tie) becomes the adjudicator's +2 (chosen): by hand, before
    # the pair means are +1, 0, +4/3, +1 (3 of 4 above 0), after +1, +2, +4/3, +1 (4 of 4)
    assert summary["before"]["strict_accuracy"] == 0.75
    assert summary["after"]["strict_accuracy"] == 1.0
    assert summary["before"]["mean_rubric_diff"] == pytest.approx((1 + 0 + 4 / 3 + 1) / 4)
    assert summary["after"]["mean_rubric_diff"] == pytest.approx((1 + 2 + 4 / 3 + 1) / 4)
    assert [(c["pair_id"], c["before"], c["after"]) for c in summary["changed"]] == [
        ("p001", "tie", "chosen")
    ]


def test_the_dataset_card_counts_the_annotators_without_the_adjudicator(engine, disputed, tmp_path):
    from annotate.services.admin.publish import publish_study

    adjudication.send(engine, SYSTEM, study="s", record_id="p003", adjudicator="a3")
    made = assignment_of(engine, "a3", "p003")
    rate(engine, made.annotator_id, made.id, given=side_scores(made.chosen_side, 2))
    publish_study(engine, SYSTEM, "s", tmp_path / "card")
    card = (tmp_path / "card" / "README.md").read_text(encoding="utf-8")
    assert "3 annotator account(s) rated: 3 people" in card  # a0-a2; a3 only adjudicated


def test_the_export_carries_the_provenance_of_every_row(engine, disputed):
    adjudication.set_threshold(engine, SYSTEM, study="s", threshold=2)
    adjudication.send(engine, SYSTEM, study="s", record_id="p001", adjudicator="a3")
    made = assignment_of(engine, "a3", "p001")
    rate(engine, made.annotator_id, made.id, given=side_scores(made.chosen_side, 2))
    first = assignment_of(engine, "a0", "p000")
    revised = side_scores(first.chosen_side, 2)
    rate(engine, first.annotator_id, first.id, given=revised, comment="a0 note")  # a revision
    flags.exclude_pair(engine, SYSTEM, study="s", record_id="p002", reason="ambiguous")

    frame = ratings_dataframe(engine, "s")
    assert tuple(frame.columns) == EXPORT_COLUMNS + PROVENANCE_EXPORT_COLUMNS
    assert len(frame) == 11 * 8 + 8 + 1  # ordinary scores, the adjudication, one skip row
    skip = frame[frame["status"] == "skipped"]
    assert len(skip) == 1
    row = skip.iloc[0]
    assert (row["pair_id"], row["annotator"], row["skip_reason"]) == ("p003", "a2", "unclear")
    assert (row["response"], row["dimension"], row["created_at"], row["shown_at"]) == ("",) * 4
    assert pd.isna(row["score"])
    assert pd.isna(row["revision"])
    assert (row["flag_resolution"], row["flag_note"]) == ("adjudication", "two readings")

    adjudicated = frame[frame["purpose"] == "adjudication"]
    assert set(adjudicated["annotator"]) == {"a3"}
    assert len(adjudicated) == 8
    assert set(frame.loc[frame["annotator"] != "a3", "purpose"]) == {"rating"}

    mine = frame[(frame["annotator"] == "a0") & (frame["pair_id"] == "p000")]
    rubric = mine[mine["dimension"] == "rubric_alignment"].set_index("response")
    assert rubric.loc["chosen", "revision"] == 2
    (earlier,) = json.loads(rubric.loc["chosen", "revision_history"])
    assert (earlier["revision"], earlier["score"]) == (1, 4)  # 3 + 1 before the revision
    assert rubric.loc["rejected", "revision"] == 1
    assert rubric.loc["rejected", "revision_history"] == "[]"
    assert set(mine["comment"]) == {"a0 note"}
    assert set(mine["queue_position"]) == {first.position}
    shown = pd.to_datetime(mine["shown_at"], utc=True)
    saved = pd.to_datetime(mine["created_at"], utc=True)
    assert (shown <= saved + pd.Timedelta(seconds=20)).all()
    assert set(frame.loc[frame["pair_id"] == "p002", "pair_excluded"]) == {True}
    assert set(frame.loc[frame["pair_id"] == "p002", "exclusion_reason"]) == {"ambiguous"}
    assert not frame.loc[frame["pair_id"] != "p002", "pair_excluded"].any()
    assert frame["flagged"].dtype == bool
    assert frame["queue_position"].dtype == "int64"


def test_reassigning_an_adjudicator_s_work_releases_it_without_handing_it_on(engine, disputed):
    adjudication.set_threshold(engine, SYSTEM, study="s", threshold=2)
    adjudication.send(engine, SYSTEM, study="s", record_id="p001", adjudicator="a3")
    result = plans.reassign_work(engine, SYSTEM, study="s", giver="a3", receivers=["a4", "a0"])
    assert (result.released, result.handed, result.unplaced) == (1, {}, [])
    assert assignment_of(engine, "a3", "p001").status == "released"
    (p001, _p003) = adjudication.queue(engine, SYSTEM, "s")[1]
    assert [(a.name, a.status) for a in p001.adjudicators] == [("a3", "released")]
