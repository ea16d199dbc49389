"""Training before real work (issue 14, item 3): the definitions' checks, the practice with its
feedback, the comprehension check's grading and attempts, and the gate in front of real work.

Expected values are written out by hand from the definitions below (e.g. practice pair p1
expects factuality A=5, B=2: an answer of A=4 matches B only).
"""

from __future__ import annotations

import copy

import pytest

from annotate.db import read_session, write_session
from annotate.db.tables import Annotator, Assignment, Training
from annotate.domain.assignment import assign_pairs, study_pairs
from annotate.domain.crowd import training
from annotate.domain.crowd.outcomes import SCREENED_OUT, outcome_of
from annotate.domain.crowd.training import FeedbackLine, TrainingError
from annotate.domain.study import accounts
from annotate.domain.study.studies import StudyError, create_study, get_study, update_study
from annotate.domain.study.training_rules import CHECK, FAILED, PASSED, PRACTICE
from annotate.questionnaire import DEFAULT_QUESTIONNAIRE, prb_with
from annotate.services.participant import training as service
from tests.helpers.admin_helpers import make_study

DIMS = ("factuality", "relevance", "helpfulness", "rubric_alignment")

PRACTICE_PAIRS = [
    {
        "id": "p1",
        "question": "How do I keep basil alive indoors?",
        "rubric_aspects": [{"aspect": "short steps", "evidence": "asks for lists"}],
        "profile": [{"id": "u1", "category": "garden", "text": "My herbs keep dying."}],
        "response_a": "Water it when the soil is dry; give it 6 hours of light.",
        "response_b": "Basil is a herb of the mint family.",
        "expected": {"factuality": {"A": 5, "B": 4}, "relevance": {"A": 5, "B": 2}},
        "explanations": {"relevance": "B does not answer the question."},
    },
    {
        "id": "p2",
        "question": "Which laptop for travel?",
        "response_a": "A light one.",
        "response_b": "One under 1.2 kg with a long battery life.",
        "expected": {"helpfulness": {"A": 2, "B": 5}},
    },
]
QUESTIONS = [
    {
        "id": "sides",
        "text": "Are A and B ever the same response?",
        "options": ["Yes", "No"],
        "correct": [1],
    },
    {
        "id": "dims",
        "text": "Which are scored?",
        "options": ["Factuality", "Length", "Relevance"],
        "correct": [0, 2],
    },
]


def _scores(value: int = 3, **given: dict[str, int]) -> dict[str, dict[str, int | None]]:
    """Every score `value`, except those `given` as dimension={'A': .., 'B': ..}."""
    return {side: {dim: given.get(dim, {}).get(side, value) for dim in DIMS} for side in ("A", "B")}


@pytest.fixture
def trained(engine):
    """A study with two practice pairs, two questions, 2 attempts; annotator `ana` has work."""
    make_study(
        engine,
        "t",
        pairs=3,
        practice_pairs=PRACTICE_PAIRS,
        comprehension_questions=QUESTIONS,
        comprehension_attempts=2,
    )
    with write_session(engine) as session:
        study = get_study(session, "t")
        account, _ = accounts.create_account(session, "ana")
        assign_pairs(session, study, account, study_pairs(session, study))
        return int(account.id)  # type: ignore[arg-type]


def _study(engine):
    with read_session(engine) as session:
        return get_study(session, "t")


def _row(engine, annotator_id) -> Training | None:
    with read_session(engine) as session:
        return training.training_of(session, annotator_id, _study(engine).id)


# ---------------------------------------------------------------- the definitions


def _problems(engine, **settings) -> str:
    with pytest.raises(StudyError) as raised, write_session(engine) as session:
        create_study(session, "bad", **settings)
    return str(raised.value)


def test_a_study_without_training_needs_none(engine):
    make_study(engine, "plain", pairs=1)
    with read_session(engine) as session:
        study = get_study(session, "plain")
        assert not training.needs_training(study)
        assert training.step(study, None) == PASSED
        training.require_passed(session, 1, study)  # no refusal


