"""Training before real work in the app (issue 14, item 3), driven with AppTest: practice pairs
with feedback, the comprehension check failed then passed, screened out with the study's code,
and the crowd link's training before Start. Blinding: the training pages carry no benchmark
pair's text and nothing that names a chosen or rejected response; the expected scores and the
correct options reach the browser only after the attempt, as feedback.
"""

from __future__ import annotations

import re

import pytest
from sqlmodel import col, select

from annotate.db import read_session, write_session
from annotate.db.tables import Annotator, Pair, Training
from annotate.domain.crowd.enrolment import EnrolmentError
from annotate.domain.study.studies import get_study, update_study
from annotate.services.participant.enrolment import start
from tests.annotate.domain.crowd.test_training import PRACTICE_PAIRS, QUESTIONS
from tests.helpers.apptest_helpers import current_assignment, messages, sent_elements

DIMS = ("factuality", "relevance", "helpfulness", "rubric_alignment")
LABELS = re.compile(r"\b(chosen|rejected)\b", re.I)
PROLIFIC = "https://app.prolific.com/submissions/complete?cc={code}"


def _train(engine, **settings) -> None:
    settings.setdefault("practice_pairs", PRACTICE_PAIRS)
    settings.setdefault("comprehension_questions", QUESTIONS)
    with write_session(engine) as session:
        update_study(session, "demo", **settings)


def _sent(at) -> str:
    return "\n".join(sent_elements(at))


def _practise(at, value: int = 3) -> None:
    """Score every question of the practice pair shown `value` and submit."""
    for dim in DIMS:
        for side in ("A", "B"):
            _radio(at, f"{dim}_{side}").set_value(value)
    at.button(key="practice_submit").click().run()
    assert not at.exception, [e.value for e in at.exception]


def _radio(at, name: str):
    """The practice pair's radio `name` ('factuality_A'; its key ends with the pair's number)."""
    (radio,) = [r for r in at.radio if r.key and r.key.startswith(f"practice_{name}_p")]
    return radio


def _answer(at, sides: int, dims: list[int]) -> None:
    at.radio(key="check_sides").set_value(sides)
    at.multiselect(key="check_dims").set_value(dims)
    at.button(key="check_submit").click().run()
    assert not at.exception, [e.value for e in at.exception]


def _real_texts(engine) -> list[str]:
    with read_session(engine) as session:
        pairs = session.exec(select(Pair)).all()
        return [text for p in pairs for text in (p.chosen, p.rejected, p.question)]


def test_a_study_without_training_opens_on_the_first_pair(open_app, demo):
    at = open_app(demo.token)
    current_assignment(at)
    assert not [r for r in at.radio if r.key.startswith("practice_")]


def test_practice_with_feedback_then_the_check_failed_then_passed(open_app, demo, engine):
    _train(engine)
    at = open_app(demo.token)
    assert at.title[0].value == "Practice pair 1 of 2"
    sent = _sent(at)
    # Before the answer: neither the expected scores' explanation nor any real pair.
    assert "B does not answer the question." not in sent
    assert not any(text in sent for text in _real_texts(engine))
    assert not LABELS.search(sent)
    assert "pair_token" not in {t.key for t in at.text_input}
    at.button(key="practice_submit").click().run()  # nothing scored
    assert "Please give every score" in messages(at.error)[0]
    _practise(at, 5)
    # p1 expects factuality A5 B4 and relevance A5 B2: with 5 everywhere, 2 of 4 match.
    assert at.title[0].value == "Practice pair 1: feedback"
    assert "Your scores matched **2 of 4** expected scores." in messages(at.markdown)
    table = next(m for m in messages(at.markdown) if m.startswith("| question"))
    assert "| Relevance and instruction following | B | 5 | 2 | no |" in table
    assert any("B does not answer the question." in m for m in messages(at.markdown))
    at.button(key="practice_continue").click().run()
    assert at.title[0].value == "Practice pair 2 of 2"
    assert all(_radio(at, f"{d}_A").value is None for d in DIMS)  # reset
    _practise(at)
    at.button(key="practice_continue").click().run()
    assert at.title[0].value == "A few questions about the task"
    assert "Attempts left: **2** of 2." in " ".join(messages(at.markdown))
    assert "correct" not in _sent(at)
    _answer(at, 0, [0, 2])  # question 1 wrong
    (error,) = messages(at.error)
    assert "Not quite: question 1 was not answered correctly" in error
    assert "Attempts left: 1" in error
    # ... and points to something to read, open above the questions (issue 22.8).
    assert "How to rate the pairs" in error
    (guide,) = [e for e in at.expander if e.label == "How to rate the pairs"]
    assert any("Relevance and instruction following" in m.value for m in guide.markdown)
    _answer(at, 1, [0, 2])
    assert "Training passed" in " ".join(messages(at.success))
    current_assignment(at)  # the real queue
    with read_session(engine) as session:
        (row,) = session.exec(select(Training)).all()
    assert (row.status, len(row.practice), len(row.attempts)) == ("passed", 2, 2)


