"""Spans on submit (issue 36.3): sent by side, stored by response in code points of the stored
text, checked as untrusted input (offsets within the text, the study's labels, a bounded list,
none in a study without labels), all or nothing with the scores, and a revision keeps what it
removed."""

from __future__ import annotations

import pytest
from sqlmodel import col, select

from annotate.db import read_session, write_session
from annotate.db.tables import Assignment, Pair, Rating, Span
from annotate.domain.assignment import assign_pairs, study_pairs
from annotate.domain.rating.ratings import RatingError
from annotate.domain.rating.spans import MAX_SPANS
from annotate.domain.study import accounts
from annotate.domain.study.permissions import SYSTEM
from annotate.domain.study.studies import get_or_create_study
from annotate.questionnaire import parse_questionnaire
from annotate.services.admin.data import import_files
from annotate.services.participant.rating import submit_rating

SCORES = {
    "A": {"factuality": 1, "relevance": 2, "helpfulness": 3, "rubric_alignment": 4},
    "B": {"factuality": 5, "relevance": 4, "helpfulness": 2, "rubric_alignment": 1},
}
LABELS = [{"key": "rubric", "label": "Breaks the rubric"}, {"key": "error", "label": "Error"}]
CHOSEN = "Try 🎉 *Project Hail Mary*: standalone, great on audio."  # an emoji: 1 code point
REJECTED = "Start *The Expanse*, a nine-book series with a TV adaptation."


def _pairs(engine, tmp_path, write_records, make_record, labels):
    records = [make_record(f"r{i}", chosen=CHOSEN, rejected=REJECTED) for i in range(8)]
    path = write_records(tmp_path / "Books_test.jsonl", records)
    with write_session(engine) as session:
        study = get_or_create_study(session, "s", seed=7)  # both sides occur among 8 pairs
        study.questionnaire = parse_questionnaire(
            {"template": "prb", "span_labels": labels}
        ).stored()
        session.add(study)
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


@pytest.fixture
def pairs(engine, tmp_path, write_records, make_record):
    """(engine, annotator id, {side the chosen response is on: assignment id})."""
    return _pairs(engine, tmp_path, write_records, make_record, LABELS)


def submit(pairs, spans, side="A"):
    engine, annotator, by_side = pairs
    return submit_rating(
        engine,
        annotator_id=annotator,
        assignment_id=by_side[side],
        scores=SCORES,
        seconds=3.0,
        spans=spans,
    )


def stored(engine, assignment_id, *, removed=False):
    """(response, slice of its stored text, label) of the current (or removed) spans."""
    with read_session(engine) as session:
        assignment = session.get(Assignment, assignment_id)
        pair = session.get(Pair, assignment.pair_id)
        removed_at = col(Span.removed_at)
        rows = session.exec(
            select(Span).where(
                Span.assignment_id == assignment_id,
                removed_at.is_not(None) if removed else removed_at.is_(None),
            )
        ).all()
        texts = {"chosen": pair.chosen, "rejected": pair.rejected}
        return sorted((r.response, texts[r.response][r.start : r.end], r.label) for r in rows)


@pytest.mark.parametrize("chosen_side", ["A", "B"])
def test_spans_by_side_are_stored_by_response_in_code_points(pairs, chosen_side):
    engine, _, by_side = pairs
    # "Project Hail Mary" starts after "Try 🎉 *": 7 code points (8 UTF-16 units)
    on_chosen = (7, 24, "rubric")
    on_rejected = (7, 18, "error")  # "The Expanse"
    spans = (
        {"A": [on_chosen], "B": [on_rejected]}
        if chosen_side == "A"
        else {"A": [on_rejected], "B": [on_chosen]}
    )
    assert submit(pairs, spans, chosen_side).status == "saved"
    assert stored(engine, by_side[chosen_side]) == [
        ("chosen", "Project Hail Mary", "rubric"),
        ("rejected", "The Expanse", "error"),
    ]


@pytest.mark.parametrize(
    ("spans", "words"),
    [
        ({"A": [(0, 10_000, "rubric")]}, "not within the text"),
        ({"A": [(-1, 3, "rubric")]}, "not within the text"),
        ({"A": [(5, 5, "rubric")]}, "not within the text"),
        ({"B": [(0, len(REJECTED) + 1, "error")]}, "not within the text"),
        ({"A": [(0, 3, "made_up")]}, "'made_up' is not a span label"),
        ({"A": [(0, 3, "rubric")] * (MAX_SPANS + 1)}, f"at most {MAX_SPANS} spans"),
        ({"C": [(0, 3, "rubric")]}, "'C' is not a response"),
    ],
)
def test_untrusted_spans_are_refused_and_nothing_is_saved(pairs, spans, words):
    engine = pairs[0]
    with pytest.raises(RatingError, match=words):
        submit(pairs, spans)
    with read_session(engine) as session:  # all or nothing: no score either
        assert session.exec(select(Rating)).all() == []
        assert session.exec(select(Span)).all() == []


def test_the_whole_text_is_a_span_up_to_its_last_code_point(pairs):
    engine, _, by_side = pairs
    size = len(CHOSEN)  # code points: the emoji counts once
    assert size == len(CHOSEN.encode("utf-16-le")) // 2 - 1
    submit(pairs, {"A": [(0, size, "error")]})
    assert stored(engine, by_side["A"]) == [("chosen", CHOSEN, "error")]


def test_a_revision_keeps_the_removed_span_and_the_same_spans_change_nothing(pairs):
    engine, _, by_side = pairs
    first = {"A": [(7, 24, "rubric"), (0, 3, "error")], "B": []}
    assert submit(pairs, first).status == "saved"
    assert submit(pairs, first).status == "unchanged"
    assert submit(pairs, {"A": [(7, 24, "rubric")], "B": [(0, 5, "rubric")]}).status == "revised"
    assert stored(engine, by_side["A"]) == [
        ("chosen", "Project Hail Mary", "rubric"),
        ("rejected", "Start", "rubric"),
    ]
    assert stored(engine, by_side["A"], removed=True) == [("chosen", "Try", "error")]
    assert submit(pairs, None).status == "unchanged"  # not sent (the Streamlit view): kept
    assert len(stored(engine, by_side["A"])) == 2


def test_a_study_without_span_labels_takes_none(engine, tmp_path, write_records, make_record):
    pairs = _pairs(engine, tmp_path, write_records, make_record, [])
    with pytest.raises(RatingError, match="this study has no span labels"):
        submit(pairs, {"A": [(0, 3, "rubric")]})
    assert submit(pairs, {"A": [], "B": []}).status == "saved"


def test_erasing_a_person_erases_their_spans(pairs):
    """An erasure deletes the person's spans with their assignments (a foreign key would
    refuse the deletion on PostgreSQL otherwise; SQLite would keep the rows unseen)."""
    from annotate.services.admin.erasure import erase_person

    engine = pairs[0]
    submit(pairs, {"A": [(7, 24, "rubric")], "B": []})
    submit(pairs, {"A": [(0, 3, "error")], "B": []})  # one current, one removed
    erase_person(engine, SYSTEM, "ana", "s")
    with read_session(engine) as session:
        assert session.exec(select(Span)).all() == []