def test_bad_practice_pairs_are_named_with_their_field(engine):
    bad = copy.deepcopy(PRACTICE_PAIRS)
    bad[0]["expected"]["factuality"]["A"] = 9  # scale 1-5
    bad[0]["expected"]["length"] = {"A": 1, "B": 1}
    bad[0]["explanations"]["helpfulness"] = "no score to explain"
    del bad[1]["response_b"]
    bad[1]["colour"] = "red"
    message = _problems(engine, practice_pairs=bad)
    where = "practice pair 1 ('p1'), field"
    assert f"{where} 'expected.factuality.A': expected a score from 1 to 5" in message
    assert "practice pair 1 ('p1'), field 'expected.length': expected one of factuality" in message
    assert "field 'explanations.helpfulness': explains no expected score" in message
    assert "practice pair 2 ('p2'), field 'response_b': missing" in message
    assert "practice pair 2 ('p2'), field 'colour': unknown field" in message


def test_bad_questions_and_attempts_are_refused(engine):
    bad = copy.deepcopy(QUESTIONS)
    bad[0]["correct"] = [2]
    bad[1]["options"] = ["x", "x", "y"]
    bad.append(dict(QUESTIONS[0]))  # its id again
    message = _problems(engine, comprehension_questions=bad, comprehension_attempts=0)
    assert "comprehension question 1 ('sides'), field 'correct': expected indices of options " in (
        message
    )
    assert "(0 to 1), not [2]" in message
    assert "comprehension question 2 ('dims'), field 'options': expected distinct options" in (
        message
    )
    assert "comprehension question 3 ('sides'), field 'id': 'sides' is used twice" in message
    assert "comprehension attempts: expected 1 to 10, not 0" in message


def test_the_scale_cannot_shrink_below_the_practice_pairs_expected_scores(engine, trained):
    expected = r"expected.factuality.A': expected a score from 1 to 4"
    with pytest.raises(StudyError, match=expected), write_session(engine) as session:
        update_study(session, "t", questionnaire=prb_with({}, {}, (1, 2, 3, 4), {}))


# ---------------------------------------------------------------- practice and feedback


def test_the_practice_view_holds_no_expected_score(engine, trained):
    step = service.training_step(engine, trained, "t")
    assert (step.step, step.practice.id, step.practice.number, step.practice.total) == (
        PRACTICE,
        "p1",
        1,
        2,
    )
    assert step.questions == []  # the questions only at the check
    shown = repr(step.practice)
    assert "expected" not in shown
    assert "B does not answer" not in shown


def test_a_practice_answer_gets_feedback_per_expected_score(engine, trained):
    answer = _scores(3, factuality={"A": 4, "B": 4}, relevance={"A": 5, "B": 5})
    feedback = service.answer_practice(engine, trained, study="t", practice_id="p1", scores=answer)
    # p1 expects factuality A5 B4, relevance A5 B2 (no other dimension).
    assert feedback.lines == [
        FeedbackLine("factuality", "A", 4, 5),
        FeedbackLine("factuality", "B", 4, 4),
        FeedbackLine("relevance", "A", 5, 5),
        FeedbackLine("relevance", "B", 5, 2),
    ]
    assert [line.matches for line in feedback.lines] == [False, True, True, False]
    assert feedback.explanations == {"relevance": "B does not answer the question."}
    row = _row(engine, trained)
    assert row.status == PRACTICE
    assert row.practice["p1"]["scores"]["A"]["factuality"] == 4
    # A second click: the first answer stands, the same feedback.
    again = service.answer_practice(engine, trained, study="t", practice_id="p1", scores=_scores(1))
    assert again == feedback
    assert service.training_step(engine, trained, "t").practice.id == "p2"