def test_failing_the_check_ends_with_the_screen_out_code(open_app, demo, engine):
    _train(
        engine,
        practice_pairs=[],
        comprehension_attempts=1,
        screenout_code="OUT-7",
        completion_url=PROLIFIC,
    )
    at = open_app(demo.token)
    _answer(at, 0, [1])
    assert at.title[0].value == "Thank you"
    assert "OUT-7" in " ".join(messages(at.success))
    assert [b.url for b in at.get("link_button")] == [PROLIFIC.replace("{code}", "OUT-7")]
    again = open_app(demo.token)  # coming back: still the end page, never a real pair
    assert again.title[0].value == "Thank you"
    assert "pair_token" not in {t.key for t in again.text_input}


def test_hostile_training_texts_are_drawn_inert(open_app, demo, engine):
    hostile = '<img src=x onerror="window.__pwned=1">'
    pair = {**PRACTICE_PAIRS[1], "response_a": hostile, "question": f"Q {hostile}"}
    question = {"id": "q", "text": f"T {hostile}", "options": [hostile, "b"], "correct": [1]}
    _train(engine, practice_pairs=[pair], comprehension_questions=[question])
    at = open_app(demo.token)
    assert not any("<img" in m for m in messages(at.markdown))
    _practise(at)
    at.button(key="practice_continue").click().run()
    radio = at.radio(key="check_q")
    assert "<img" not in radio.label
    assert not any("<img" in str(o) for o in radio.options)


def _crowd_link(open_app, engine, **training):
    """Open the demo study's crowd link (open pool, enrolment) with this training."""
    with write_session(engine) as session:
        update_study(session, "demo", pool_open=True, enrolment_open=True, **training)
        key = get_study(session, "demo").enrolment_key
    link = {"study": "demo", "key": key, "PROLIFIC_PID": "5f1a2b3c4d5e6f7a8b9c0d1e",
            "SESSION_ID": "6a7b8c9d0e1f2a3b4c5d6e7f"}  # fmt: skip
    at = open_app()
    for name, value in link.items():
        at.query_params[name] = value
    at.run()
    if any(b.key == "crowd_begin" for b in at.button):  # training first: Begin creates the account
        at.button(key="crowd_begin").click().run()
    return at, key


def test_the_crowd_link_trains_before_start(open_app, engine, demo):
    at, key = _crowd_link(
        open_app, engine, practice_pairs=[], comprehension_questions=QUESTIONS[:1]
    )
    assert at.title[0].value == "A few questions about the task"
    assert not [b for b in at.button if b.key == "crowd_start"]
    with read_session(engine) as session:
        (account,) = session.exec(
            select(Annotator.id).where(col(Annotator.external_id).is_not(None))
        )
    with pytest.raises(EnrolmentError, match="complete the training"):
        start(engine, account, study="demo", key=key)  # refused on the server too
    at.radio(key="check_sides").set_value(1)
    at.button(key="check_submit").click().run()
    assert at.button(key="crowd_start")  # then Start, as before


