"""Submitting scores: sides mapped to responses server-side, revisions kept, never doubled."""

from __future__ import annotations

import threading
from dataclasses import dataclass

import pytest
from sqlmodel import select

from annotate.db import read_session, write_session
from annotate.db.tables import Assignment, Rating, RatingRevision, Study
from annotate.domain.assignment import assign_pairs, study_pairs
from annotate.domain.rating.ratings import RatingError, missing_scores
from annotate.domain.study import accounts
from annotate.domain.study.permissions import SYSTEM
from annotate.domain.study.studies import get_or_create_study
from annotate.questionnaire import DEFAULT_QUESTIONNAIRE, parse_questionnaire, prb_with
from annotate.services.admin.data import import_files
from annotate.services.participant.rating import skip_pair, submit_rating
from annotate.vocabulary import DIMENSIONS

# A distinct score for every (side, dimension), so a swapped mapping cannot pass.
SCORES = {
    "A": {"factuality": 1, "relevance": 2, "helpfulness": 3, "rubric_alignment": 4},
    "B": {"factuality": 5, "relevance": 4, "helpfulness": 2, "rubric_alignment": 1},
}


def scores(**changes: int) -> dict[str, dict[str, int | None]]:
    """SCORES with changes given as A_factuality=5, B_relevance=None, ..."""
    result: dict[str, dict[str, int | None]] = {side: dict(v) for side, v in SCORES.items()}
    for key, value in changes.items():
        side, dim = key.split("_", 1)
        result[side][dim] = value
    return result


@dataclass
class Setup:
    engine: object
    alice: int
    bob: int
    by_side: dict[str, Assignment]  # alice's first assignment with chosen on "A" / on "B"
    bobs: list[Assignment]


@pytest.fixture
def setup(engine, tmp_path, write_records, make_record) -> Setup:
    path = write_records(
        tmp_path / "Art_and_Entertainment_test.jsonl", [make_record(f"0_{i}_0") for i in range(12)]
    )
    with write_session(engine) as session:
        # A fixed seed: a random one puts all 12 chosen responses on one side once in 2,048 runs.
        get_or_create_study(session, "s", seed=7)
    import_files(engine, SYSTEM, [path], study="s")
    with write_session(engine) as session:
        study = get_or_create_study(session, "s")
        ids = {}
        for name in ("alice", "bob"):
            account, _ = accounts.create_account(session, name)
            assign_pairs(session, study, account, study_pairs(session, study))
            ids[name] = account.id
    with read_session(engine) as session:
        mine = session.exec(
            select(Assignment)
            .where(Assignment.annotator_id == ids["alice"])
            .order_by(Assignment.position)
        ).all()
        bobs = session.exec(select(Assignment).where(Assignment.annotator_id == ids["bob"])).all()
    by_side = {side: next(a for a in mine if a.chosen_side == side) for side in ("A", "B")}
    return Setup(engine, ids["alice"], ids["bob"], by_side, list(bobs))


def stored(engine, assignment_id: int) -> dict[tuple[str, str], int]:
    with read_session(engine) as session:
        rows = session.exec(select(Rating).where(Rating.assignment_id == assignment_id)).all()
    return {(r.response, r.dimension): r.score for r in rows}


def count(engine, model) -> int:
    with read_session(engine) as session:
        return len(session.exec(select(model)).all())


def submit(setup: Setup, side: str = "A", given=None, seconds: float = 30.0, **kwargs):
    return submit_rating(
        setup.engine,
        annotator_id=setup.alice,
        assignment_id=setup.by_side[side].id,
        scores=SCORES if given is None else given,
        seconds=seconds,
        **kwargs,
    )


@pytest.mark.parametrize(
    ("chosen_side", "chosen_from", "rejected_from"), [("A", "A", "B"), ("B", "B", "A")]
)
def test_eight_scores_are_mapped_from_sides_to_responses(
    setup, chosen_side, chosen_from, rejected_from
):
    result = submit(setup, chosen_side, seconds=42.5)
    assignment = setup.by_side[chosen_side]
    assert assignment.chosen_side == chosen_side
    assert (result.status, result.assignment_id) == ("saved", assignment.id)
    expected = {("chosen", d): SCORES[chosen_from][d] for d in DIMENSIONS}
    expected |= {("rejected", d): SCORES[rejected_from][d] for d in DIMENSIONS}
    assert stored(setup.engine, assignment.id) == expected
    with read_session(setup.engine) as session:
        ratings = session.exec(select(Rating)).all()
        done = session.get(Assignment, assignment.id)
    assert len(ratings) == 8
    assert {r.seconds for r in ratings} == {42.5}
    assert {r.revision for r in ratings} == {1}
    assert done.status == "done"
    assert done.completed_at is not None