def test_practice_asks_the_study_s_own_questions(engine):
    """A questionnaire of a choice and a 1-3 scale: the practice's expected answers are checked
    against it, and a practice answer is checked and fed back on its questions."""
    asked = {
        "questions": [
            {"key": "fit", "label": "Fit", "text": "Fit?", "points": [1, 2, 3], "role": "diverge"},
            {"key": "tone", "label": "Tone", "text": "Tone?", "choices": ["Warm", "Cold"]},
        ]
    }
    pair = {**PRACTICE_PAIRS[1], "expected": {"tone": {"A": 1, "B": 2}, "fit": {"A": 1, "B": 3}}}
    wrong = {**pair, "expected": {"fit": {"A": 4, "B": 1}, "helpfulness": {"A": 2, "B": 5}}}
    with pytest.raises(StudyError) as refused, write_session(engine) as session:
        create_study(session, "bad", questionnaire=asked, practice_pairs=[wrong])
    assert "field 'expected.fit.A': expected a score from 1 to 3, not 4" in str(refused.value)
    assert "field 'expected.helpfulness': expected one of fit, tone" in str(refused.value)
    make_study(engine, "t", pairs=1, questionnaire=asked, practice_pairs=[pair])
    with write_session(engine) as session:
        account, _ = accounts.create_account(session, "ana")
        study = get_study(session, "t")
        assign_pairs(session, study, account, study_pairs(session, study))
        ana = int(account.id)  # type: ignore[arg-type]
    step = service.training_step(engine, ana, "t")
    assert step.questionnaire.keys == ("fit", "tone")
    with pytest.raises(TrainingError, match="Tone: answers go from 1 to 2"):
        service.answer_practice(
            engine, ana, study="t", practice_id="p2",
            scores={"A": {"fit": 1, "tone": 3}, "B": {"fit": 3, "tone": 2}},
        )  # fmt: skip
    given = {"A": {"fit": 2, "tone": 1}, "B": {"fit": 3, "tone": 2}}
    feedback = service.answer_practice(engine, ana, study="t", practice_id="p2", scores=given)
    assert feedback.lines == [
        FeedbackLine("fit", "A", 2, 1),
        FeedbackLine("fit", "B", 3, 3),
        FeedbackLine("tone", "A", 1, 1),
        FeedbackLine("tone", "B", 2, 2),
    ]


def test_a_practice_answer_needs_every_score(engine, trained):
    answer = _scores(3)
    answer["B"]["helpfulness"] = None
    with pytest.raises(TrainingError, match="Missing: Response B: Helpfulness"):
        service.answer_practice(engine, trained, study="t", practice_id="p1", scores=answer)
    assert _row(engine, trained) is None  # nothing written


# ---------------------------------------------------------------- the comprehension check


def _practise(engine, annotator_id):
    for pid in ("p1", "p2"):
        service.answer_practice(engine, annotator_id, study="t", practice_id=pid, scores=_scores())


def test_the_check_waits_for_the_practice(engine, trained):
    with pytest.raises(TrainingError, match="finish the practice"):
        service.answer_check(engine, trained, study="t", answers={"sides": [1], "dims": [0, 2]})
    _practise(engine, trained)
    step = service.training_step(engine, trained, "t")
    assert step.step == CHECK
    assert step.attempts_left == 2
    assert [(q.id, q.multiple) for q in step.questions] == [("sides", False), ("dims", True)]
    assert "correct" not in repr(step.questions)


def test_a_wrong_attempt_uses_one_and_a_right_one_passes(engine, trained):
    _practise(engine, trained)
    with pytest.raises(TrainingError, match=r"question 2"):
        service.answer_check(engine, trained, study="t", answers={"sides": [1], "dims": []})
    assert service.training_step(engine, trained, "t").attempts_left == 2  # not counted
    # dims needs both 0 and 2: one of them is wrong.
    result = service.answer_check(engine, trained, study="t", answers={"sides": [1], "dims": [0]})
    assert (result.status, result.wrong, result.attempts_left) == (CHECK, [2], 1)
    result = service.answer_check(
        engine, trained, study="t", answers={"sides": [1], "dims": [2, 0]}
    )
    assert (result.status, result.wrong, result.attempts_left) == (PASSED, [], 0)  # 2 used
    row = _row(engine, trained)
    assert row.status == PASSED
    assert row.ended_at is not None
    assert [a["wrong"] for a in row.attempts] == [[2], []]
    with read_session(engine) as session:
        training.require_passed(session, trained, _study(engine))
    assert service.pending_training(engine, trained) is None


def test_the_last_wrong_attempt_screens_out(engine, trained):
    _practise(engine, trained)
    wrong = {"sides": [0], "dims": [0, 2]}
    assert service.answer_check(engine, trained, study="t", answers=wrong).status == CHECK
    result = service.answer_check(engine, trained, study="t", answers=wrong)
    assert (result.status, result.wrong, result.attempts_left) == (FAILED, [1], 0)
    # Failed stays failed: a right answer afterwards changes nothing.
    right = {"sides": [1], "dims": [0, 2]}
    assert service.answer_check(engine, trained, study="t", answers=right).status == FAILED
    with read_session(engine) as session, pytest.raises(TrainingError, match="has ended"):
        training.require_passed(session, trained, _study(engine))
    assert service.pending_training(engine, trained).step == FAILED
    with read_session(engine) as session:  # the one stored outcome (issue 34.1)
        stored = outcome_of(session, _study(engine).id, trained)
    assert (stored.status, stored.reason) == (SCREENED_OUT, training.FAILED_TRAINING)