def test_the_crowd_sees_the_last_practice_feedback_before_start(open_app, engine, demo):
    at, _ = _crowd_link(open_app, engine, practice_pairs=PRACTICE_PAIRS[1:])
    assert at.title[0].value == "Practice pair 1 of 1"
    _practise(at)
    assert at.title[0].value == "Practice pair 1: feedback"  # although training is now passed
    assert not [b for b in at.button if b.key == "crowd_start"]
    at.button(key="practice_continue").click().run()
    assert at.button(key="crowd_start")


def test_a_crowd_participant_who_fails_gets_the_screen_out_code_and_no_start(
    open_app, engine, demo
):
    at, _ = _crowd_link(
        open_app,
        engine,
        practice_pairs=[],
        comprehension_questions=QUESTIONS[:1],
        comprehension_attempts=1,
        screenout_code="OUT-8",
    )
    at.radio(key="check_sides").set_value(0)
    at.button(key="check_submit").click().run()
    assert at.title[0].value == "Thank you"
    assert "OUT-8" in " ".join(messages(at.success))
    assert not [b for b in at.button if b.key == "crowd_start"]


def test_the_wrong_questions_are_named_in_a_sentence():
    from annotate.app.participant.training import _questions

    assert _questions([2]) == "question 2 was"
    assert _questions([1, 2, 4]) == "questions 1, 2 and 4 were"


DESIGN = {"expected_aspects": {"A": [2], "B": [0]}, "expected_preference": -2}
DESIGN["explanations"] = {"relevance": "B does not answer.", "preference": "Only A helps."}


def test_the_practice_asks_the_studys_aspects_and_preference_with_feedback_on_each(
    open_app, demo, engine
):
    """Issue 22.8: a study with the aspect checklist and the direct preference asks them on the
    practice pair too (the rating page's widgets) and gives feedback on each answer."""
    pair = {**PRACTICE_PAIRS[0], **DESIGN}
    _train(
        engine,
        practice_pairs=[pair],
        aspect_checklist=True,
        ask_preference=True,
        rationale="optional",
    )
    at = open_app(demo.token)
    assert at.title[0].value == "Practice pair 1 of 1"
    assert _radio(at, "aspect_A_0").label == "Response A, aspect 1"
    assert _radio(at, "preference").label == "Which response fits this user better?"
    assert [t.label for t in at.text_area] == ["Why? (optional)"]
    for dim in DIMS:
        for side in ("A", "B"):
            _radio(at, f"{dim}_{side}").set_value(5)
    at.button(key="practice_submit").click().run()
    assert "Missing aspect marks" in messages(at.error)[0]  # as on the rating page
    _radio(at, "aspect_A_0").set_value(2)
    _radio(at, "aspect_B_0").set_value(1)
    _radio(at, "preference").set_value(1)
    at.button(key="practice_submit").click().run()
    assert at.title[0].value == "Practice pair 1: feedback"
    # 4 scores (2 match), 2 marks (A matches), the preference (B better, not A much better).
    assert "Your answers matched **3 of 7** expected answers." in messages(at.markdown)
    table = next(m for m in messages(at.markdown) if m.startswith("| question"))
    assert "| Aspect 1 | A | 2 · Well | 2 · Well | yes |" in table
    assert "| Aspect 1 | B | 1 · Partly | 0 · Not covered | no |" in table
    assert "| Which fits better | - | B better | A much better | no |" in table
    assert any("Only A helps." in m for m in messages(at.markdown))
    with read_session(engine) as session:
        (trained,) = session.exec(select(Training)).all()
    answer = trained.practice["p1"]
    assert (answer["aspects"], answer["preference"]) == ({"A": [2], "B": [1]}, 1)


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({}, "score each answer on 4 questions."),
        (
            {"aspect_checklist": True, "ask_preference": True, "rationale": "required"},
            "score each answer on 4 questions, mark how well each answer covers each thing "
            "the asker expects and say which answer fits the asker better, with a reason.",
        ),
    ],
)
def test_the_welcome_text_says_what_the_study_asks(open_app, engine, demo, options, words):
    at, _ = _crowd_link(open_app, engine, practice_pairs=[], comprehension_questions=[], **options)
    assert at.title[0].value == "Welcome"
    assert any(words in m for m in messages(at.markdown))
