"""Reassignment: an annotator's unfinished work goes to others, k distinct per pair."""

from __future__ import annotations

import pytest

from annotate.db import write_session
from annotate.db.tables import Annotator, Study
from annotate.domain.assignment import PairSelection, plan_fixed, reassign, select_pairs
from annotate.domain.rating.ratings import RatingError
from annotate.services.participant.rating import skip_pair
from tests.helpers.admin_helpers import assignments, holders, loads, make_people, make_study, rate


def _setup(engine, pairs=12, people=4, k=2, **settings):
    study_id = make_study(engine, pairs=pairs, **settings)
    ids = make_people(engine, people)
    with write_session(engine) as session:
        study = session.get(Study, study_id)
        chosen = [session.get(Annotator, i) for i in ids]
        plan_fixed(
            session, study, chosen, select_pairs(session, study, PairSelection()), per_pair=k
        )
    return study_id, ids


def _reassign(engine, study_id, giver, receivers=None):
    with write_session(engine) as session:
        study = session.get(Study, study_id)
        named = None
        if receivers is not None:
            named = [session.get(Annotator, i) for i in receivers]
        return reassign(session, study, session.get(Annotator, giver), named)


def test_unfinished_work_moves_to_the_others_and_finished_work_stays(engine):
    study_id, ids = _setup(engine)
    mine = sorted(
        (a for a in assignments(engine, study_id) if a.annotator_id == ids[0]),
        key=lambda a: a.position,
    )
    rate(engine, ids[0], mine[0].id)
    skip_pair(engine, annotator_id=ids[0], assignment_id=mine[1].id, reason="unclear")
    result = _reassign(engine, study_id, ids[0])
    assert result.released == len(mine) - 1  # the skipped one moves too
    assert sum(result.handed.values()) == len(mine) - 1
    assert not result.unplaced
    after = {a.id: a for a in assignments(engine, study_id)}
    assert after[mine[0].id].status == "done"
    # The skip stays on record (issue 34.2): its slot went back, the row keeps "skipped".
    assert (after[mine[1].id].status, after[mine[1].id].release_reason) == ("skipped", "skipped")
    assert all(after[a.id].status == "released" for a in mine[2:])
    for annotators in holders(engine, study_id, ("pending", "done")).values():
        assert len(annotators) == 2 == len(set(annotators))
    counts = loads(engine, study_id)
    others = [counts[i] for i in ids[1:]]
    assert max(others) - min(others) <= 1


def test_named_receivers_only_and_unplaceable_pairs_are_reported(engine):
    study_id, ids = _setup(engine, pairs=6, people=3, k=2)
    result = _reassign(engine, study_id, ids[0], receivers=[ids[1]])
    mine = [a for a in assignments(engine, study_id) if a.annotator_id == ids[0]]
    assert result.released == len(mine)
    # a1 takes the pairs it does not hold yet; the ones it already has cannot go to it.
    assert result.handed == {"a1": len(mine) - len(result.unplaced)}
    assert result.unplaced
    for annotators in holders(engine, study_id).values():
        assert len(set(annotators)) == len(annotators) <= 2


def test_in_an_open_pool_the_work_goes_back_to_the_pool(engine):
    study_id, ids = _setup(engine, pool_open=True)
    result = _reassign(engine, study_id, ids[0])
    assert result.handed == {}
    assert result.returned_to_pool == result.released > 0
    assert all(
        a.status == "released" for a in assignments(engine, study_id) if a.annotator_id == ids[0]
    )


def test_a_submit_of_reassigned_work_is_refused(engine):
    study_id, ids = _setup(engine, pairs=4, people=3, k=1)
    mine = [a for a in assignments(engine, study_id) if a.annotator_id == ids[0]]
    _reassign(engine, study_id, ids[0])
    with pytest.raises(RatingError, match="given to someone else"):
        rate(engine, ids[0], mine[0].id)
    for annotators in holders(engine, study_id, statuses=("done", "pending")).values():
        assert len(annotators) == 1