def test_failing_one_study_leaves_the_annotator_s_other_work_open(engine, trained):
    from annotate.domain.rating.queue import queue
    from annotate.services.participant.rating import submit_rating

    make_study(engine, "free", pairs=2)  # no training
    with write_session(engine) as session:
        free = get_study(session, "free")
        ana = session.get(Annotator, trained)
        assign_pairs(session, free, ana, study_pairs(session, free))
    _practise(engine, trained)
    wrong = {"sides": [0], "dims": [0, 2]}
    for _ in range(2):
        service.answer_check(engine, trained, study="t", answers=wrong)
    # The failed study's pairs leave the queue; the other study's pairs are rated as usual.
    with read_session(engine) as session:
        entries = queue(session, trained)
        studies = {session.get(Assignment, e.assignment_id).study_id for e in entries}
    assert studies == {free.id}
    assert len(entries) == 2
    assert service.pending_training(engine, trained) is None
    for entry in entries:
        submit_rating(engine, annotator_id=trained, assignment_id=entry.assignment_id,
                      scores=_scores(), seconds=3.0)  # fmt: skip
    # With nothing else open, the failed study's end page (its screen-out code) comes back.
    assert service.pending_training(engine, trained).step == FAILED


def test_questions_only_and_practice_only(engine):
    make_study(engine, "q", pairs=1, comprehension_questions=QUESTIONS[:1])
    make_study(engine, "p", pairs=1, practice_pairs=PRACTICE_PAIRS[1:])
    with write_session(engine) as session:
        ana = int(accounts.create_account(session, "ana")[0].id)  # type: ignore[arg-type]
    assert service.training_step(engine, ana, "q").step == CHECK
    service.answer_practice(engine, ana, study="p", practice_id="p2", scores=_scores())
    assert service.training_step(engine, ana, "p").step == PASSED  # no questions: done


def test_the_gate_lists_only_studies_of_the_annotator_s_work(engine, trained):
    make_study(engine, "other", pairs=1, comprehension_questions=QUESTIONS)
    assert service.pending_training(engine, trained).study == "t"
    with write_session(engine) as session:
        bob = int(accounts.create_account(session, "bob")[0].id)  # type: ignore[arg-type]
    assert service.pending_training(engine, bob) is None  # no work: nothing to gate


def test_a_real_submit_is_refused_until_the_training_is_passed(engine, trained):
    from annotate.domain.rating.ratings import RatingError
    from tests.helpers.admin_helpers import assignments, rate

    first = assignments(engine, _study(engine).id)[0]
    with pytest.raises(RatingError, match="Not saved: Please complete the training first"):
        rate(engine, trained, first.id)
    _practise(engine, trained)
    service.answer_check(engine, trained, study="t", answers={"sides": [1], "dims": [0, 2]})
    assert rate(engine, trained, first.id).status == "saved"


def test_the_expected_aspect_marks_and_preference_are_checked():
    """Issue 22.8: a practice pair may give the expected aspect marks and preference; each
    problem is located (the practice pair, the field, what was expected)."""
    from annotate.domain.study.training_rules import training_problems

    wrong = {"expected_aspects": {"A": [3]}, "expected_preference": 5}
    problems = training_problems([{**PRACTICE_PAIRS[0], **wrong}], [], 2, DEFAULT_QUESTIONNAIRE)
    assert problems == [
        "practice pair 1 ('p1'), field 'expected_aspects': expected the marks of A and B",
        "practice pair 1 ('p1'), field 'expected_aspects.A': expected 1 marks from 0 to 2 "
        "(one per rubric aspect)",
        "practice pair 1 ('p1'), field 'expected_preference': expected -2 to 2",
    ]
    right = {
        "expected_aspects": {"A": [2], "B": [0]},
        "expected_preference": -1,
        "explanations": {"aspects": "A lists steps.", "preference": "Only A helps."},
    }
    assert training_problems([{**PRACTICE_PAIRS[0], **right}], [], 2, DEFAULT_QUESTIONNAIRE) == []