def test_comment_and_flag_are_stored_with_the_assignment(setup):
    submit(setup, comment="Response B cut off", flag_reason="truncated text")
    with read_session(setup.engine) as session:
        item = session.get(Assignment, setup.by_side["A"].id)
    assert (item.comment, item.flagged, item.flag_reason) == (
        "Response B cut off",
        True,
        "truncated text",
    )


def test_missing_scores_are_named_and_nothing_is_saved(setup):
    given = scores(A_relevance=None, B_rubric_alignment=None)
    del given["B"]["helpfulness"]
    assert missing_scores(given, DEFAULT_QUESTIONNAIRE) == [
        "Response A: Relevance and instruction following",
        "Response B: Helpfulness and harmlessness",
        "Response B: Alignment with this user's personal rubric",
    ]
    with pytest.raises(RatingError) as caught:
        submit(setup, given=given)
    assert str(caught.value) == (
        "Please give every score before submitting. Missing: "
        "Response A: Relevance and instruction following; "
        "Response B: Helpfulness and harmlessness; "
        "Response B: Alignment with this user's personal rubric"
    )
    assert count(setup.engine, Rating) == 0
    with read_session(setup.engine) as session:
        assert session.get(Assignment, setup.by_side["A"].id).status == "pending"


def test_missing_side_is_named(setup):
    with pytest.raises(RatingError, match="Response B: Factuality and correctness"):
        submit(setup, given={"A": SCORES["A"]})


@pytest.mark.parametrize("bad", [0, 6, -1, "3", 2.5, True, None])
def test_off_scale_or_non_integer_scores_are_rejected(setup, bad):
    with pytest.raises(RatingError, match=r"not on the scale 1-5|Missing"):
        submit(setup, given=scores(B_helpfulness=bad))
    assert count(setup.engine, Rating) == 0


def test_a_study_scale_other_than_1_to_5_is_respected(setup):
    with write_session(setup.engine) as session:
        study = session.exec(select(Study).where(Study.name == "s")).one()
        study.questionnaire = prb_with({}, {}, tuple(range(8)), {}).stored()
        session.add(study)
    assert submit(setup, given=scores(A_factuality=0, B_factuality=7)).status == "saved"
    with pytest.raises(RatingError, match="8 is not on the scale 0-7"):
        submit(setup, "B", given=scores(A_factuality=8))


def _ask(setup, questionnaire) -> None:
    with write_session(setup.engine) as session:
        study = session.exec(select(Study).where(Study.name == "s")).one()
        study.questionnaire = parse_questionnaire(questionnaire).stored()
        session.add(study)


THREE = {
    "questions": [
        {"key": "tone", "label": "Tone", "text": "What tone?", "choices": ["Warm", "Cold"]},
        {"key": "style", "label": "Style", "text": "Style?", "role": "tie"},
        {"key": "fit", "label": "Fit", "text": "Fit?", "points": [1, 2, 3], "role": "diverge"},
    ]
}


def test_every_question_of_the_questionnaire_is_answered_and_stored(setup):
    """Three questions (a choice and two scales): one Rating row per question and response,
    each value checked against its own question."""
    _ask(setup, THREE)
    given = {"A": {"tone": 2, "style": 5, "fit": 3}, "B": {"tone": 1, "style": 4, "fit": 1}}
    for wrong, match in [
        ({"A": {**given["A"], "fit": 4}}, "Response A, fit: 4 is not on the scale 1-3"),
        ({"B": {**given["B"], "tone": 3}}, "Response B, tone: 3 is not one of the choices 1-2"),
        ({"A": {**given["A"], "factuality": 3}}, "'factuality' is not a question of this study"),
        ({"B": {"tone": 1, "style": 4}}, "Missing: Response B: Fit"),
    ]:
        with pytest.raises(RatingError, match=match):
            submit(setup, given={**given, **wrong})
    assert count(setup.engine, Rating) == 0
    assert submit(setup, given=given).status == "saved"
    chosen_side = setup.by_side["A"].chosen_side
    with read_session(setup.engine) as session:
        stored = {(r.response, r.dimension): r.score for r in session.exec(select(Rating))}
    other = "B" if chosen_side == "A" else "A"
    expected = {("chosen", k): v for k, v in given[chosen_side].items()}
    expected |= {("rejected", k): v for k, v in given[other].items()}
    assert stored == expected


