"""The aspect checklist on submit: marks by side stored by response, required for every aspect
and response when the study uses it, refused otherwise, all or nothing with the scores, and a
changed mark keeps its earlier value."""

from __future__ import annotations

import pytest
from sqlmodel import select

from annotate.db import read_session, write_session
from annotate.db.tables import AspectMark, AspectMarkRevision, Assignment, Rating
from annotate.domain.assignment import assign_pairs, study_pairs
from annotate.domain.rating.ratings import RatingError
from annotate.domain.study import accounts
from annotate.domain.study.permissions import SYSTEM
from annotate.domain.study.studies import get_or_create_study, update_study
from annotate.services.admin.data import import_files
from annotate.services.participant.rating import submit_rating

SCORES = {
    "A": {"factuality": 1, "relevance": 2, "helpfulness": 3, "rubric_alignment": 4},
    "B": {"factuality": 5, "relevance": 4, "helpfulness": 2, "rubric_alignment": 1},
}
MARKS = {"A": [2, 1], "B": [0, 2]}  # every record of make_record has two rubric aspects


@pytest.fixture
def pairs(engine, tmp_path, write_records, make_record):
    """(engine, annotator id, {side the chosen response is on: assignment id})."""
    path = write_records(tmp_path / "Books_test.jsonl", [make_record(f"r{i}") for i in range(8)])
    with write_session(engine) as session:
        get_or_create_study(session, "s", seed=7)  # seed 7: both sides occur among 8 pairs
        update_study(session, "s", aspect_checklist=True)
    import_files(engine, SYSTEM, [path], study="s")
    with write_session(engine) as session:
        study = get_or_create_study(session, "s")
        account, _ = accounts.create_account(session, "ana")
        assign_pairs(session, study, account, study_pairs(session, study))
        annotator = account.id
    with read_session(engine) as session:
        mine = session.exec(select(Assignment).where(Assignment.annotator_id == annotator)).all()
    by_side = {side: next(a.id for a in mine if a.chosen_side == side) for side in "AB"}
    return engine, annotator, by_side


def submit(pairs, side="A", marks=MARKS):
    engine, annotator, by_side = pairs
    return submit_rating(
        engine,
        annotator_id=annotator,
        assignment_id=by_side[side],
        scores=SCORES,
        seconds=3.0,
        aspect_marks=marks,
    )


def stored(engine, assignment_id):
    with read_session(engine) as session:
        marks = session.exec(select(AspectMark).where(AspectMark.assignment_id == assignment_id))
        return {(m.response, m.aspect_index): (m.coverage, m.revision) for m in marks}


@pytest.mark.parametrize("chosen_side", ["A", "B"])
def test_marks_by_side_are_stored_by_response(pairs, chosen_side):
    engine, _, by_side = pairs
    assert submit(pairs, chosen_side).status == "saved"
    chosen, rejected = (MARKS["A"], MARKS["B"]) if chosen_side == "A" else (MARKS["B"], MARKS["A"])
    assert stored(engine, by_side[chosen_side]) == {
        ("chosen", 0): (chosen[0], 1),
        ("chosen", 1): (chosen[1], 1),
        ("rejected", 0): (rejected[0], 1),
        ("rejected", 1): (rejected[1], 1),
    }


def test_every_aspect_and_response_is_required_and_nothing_is_saved_without(pairs):
    engine, _, by_side = pairs
    with pytest.raises(RatingError) as refused:
        submit(pairs, marks={"A": [2, None], "B": [0]})
    assert "Aspect 2, Response A" in str(refused.value)
    assert "Aspect 2, Response B" in str(refused.value)
    with pytest.raises(RatingError, match="Aspect 1, Response A"):
        submit(pairs, marks=None)
    with read_session(engine) as session:  # all or nothing: no score either
        assert session.exec(select(Rating)).all() == []
    assert stored(engine, by_side["A"]) == {}


@pytest.mark.parametrize(
    ("marks", "expected"),
    [
        ({"A": [3, 1], "B": [0, 2]}, "Aspect 1, Response A: 3 is not one of 0, 1, 2"),
        ({"A": [True, 1], "B": [0, 2]}, "True is not one of"),
        ({"A": [1, 1, 1], "B": [0, 2]}, "the pair has 2 aspects"),
        ({"A": [1, 1], "B": [0, 2], "C": [1, 1]}, "Response C"),
    ],
)
def test_values_off_the_scale_are_refused(pairs, marks, expected):
    with pytest.raises(RatingError, match=expected):
        submit(pairs, marks=marks)


def test_a_changed_mark_counts_a_revision_and_the_same_marks_change_nothing(pairs):
    engine, _, by_side = pairs
    submit(pairs, "A")
    assert submit(pairs, "A").status == "unchanged"
    assert submit(pairs, "A", marks={"A": [2, 1], "B": [1, 2]}).status == "revised"
    marks = stored(engine, by_side["A"])
    assert marks[("rejected", 0)] == (1, 2)  # chosen on A: B is the rejected response
    assert marks[("chosen", 0)] == (2, 1)
    with read_session(engine) as session:
        (earlier,) = session.exec(select(AspectMarkRevision)).all()
    assert (earlier.revision, earlier.coverage) == (1, 0)  # B's first mark of aspect 1 was 0


def test_a_study_without_the_checklist_refuses_marks_and_needs_none(pairs):
    engine, _, by_side = pairs
    with write_session(engine) as session:
        update_study(session, "s", aspect_checklist=False)
    with pytest.raises(RatingError, match="does not use the aspect checklist"):
        submit(pairs)
    assert submit(pairs, marks=None).status == "saved"
    assert stored(engine, by_side["A"]) == {}
