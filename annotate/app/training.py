"""Training before real work, in the app: practice pairs with feedback, the comprehension check,
and the polite end for those who do not pass (`annotate.services.training` does the work).

The rating page calls `training_gate` first (an annotator whose study has training sees it
before any real pair), and the crowd link calls `draw_training` after consent and the survey,
before Start. The practice pairs are made-up pairs given as A and B: nothing here touches a
benchmark pair, and nothing the browser receives before an answer holds the expected scores or
the correct options (the feedback comes from the server after the attempt).

Widget keys (stable, for browser tests): `practice_<dimension>_<A|B>` (score radios, the same
for every practice pair), `practice_submit`, `practice_continue`; `check_<question id>` (a radio,
or a multiselect for "choose all that apply"), `check_submit`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import streamlit as st

from annotate.app.exit_link import draw_exit
from annotate.app.safe_text import inert_markdown
from annotate.app.score_widgets import draw_response, score_radio
from annotate.app.session import NOTICE, engine, login_token
from annotate.domain.crowd.training import PracticeFeedback, TrainingError
from annotate.domain.study.training_rules import CHECK, FAILED, PASSED, PRACTICE
from annotate.services.training import (
    TrainingStep,
    answer_check,
    answer_practice,
    pending_training,
    training_step,
)
from annotate.vocabulary import DIMENSIONS, SIDES

FEEDBACK = "training_feedback"  # (study, feedback, labels) until the annotator continues
SHOWN = "training_practice_shown"  # the practice pair whose answers the widgets hold
CHECK_RESULT = "training_check_result"
SUBMIT_PRACTICE = "practice_submit"
CONTINUE = "practice_continue"
SUBMIT_CHECK = "check_submit"
ENDED_TEXT = (
    "Thank you for your time. This study needs a good grasp of the task, and your answers to "
    "the questions about it did not match what we need, so your participation ends here. This "
    "says nothing about you; it only means this study is not the right fit."
)


def practice_key(dim: str, side: str) -> str:
    return f"practice_{dim}_{side}"


def check_key(question_id: str) -> str:
    return f"check_{question_id}"


def training_gate(account_id: int) -> bool:
    """Draw the annotator's training when a study of theirs needs it; True if drawn (the
    rating page then draws nothing else)."""
    step = pending_training(engine(), account_id)
    if step is None and FEEDBACK not in st.session_state:
        return False
    if step is None:  # the last practice answer passed: its feedback first
        _draw_feedback(*st.session_state[FEEDBACK])
        return True
    draw_training(account_id, step)
    return True


def training_before_start(account_id: int, study: str) -> bool:
    """The crowd link's training, after consent and the survey, before Start; True if drawn
    (the feedback of the last practice pair is drawn even when it completed the training)."""
    step = training_step(engine(), account_id, study)
    held = st.session_state.get(FEEDBACK)
    if step.step == PASSED and (held is None or held[0] != study):
        return False
    draw_training(account_id, step)
    return True


def draw_training(account_id: int, step: TrainingStep) -> None:
    held = st.session_state.get(FEEDBACK)
    if held is not None and held[0] == step.study:
        _draw_feedback(*held)
    elif step.step == PRACTICE and step.practice is not None:
        _draw_practice(account_id, step)
    elif step.step == CHECK:
        _draw_check(account_id, step)
    elif step.step == FAILED:
        _draw_ended(step)


# ---------------------------------------------------------------- practice


def _draw_practice(account_id: int, step: TrainingStep) -> None:
    practice = step.practice
    assert practice is not None
    st.title(f"Practice pair {practice.number} of {practice.total}")
    st.markdown(
        "Before the real pairs, a few practice pairs: score both responses as you would a real "
        "pair. After each, you see the scores the study expects and why. Practice answers are "
        "not part of the results."
    )
    if st.session_state.get(SHOWN) != (step.study, practice.id):
        for dim in DIMENSIONS:
            for side in SIDES:
                st.session_state[practice_key(dim, side)] = None
        st.session_state[SHOWN] = (step.study, practice.id)
    with st.container(key="practice_question", border=True):
        category = f" · *{inert_markdown(practice.category)}*" if practice.category else ""
        st.markdown(f"**The user's question**{category}\n\n" + inert_markdown(practice.question))
    _draw_context(practice.rubric_aspects, practice.narrative, practice.profile, step)
    low, high = step.scale
    anchors = {v: step.anchors.get(v, "") for v in range(low, high + 1)}
    with st.form("practice", border=False, enter_to_submit=False):
        for side, column in zip(SIDES, st.columns(2, gap="medium"), strict=True):
            with column:
                draw_response(side, practice.responses[side], f"practice_response_{side}")
                for dim in DIMENSIONS:
                    label = step.dimension_labels.get(dim, dim)
                    definition = step.dimension_definitions.get(dim, "")
                    score_radio(side, label, definition, anchors, practice_key(dim, side))
        sent = st.form_submit_button(
            "Submit and see the feedback", type="primary", key=SUBMIT_PRACTICE
        )
    if sent:
        scores = {
            side: {dim: st.session_state.get(practice_key(dim, side)) for dim in DIMENSIONS}
            for side in SIDES
        }
        try:
            result = answer_practice(
                engine(),
                account_id,
                study=step.study,
                practice_id=practice.id,
                scores=scores,
                token=login_token(),
            )
        except TrainingError as error:
            st.error(str(error))
            return
        st.session_state[FEEDBACK] = (step.study, result, step.dimension_labels)
        st.rerun()


def _draw_context(
    aspects: list[dict[str, Any]],
    narrative: str,
    profile: list[dict[str, Any]],
    step: TrainingStep,
) -> None:
    tabs = st.tabs(["What this user expects", "What the user told us", "Posts", "How to rate"])
    tabs[0].markdown(
        "\n".join(
            f"{n}. **{inert_markdown(str(a.get('aspect', '')))}**  \n"
            f"   {inert_markdown(str(a.get('evidence', '')))} "
            f"{inert_markdown(str(a.get('reason', '')))}"
            for n, a in enumerate(aspects, 1)
        )
        or "-"
    )
    tabs[1].markdown(inert_markdown(narrative) or "-")
    tabs[2].markdown(
        "\n".join(
            f"- *{inert_markdown(str(p.get('category', '')))}*: "
            + inert_markdown(str(p.get("text", ""))).replace("\n", "\n  ")
            for p in profile
        )
        or "-"
    )
    tabs[3].markdown(
        "\n\n".join(
            [inert_markdown(step.guidelines)]
            + [
                f"**{inert_markdown(step.dimension_labels.get(d, d))}**: "
                f"{inert_markdown(step.dimension_definitions.get(d, ''))}"
                for d in DIMENSIONS
            ]
        )
    )


def _draw_feedback(_study: str, feedback: PracticeFeedback, labels: dict[str, str]) -> None:
    st.title(f"Practice pair {feedback.number}: feedback")
    matched = sum(line.matches for line in feedback.lines)
    st.markdown(f"Your scores matched **{matched} of {len(feedback.lines)}** expected scores.")
    rows = "\n".join(
        f"| {inert_markdown(labels.get(line.dimension, line.dimension))} | {line.side} | "
        f"{line.yours} | {line.expected} | {'yes' if line.matches else 'no'} |"
        for line in feedback.lines
    )
    with st.container(key="practice_feedback"):
        st.markdown(
            "| dimension | response | your score | expected | same |\n| --- | --- | --- | --- "
            f"| --- |\n{rows}"
        )
        for dim in DIMENSIONS:
            if dim in feedback.explanations:
                label = inert_markdown(labels.get(dim, dim))
                st.markdown(f"**Why ({label})**: {inert_markdown(feedback.explanations[dim])}")
    if st.button("Continue", type="primary", key=CONTINUE, icon=":material/arrow_forward:"):
        st.session_state.pop(FEEDBACK, None)
        st.rerun()


# ---------------------------------------------------------------- comprehension check


def _draw_check(account_id: int, step: TrainingStep) -> None:
    st.title("A few questions about the task")
    st.markdown(
        f"Answer every question to start the real pairs. Attempts left: **{step.attempts_left}** "
        f"of {step.attempts}."
    )
    failed = st.session_state.pop(CHECK_RESULT, None)
    if failed:
        st.error(failed)
    answers: dict[str, list[int]] = {}
    with st.form("comprehension", enter_to_submit=False):
        for number, question in enumerate(step.questions, 1):
            label = f"{number}. {inert_markdown(question.text)}"
            indices = list(range(len(question.options)))
            shown = [inert_markdown(o) for o in question.options]
            if question.multiple:
                chosen = st.multiselect(
                    f"{label} (choose all that apply)",
                    indices,
                    format_func=shown.__getitem__,
                    key=check_key(question.id),
                )
                answers[question.id] = list(chosen)
            else:
                one = st.radio(
                    label,
                    indices,
                    index=None,
                    format_func=shown.__getitem__,
                    key=check_key(question.id),
                )
                answers[question.id] = [] if one is None else [one]
        sent = st.form_submit_button("Check my answers", type="primary", key=SUBMIT_CHECK)
    if not sent:
        return
    try:
        result = answer_check(
            engine(), account_id, study=step.study, answers=answers, token=login_token()
        )
    except TrainingError as error:
        st.error(str(error))
        return
    if result.status == "passed":
        st.session_state[NOTICE] = "Training passed. Thank you: the real pairs start now."
    if result.status == CHECK:
        st.session_state[CHECK_RESULT] = (
            f"Not quite: {_questions(result.wrong)} not answered correctly. Please read the "
            f"task again. Attempts left: {result.attempts_left}."
        )
    st.rerun()


def _questions(numbers: Sequence[int]) -> str:
    """'question 2 was' or 'questions 1, 2 and 4 were'."""
    if len(numbers) == 1:
        return f"question {numbers[0]} was"
    listed = ", ".join(str(n) for n in numbers[:-1])
    return f"questions {listed} and {numbers[-1]} were"


def _draw_ended(step: TrainingStep) -> None:
    st.title("Thank you")
    st.markdown(ENDED_TEXT)
    if step.screenout_code:
        draw_exit(step.screenout_code, step.screenout_link, label="Your code for the platform")
