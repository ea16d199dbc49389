"""Quality signals per rated pair (issue 34, point 6): the focus losses and pastes the page
counted while a pair was shown are stored with that pair's submit only, added up over its saved
submits, and exported beside the time on the pair (`seconds`)."""

from __future__ import annotations

import pytest
from sqlmodel import col, select

from annotate.db import read_session
from annotate.db.tables import Annotator, Assignment, Pair
from annotate.domain.exports.export import ratings_dataframe
from annotate.domain.rating.signals import MAX_COUNT, Signals, read_signals
from annotate.services.admin.demo import DEMO_ANNOTATOR, DEMO_STUDY, set_up_demo
from annotate.services.participant.rating import skip_pair, submit_rating
from annotate.vocabulary import DIMENSIONS, SIDES


def _scores(value: int) -> dict[str, dict[str, int]]:
    return {side: dict.fromkeys(DIMENSIONS, value) for side in SIDES}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("12:3:1", Signals(3, 1)),
        (" 12:0:0 ", Signals(0, 0)),
        ("12:99999999:2", Signals(MAX_COUNT, 2)),
        ("13:3:1", None),  # another pair's counts: never this pair's
        ("12:-1:0", None),
        ("12:3", None),
        ("12:3:1:chosen", None),
        ("", None),
        (None, None),
    ],
)
def test_the_hidden_field_is_read_only_for_its_own_pair(text, expected):
    assert read_signals(text, 12) == expected


def test_signals_are_stored_with_their_pair_added_over_submits_and_exported(engine):
    set_up_demo(engine)
    with read_session(engine) as session:
        me = session.exec(select(Annotator).where(Annotator.name == DEMO_ANNOTATOR)).one().id
        (first, one), (second, two), (third, three) = session.exec(
            select(Assignment.id, Pair.record_id)
            .join(Pair, col(Pair.id) == col(Assignment.pair_id))
            .where(Assignment.annotator_id == me, col(Pair.gold_preference).is_(None))
            .order_by(Assignment.position)
            .limit(3)
        ).all()

    def submit(assignment_id: int, value: int, signals: Signals | None) -> None:
        submit_rating(
            engine, annotator_id=me, assignment_id=assignment_id, scores=_scores(value),
            seconds=12.5, signals=signals,
        )  # fmt: skip

    submit(first, 3, Signals(focus_losses=2, pastes=1))
    submit(second, 4, None)  # a page without the script: nothing counted
    submit(first, 2, Signals(focus_losses=1, pastes=0))  # revised on a later showing
    skip_pair(engine, annotator_id=me, assignment_id=third, reason="unclear")
    with read_session(engine) as session:
        stored = {
            a.id: (a.focus_losses, a.pastes)
            for a in session.exec(select(Assignment).where(Assignment.annotator_id == me))
        }
    assert stored[first] == (3, 1)
    assert stored[second] == (None, None)
    assert stored[third] == (None, None)
    frame = ratings_dataframe(engine, DEMO_STUDY)
    assert str(frame["focus_losses"].dtype) == "Int64"
    assert str(frame["pastes"].dtype) == "Int64"
    by_pair = frame.groupby("pair_id")
    rows = by_pair.get_group(one)
    assert len(rows) == 8
    assert set(rows["focus_losses"]) == {3}
    assert set(rows["pastes"]) == {1}
    assert set(rows["seconds"]) == {12.5}  # the time on the pair: one source, the rating's
    assert by_pair.get_group(two)["focus_losses"].isna().all()
    assert by_pair.get_group(three)["status"].tolist() == ["skipped"]
    assert by_pair.get_group(three)["pastes"].isna().all()