def test_resubmitting_the_same_scores_changes_nothing(setup):
    submit(setup, seconds=10)
    with read_session(setup.engine) as session:
        before = [r.model_dump() for r in session.exec(select(Rating).order_by(Rating.id))]
    result = submit(setup, seconds=99)
    assert result.status == "unchanged"
    with read_session(setup.engine) as session:
        after = [r.model_dump() for r in session.exec(select(Rating).order_by(Rating.id))]
    assert after == before
    assert count(setup.engine, Rating) == 8
    assert count(setup.engine, RatingRevision) == 0


def test_changed_scores_are_a_revision_that_keeps_the_old_values(setup):
    first = submit(setup, seconds=10)
    assert first.status == "saved"
    # chosen is on A here: A's factuality is chosen/factuality, B's relevance rejected/relevance
    result = submit(setup, given=scores(A_factuality=5, B_relevance=1), seconds=25)
    assert result.status == "revised"
    assert count(setup.engine, Rating) == 8
    with read_session(setup.engine) as session:
        ratings = {
            (r.response, r.dimension): r
            for r in session.exec(
                select(Rating).where(Rating.assignment_id == setup.by_side["A"].id)
            )
        }
        revisions = session.exec(select(RatingRevision).order_by(RatingRevision.id)).all()
    assert ratings[("chosen", "factuality")].score == 5
    assert ratings[("chosen", "factuality")].revision == 2
    assert ratings[("chosen", "factuality")].seconds == 25
    assert ratings[("rejected", "relevance")].score == 1
    assert ratings[("chosen", "relevance")].revision == 1  # untouched score, untouched row
    assert ratings[("chosen", "relevance")].seconds == 10
    old = {
        (r.rating_id, r.revision, r.score, r.seconds) for r in revisions
    }  # the values they replaced
    assert old == {
        (ratings[("chosen", "factuality")].id, 1, 1, 10.0),
        (ratings[("rejected", "relevance")].id, 1, 4, 10.0),
    }
    third = submit(setup, given=scores(A_factuality=3, B_relevance=1), seconds=5)
    assert third.status == "revised"
    with read_session(setup.engine) as session:
        history = session.exec(
            select(RatingRevision.revision, RatingRevision.score)
            .where(RatingRevision.rating_id == ratings[("chosen", "factuality")].id)
            .order_by(RatingRevision.revision)
        ).all()
    assert [tuple(h) for h in history] == [(1, 1), (2, 5)]


def test_nobody_can_rate_another_annotators_pair(setup):
    with pytest.raises(PermissionError, match="not in your queue"):
        submit_rating(
            setup.engine,
            annotator_id=setup.alice,
            assignment_id=setup.bobs[0].id,
            scores=SCORES,
            seconds=1,
        )
    with pytest.raises(PermissionError):
        submit_rating(
            setup.engine, annotator_id=setup.alice, assignment_id=99_999, scores=SCORES, seconds=1
        )
    with pytest.raises(PermissionError):
        skip_pair(
            setup.engine, annotator_id=setup.alice, assignment_id=setup.bobs[0].id, reason="x"
        )
    assert count(setup.engine, Rating) == 0
    with read_session(setup.engine) as session:
        assert session.get(Assignment, setup.bobs[0].id).status == "pending"


def test_a_double_submit_from_eight_threads_saves_eight_rows(setup):
    n = 8
    start = threading.Barrier(n)
    results: list[str] = []
    errors: list[BaseException] = []

    def click() -> None:
        try:
            start.wait(10)
            results.append(submit(setup).status)
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=click) for _ in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []
    assert sorted(results) == ["saved"] + ["unchanged"] * (n - 1)
    assert count(setup.engine, Rating) == 8
    assert count(setup.engine, RatingRevision) == 0


def test_skip_keeps_the_reason_and_a_later_submit_completes_the_pair(setup):
    item = setup.by_side["B"].id
    skip_pair(setup.engine, annotator_id=setup.alice, assignment_id=item, reason="  Can't judge ")
    with read_session(setup.engine) as session:
        skipped = session.get(Assignment, item)
    assert (skipped.status, skipped.skip_reason) == ("skipped", "Can't judge")
    assert submit(setup, "B").status == "saved"
    with read_session(setup.engine) as session:
        done = session.get(Assignment, item)
    assert (done.status, done.skip_reason) == ("done", None)


def test_skip_needs_a_reason_and_cannot_skip_a_rated_pair(setup):
    item = setup.by_side["A"].id
    with pytest.raises(RatingError, match="say why"):
        skip_pair(setup.engine, annotator_id=setup.alice, assignment_id=item, reason="  ")
    submit(setup)
    with pytest.raises(RatingError, match="already rated"):
        skip_pair(setup.engine, annotator_id=setup.alice, assignment_id=item, reason="oops")
    with read_session(setup.engine) as session:
        assert session.get(Assignment, item).status == "done"
    assert count(setup.engine, Rating) == 8
