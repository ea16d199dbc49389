"""Training before real work, in the app: practice pairs with feedback, the comprehension check,
and the polite end for those who do not pass (`annotate.services.participant.training` does the
work).

The rating page calls `training_gate` first (an annotator whose study has training sees it
before any real pair), and the crowd link calls `draw_training` after consent and the survey,
before Start. The practice pairs are made-up pairs given as A and B: nothing here touches a
benchmark pair, and nothing the browser receives before an answer holds the expected scores or
the correct options (the feedback comes from the server after the attempt).

Keys (for the page script, the style and browser tests): containers `practice_<dimension>_<A|B>`
inside `scores_A` / `scores_B`, `aspect_checklist`, `preference_box` and `rationale`, as on the
rating page, each holding a widget with a key of its own per practice pair (`..._p<number>`);
`practice_submit`, `practice_continue`; `check_<question id>` (a radio, or a multiselect for
"choose all that apply"), `check_submit`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import streamlit as st

from annotate.app.keyboard import inject_keyboard, shortcuts_help
from annotate.app.participant import aspect_checklist, pair_context, pair_view
from annotate.app.participant.exit_link import draw_exit
from annotate.app.participant.pair_view import Entered
from annotate.app.participant.score_widgets import (
    draw_response,
    field_key,
    preference_question,
    question_radio,
)
from annotate.app.safe_text import inert_markdown, plain_lines
from annotate.app.session import NOTICE, engine, login_token
from annotate.config import rating_view
from annotate.domain.crowd.training import (
    FeedbackLine,
    PracticeFeedback,
    PracticeView,
    TrainingError,
)
from annotate.domain.rating.queue import PairView, StudyScale
from annotate.domain.study.training_rules import CHECK, FAILED, PASSED, PRACTICE
from annotate.services.participant.training import (
    TrainingStep,
    answer_check,
    answer_practice,
    pending_training,
    training_step,
)
from annotate.vocabulary import COVERAGE_WORDS, PREFERENCE_WORDS, SIDES

FEEDBACK = "training_feedback"  # (study, feedback, labels) until the annotator continues
SHOWN = "training_practice_shown"  # the practice pair whose answers the widgets hold
CHECK_RESULT = "training_check_result"
PRACTICE_ERROR = "training_practice_error"  # (practice token, why its answers were refused)
PRACTICE_ATTEMPT = "training_practice_attempt"  # numbers the refusals (each is new data)
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
    """A practice pair with exactly the rating page's questions for the study (the scores, the
    aspect checklist, the preference and its rationale) and its keys (issue 22.8)."""
    practice = step.practice
    assert practice is not None
    st.title(f"Practice pair {practice.number} of {practice.total}")
    st.markdown(
        "Before the real pairs, a few practice pairs: answer as you would on a real pair. "
        "After each, you see the answers the study expects and why. Practice answers are not "
        "part of the results."
    )
    if rating_view() == "component":  # drawn by the rating page's own component (issue 36)
        inject_keyboard()  # (the page's own steps: the focus on Continue after the feedback)
        _draw_practice_component(account_id, step, practice)
        return
    if st.session_state.get(SHOWN) != (step.study, practice.id):  # a new practice pair
        for name in _fields(step, practice):  # (the keys repeat for another study's pair 1)
            st.session_state[_key(practice, name)] = None
        st.session_state[SHOWN] = (step.study, practice.id)
    with st.container(key="practice_question", border=True):
        category = f" · *{inert_markdown(practice.category)}*" if practice.category else ""
        st.markdown(f"**The user's question**{category}\n\n" + inert_markdown(practice.question))
    _draw_context(practice.rubric_aspects, practice.narrative, practice.profile, step)
    inject_keyboard()
    with st.form("practice", border=False, enter_to_submit=False):
        _draw_practice_questions(step, practice)
        sent = st.form_submit_button(
            "Submit and see the feedback", type="primary", key=SUBMIT_PRACTICE
        )
    with st.container(key="shortcuts"):  # hidden on a phone (style.css)
        st.caption(
            shortcuts_help(*step.questionnaire.scale, step.ask_preference, _asks_aspects(step))
        )
    if sent:
        _send_practice(account_id, step, practice)


def _draw_practice_component(account_id: int, step: TrainingStep, practice: PracticeView) -> None:
    """The practice pair drawn by the pair component (the default view), as the rating page's
    pairs are: the same questions, checklist and preference by keyboard or pointer; its Submit
    records the answers and the feedback follows (`_draw_feedback`)."""
    token = f"{step.study}:{practice.id}"  # the practice pair the component was drawn for
    failed = st.session_state.pop(PRACTICE_ERROR, None)
    sections = pair_context.context_sections(
        rubric=practice.rubric_aspects,
        narrative=practice.narrative,
        profile=practice.profile,
        how_to_rate=_how_to_rate(step),
    )
    pair_view.draw_practice(
        _practice_view(step, practice),
        sections,
        token=token,
        error=failed[1] if failed and failed[0] == token else "",
        attempt=st.session_state.get(PRACTICE_ATTEMPT, 0),
        on_submit=lambda entered: _send_entered(account_id, step, practice, token, entered),
    )
    with st.container(key="shortcuts"):  # hidden on a phone (style.css)
        st.caption(
            shortcuts_help(*step.questionnaire.scale, step.ask_preference, _asks_aspects(step))
        )


def _practice_view(step: TrainingStep, practice: PracticeView) -> PairView:
    """The practice pair as the component draws a pair: by side, nothing saved yet."""
    return PairView(
        assignment_id=0,  # not an assignment: the component is given `token` instead
        number=practice.number,
        total=practice.total,
        done=0,
        status="pending",
        question=practice.question,
        narrative=practice.narrative,
        category=practice.category,
        profile=practice.profile,
        rubric_aspects=practice.rubric_aspects,
        responses=practice.responses,
        scale=StudyScale(
            questionnaire=step.questionnaire,
            guidelines=step.guidelines,
            ask_preference=step.ask_preference,
            rationale=step.rationale,
            aspect_checklist=step.aspect_checklist,
        ),
    )


def _send_entered(
    account_id: int, step: TrainingStep, practice: PracticeView, token: str, entered: Entered
) -> None:
    """The component's Submit (a callback, before the run that draws the feedback): record the
    answers; a refusal (an answer missing) is said inside the component, the answers kept."""
    state = st.session_state
    try:
        _record_practice(account_id, step, practice, entered)
    except TrainingError as error:
        state[PRACTICE_ERROR] = (token, str(error))
        state[PRACTICE_ATTEMPT] = state.get(PRACTICE_ATTEMPT, 0) + 1


def _record_practice(
    account_id: int, step: TrainingStep, practice: PracticeView, entered: Entered
) -> None:
    """Record a practice pair's answers (either view) and keep its feedback for the next run;
    TrainingError when an answer is missing or the practice is over."""
    marks = entered.aspect_marks if _asks_aspects(step) else None
    result = answer_practice(
        engine(),
        account_id,
        study=step.study,
        practice_id=practice.id,
        scores=entered.scores,
        token=login_token(),
        aspect_marks=None if marks is None else {side: list(v) for side, v in marks.items()},
        side_preference=entered.side_preference,
        rationale=entered.rationale,
    )
    st.session_state[FEEDBACK] = (step.study, result, step.questionnaire.labels)


def _asks_aspects(step: TrainingStep) -> bool:
    return step.aspect_checklist and bool(step.practice and step.practice.rubric_aspects)


def _key(practice: PracticeView, name: str) -> str:
    """A practice widget's key: its own for each practice pair (as the rating page's)."""
    return field_key(f"practice_{name}", practice.number)


def _fields(step: TrainingStep, practice: PracticeView) -> list[str]:
    """The names of every question a practice pair can ask (scores, marks, preference)."""
    names = [f"{dim}_{side}" for dim in step.questionnaire.keys for side in SIDES]
    names += [f"aspect_{side}_{i}" for side in SIDES for i in range(len(practice.rubric_aspects))]
    return [*names, "preference", "rationale"]


def _draw_practice_questions(step: TrainingStep, practice: PracticeView) -> None:
    for side, column in zip(SIDES, st.columns(2, gap="medium"), strict=True):
        with column:
            draw_response(side, practice.responses[side], f"practice_response_{side}")
            with st.container(key=f"scores_{side}"):  # the page script's score groups
                for question in step.questionnaire.questions:
                    with st.container(key=practice_key(question.key, side)):
                        key = _key(practice, f"{question.key}_{side}")
                        question_radio(side, question, key)
    if _asks_aspects(step):
        aspect_checklist.draw_marks(
            practice.rubric_aspects, lambda side, i: _key(practice, f"aspect_{side}_{i}")
        )
    if step.ask_preference:
        preference_question(
            step.rationale, _key(practice, "preference"), _key(practice, "rationale")
        )


def _send_practice(account_id: int, step: TrainingStep, practice: PracticeView) -> None:
    state = st.session_state
    scores = {
        side: {dim: state.get(_key(practice, f"{dim}_{side}")) for dim in step.questionnaire.keys}
        for side in SIDES
    }
    n = len(practice.rubric_aspects)
    marks = {
        side: tuple(state.get(_key(practice, f"aspect_{side}_{i}")) for i in range(n))
        for side in SIDES
    }
    entered = Entered(
        scores=scores,
        comment="",
        flag_reason="",
        side_preference=state.get(_key(practice, "preference")),
        rationale=state.get(_key(practice, "rationale")),
        aspect_marks=marks,
    )
    try:
        _record_practice(account_id, step, practice, entered)
    except TrainingError as error:
        st.error(plain_lines(error))
        return
    st.rerun()


def _draw_context(
    aspects: list[dict[str, Any]],
    narrative: str,
    profile: list[dict[str, Any]],
    step: TrainingStep,
) -> None:
    tabs = st.tabs(["What this user expects", "What the user told us", "Posts", "How to rate"])
    tabs[0].markdown(pair_context.rubric_markdown(aspects) or "-")
    tabs[1].markdown(inert_markdown(narrative) or "-")
    tabs[2].markdown(pair_context.profile_markdown(profile) or "-")
    tabs[3].markdown(_how_to_rate(step))


def _how_to_rate(step: TrainingStep) -> str:
    """The study's guidelines and what each question means (the practice's "How to rate" tab,
    and the text a wrong comprehension answer points to)."""
    parts = [inert_markdown(step.guidelines)] if step.guidelines else []
    parts += [
        f"**{inert_markdown(q.label)}**: {inert_markdown(q.text)}"
        for q in step.questionnaire.questions
    ]
    if step.aspect_checklist:
        parts.append(f"**The aspect checklist**: {aspect_checklist.HELP}")
    if step.ask_preference:
        parts.append(
            "**Which response fits this user better**: from *A much better* to *B much "
            "better*, judged for this user" + ("." if step.rationale == "off" else ", and why.")
        )
    return "\n\n".join(parts)


def _draw_feedback(_study: str, feedback: PracticeFeedback, labels: dict[str, str]) -> None:
    st.title(f"Practice pair {feedback.number}: feedback")
    matched = sum(line.matches for line in feedback.lines)
    scores_only = all(line.dimension in labels for line in feedback.lines)
    what = "scores" if scores_only else "answers"
    st.markdown(f"Your {what} matched **{matched} of {len(feedback.lines)}** expected {what}.")
    rows = "\n".join(
        f"| {_question(line, labels)} | {line.side or '-'} | {_answer(line, line.yours)} | "
        f"{_answer(line, line.expected)} | {'yes' if line.matches else 'no'} |"
        for line in feedback.lines
    )
    with st.container(key="practice_feedback"):
        # Short headers: they stay whole words in a phone's narrow columns.
        st.markdown(
            "| question | side | yours | expected | same |\n| --- | --- | --- | --- | --- |\n"
            + rows
        )
        for key, label in [*labels.items(), *_MORE.items()]:
            if key in feedback.explanations:
                text = inert_markdown(feedback.explanations[key])
                st.markdown(f"**Why ({inert_markdown(label)})**: {text}")
    if st.button("Continue", type="primary", key=CONTINUE, icon=":material/arrow_forward:"):
        st.session_state.pop(FEEDBACK, None)
        st.rerun()


_MORE = {"aspects": "the aspect checklist", "preference": "which response fits better"}


def _question(line: FeedbackLine, labels: dict[str, str]) -> str:
    if line.dimension == "preference":
        return "Which fits better"
    if line.dimension.startswith("aspect "):
        return line.dimension.capitalize()  # 'Aspect 2'
    return inert_markdown(labels.get(line.dimension, line.dimension))


def _answer(line: FeedbackLine, value: int) -> str:
    if line.dimension == "preference":
        return PREFERENCE_WORDS.get(value, str(value))
    if line.dimension.startswith("aspect "):
        return f"{value} · {COVERAGE_WORDS.get(value, '')}"
    return str(value)


# ---------------------------------------------------------------- comprehension check


def _draw_check(account_id: int, step: TrainingStep) -> None:
    st.title("A few questions about the task")
    st.markdown(
        f"Answer every question to start the real pairs. Attempts left: **{step.attempts_left}** "
        f"of {step.attempts}."
    )
    failed = st.session_state.pop(CHECK_RESULT, None)
    with st.expander("How to rate the pairs", expanded=bool(failed), icon=":material/menu_book:"):
        st.markdown(_how_to_rate(step))
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
        st.error(plain_lines(error))
        return
    if result.status == "passed":
        st.session_state[NOTICE] = "Training passed. Thank you: the real pairs start now."
    if result.status == CHECK:
        st.session_state[CHECK_RESULT] = (
            f"Not quite: {_questions(result.wrong)} not answered correctly. The task is "
            "explained under **How to rate the pairs** above; please read it again. Attempts "
            f"left: {result.attempts_left}."
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
