"""The widgets a pair is scored with, shared by the rating page and the training's practice
pairs: a response in its scroll box under its side's heading, one question of the study's
questionnaire (the scale's points with their anchors, or its numbered choices, by side only),
and the direct preference with its rationale (the aspect checklist's are in
`aspect_checklist`)."""

from __future__ import annotations

from collections.abc import Mapping

import streamlit as st

from annotate.app.safe_text import inert_markdown
from annotate.domain.rating.preference import MAX_RATIONALE_CHARS
from annotate.questionnaire import Question
from annotate.vocabulary import PREFERENCE_POINTS, PREFERENCE_WORDS

PREFERENCE_BOX = "preference_box"  # the container the page script and the style find
RATIONALE_BOX = "rationale"
NBSP = "\u00a0"


def field_key(name: str, assignment_id: int) -> str:
    """The widget key of the rating page's field `name` on one pair: a key of its own for every
    pair, so nothing entered on one pair is shown or sent with another (`name` is the key of
    the container that holds it, the same on every pair)."""
    return f"{name}_p{assignment_id}"


def draw_response(side: str, text: str, key: str) -> None:
    """'Response A' and its text (inert), in a bordered scroll box with widget key `key`."""
    st.subheader(f"Response {side}", anchor=False)
    with st.container(key=key, border=True):
        st.markdown(inert_markdown(text))


def answer_words(question: Question) -> dict[int, str]:
    """A question's stored values with their words: a scale's points with their anchors ('' for
    a point without one), or a choice list numbered 1..N (so keys 1..N answer it too)."""
    if question.is_scale:
        return {v: question.anchors.get(v, "") for v in question.points}
    return dict(zip(question.values, question.choices, strict=True))


def question_radio(side: str, question: Question, key: str) -> None:
    """One question of the study's questionnaire for one response (its role never shown)."""
    score_radio(side, question.label, question.text, answer_words(question), key)


def score_radio(
    side: str, label: str, definition: str, anchors: Mapping[int, str], key: str
) -> None:
    """One score of one response: the scale's points as '4 · Good' (no value chosen: the page
    sets it in session state), the dimension's definition as its help. The point and its dot
    are joined by a no-break space, and so are the anchor's words: a line may break only after
    the dot, never inside the anchor (a phone's narrow choices, issue 34.5)."""
    shown = {v: inert_markdown(anchors.get(v, "")).replace(" ", NBSP) for v in anchors}
    st.radio(
        f"Response {side}: {inert_markdown(label)}",
        list(anchors),
        index=None,
        format_func=lambda v: f"{v}{NBSP}· {shown[v]}" if shown[v] else str(v),
        horizontal=True,
        key=key,
        help=inert_markdown(definition),
    )


def preference_question(rationale: str, key: str, rationale_key: str) -> None:
    """The direct preference, by side only (the page never knows which response is chosen),
    and its rationale box unless the study's rationale is 'off'."""
    with st.container(key=PREFERENCE_BOX):
        st.radio(
            "Which response fits this user better?",
            PREFERENCE_POINTS,
            index=None,  # the value is set in session state by the page
            format_func=PREFERENCE_WORDS.__getitem__,
            horizontal=True,
            key=key,
        )
        if rationale != "off":
            st.container(key=RATIONALE_BOX).text_area(
                f"Why? ({rationale})", key=rationale_key, height=68, max_chars=MAX_RATIONALE_CHARS
            )
