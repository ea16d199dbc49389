"""The pair drawn by our own component (issue 36): one Streamlit v2 component (no iframe, plain
HTML, CSS and script: `pair.js`, `pair.css`) draws a blinded pair's context, Response A and
Response B, the study's questions for each, the comment, the flag, the skip and Submit, and
sends back one event with what was entered and the pair it was drawn for; the direct
preference (by side only) and its rationale, and the aspect checklist (`assets/aspects.js`, an
ES module pair.js imports from the same folder), when the study asks for them; the spans
marked in each response with the study's span labels (by side, in code points of the stored
text: the responses' trees are placed, `text_tree.placed_tree`).

What it receives (`pair_data`) is built from the blinded `PairView` only: the texts under the
names A and B, the study's questions, what was saved under the same sides, the page's own words.
No role, no pair or response id but the assignment's (which says nothing of the sides). Dataset
text goes as a tree of plain nodes (`text_tree`): the script builds it with DOM calls, never as
HTML. The element has one key for every pair, so the next pair is new data for the same element,
not a new element (no remount).

The next pair is held (issue 36.2): a second, hidden element of ours (`draw_held`, the script
`held.js`) is given the data of the pair after this one at the end of the run, built the same
way (`pair_data`: as blinded), so the script builds it off-screen and shows it the moment the
server names it the current pair, that is once the submit of this one is stored.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import streamlit as st
from streamlit.components.v2.get_bidi_component_manager import get_bidi_component_manager
from streamlit.components.v2.manifest_scanner import ComponentConfig, ComponentManifest

from annotate.app.participant import aspect_checklist
from annotate.app.participant.chat import ROLE_NAMES
from annotate.app.participant.pair_component.text_tree import placed_tree, text_tree
from annotate.domain.rating.aspects import aspect_text
from annotate.domain.rating.preference import MAX_RATIONALE_CHARS
from annotate.domain.rating.queue import PairView
from annotate.questionnaire import Question
from annotate.vocabulary import (
    COVERAGE_POINTS,
    COVERAGE_WORDS,
    PREFERENCE_POINTS,
    PREFERENCE_WORDS,
    SIDES,
)

HERE = Path(__file__).resolve().parent  # the package root of the component's assets
KEY = "pair_component"  # the element's key: the same for every pair
PRACTICE_KEY = "practice_component"  # the training's practice pairs' element
EVENT = "event"  # the trigger the script sets on Submit or Skip
HELD_KEY = "pair_held"  # the hidden element that carries the next pair (`draw_held`)


PROJECT = "prb_annotate"
NAME = f"{PROJECT}.pair"  # a packaged component's name: "<project>.<component>"
HELD_NAME = f"{PROJECT}.held"  # the next pair's carrier (held.js)
ASSETS = "assets"  # pair.js, its modules and pair.css, served by Streamlit from this folder only
PAIR_IMPORTS = ("dom.js", "outbox.js", "spans.js", "aspects.js")  # pair.js's static imports
# The files a first open needs, as Streamlit serves them (`/_stcore/bidi-components/<name>/...`),
# named in each page's preload header (`annotate.app.static_compression`).
PRELOADS = (
    (f"{NAME}/pair.js", "rel=modulepreload"),
    *((f"{NAME}/{module}", "rel=modulepreload") for module in PAIR_IMPORTS),
    (f"{NAME}/held.js", "rel=modulepreload"),
    (f"{HELD_NAME}/held.js", "rel=modulepreload"),
    (f"{NAME}/pair.css", "rel=preload; as=style"),
)


def _mount() -> Callable[..., Any]:
    """The component's mounting command, its files registered with this process's runtime.

    Its script is served as a file of the app's own origin (`/_stcore/bidi-components/...`),
    not given inline: Streamlit loads an inline component script from a `blob:` address, which
    the app's Content-Security-Policy refuses (`annotate.app.security_headers`). A package
    declares such files in its pyproject.toml; the app registers the same declaration itself,
    so it does not depend on how it was installed."""
    return _registered(get_bidi_component_manager())[0]


def _mount_held() -> Callable[..., Any]:
    """The carrier's mounting command (registered with the pair's)."""
    return _registered(get_bidi_component_manager())[1]


def register() -> None:
    """Register the component's files with the running server's runtime (at its start:
    `annotate.app.launch`); a session's draw then finds them registered."""
    _registered(get_bidi_component_manager())


@cache
def _registered(manager: Any) -> tuple[Callable[..., Any], Callable[..., Any]]:
    configs = [ComponentConfig(name=name, asset_dir=ASSETS) for name in ("pair", "held")]
    manager.register_from_manifest(
        ComponentManifest(name=PROJECT, version="1", components=configs), HERE
    )
    pair = st.components.v2.component(
        NAME, html='<div class="prb-pair"></div>', css="pair.css", js="pair.js"
    )
    held = st.components.v2.component(HELD_NAME, html="<div hidden></div>", js="held.js")
    return pair, held


def _options(question: Question) -> list[dict[str, Any]]:
    """A question's answers: its stored value and its words ('' for a point without one)."""
    if question.is_scale:
        return [{"value": v, "words": question.anchors.get(v, "")} for v in question.points]
    return [
        {"value": v, "words": w} for v, w in zip(question.values, question.choices, strict=True)
    ]


def _turns(conversation: Sequence[Mapping[str, str]]) -> list[dict[str, Any]]:
    turns = []
    for turn in conversation:
        role = turn.get("role", "user")
        role = role if role in ROLE_NAMES else "user"
        turns.append(
            {"role": role, "name": ROLE_NAMES[role], "body": text_tree(turn.get("content", ""))}
        )
    return turns


def pair_data(
    view: PairView, sections: Sequence[tuple[str, str]], *, notice: str = "", error: str = ""
) -> dict[str, Any]:
    """What the component is given for one pair (JSON): blinded, as the module's docstring says.
    `sections`: the context's parts as (title, Markdown) in order; `notice`: a save just
    confirmed; `error`: why the last submit of this pair was not saved."""
    scale = view.scale
    assert scale is not None
    return {
        "pair": str(view.assignment_id),
        "category": view.category,
        "question": [] if view.conversation else text_tree(view.question),
        "conversation": _turns(view.conversation),
        "sections": [{"title": t, "body": text_tree(body)} for t, body in sections],
        "responses": [{"side": s, "body": placed_tree(view.responses[s])} for s in SIDES],
        "questions": [
            {"key": q.key, "label": q.label, "text": q.text, "options": _options(q)}
            for q in scale.questionnaire.questions
        ],
        "saved": {
            "scores": {s: dict(view.scores.get(s, {})) for s in SIDES},
            "comment": view.comment,
            "flag": view.flag_reason,
            "marks": _saved_marks(view),
            "spans": {s: [list(mark) for mark in view.spans.get(s, [])] for s in SIDES},
        },
        "aspects": _aspects(view),
        "span_labels": [{"key": s.key, "label": s.label} for s in scale.questionnaire.span_labels],
        "preference": _preference(view),
        "can_skip": view.status != "done",
        "notice": notice,
        "error": error,
    }


def _preference(view: PairView) -> dict[str, Any] | None:
    """The direct preference, by side only, and its rationale box (None: not asked)."""
    scale = view.scale
    if scale is None or not scale.ask_preference:
        return None
    return {
        "options": [{"value": v, "words": PREFERENCE_WORDS[v]} for v in PREFERENCE_POINTS],
        "saved": view.side_preference,
        "rationale": scale.rationale,  # off, optional or required
        "saved_rationale": view.rationale,
        "max_chars": MAX_RATIONALE_CHARS,
    }


def _aspects(view: PairView) -> dict[str, Any] | None:
    """The aspect checklist (`assets/aspects.js`): each rubric aspect's words and the coverage
    points with their words (None: not asked, or no aspects; what was saved is in `saved`)."""
    if not aspect_checklist.asked(view) or not view.rubric_aspects:
        return None
    return {
        "title": aspect_checklist.TITLE,
        "help": aspect_checklist.SCALE_HELP,
        "items": [text_tree(aspect_text(aspect)) for aspect in view.rubric_aspects],
        "options": [{"value": v, "words": COVERAGE_WORDS[v]} for v in COVERAGE_POINTS],
    }


def _saved_marks(view: PairView) -> dict[str, list[int | None]]:
    """The aspect marks saved, by side, one per aspect of the pair (None: not given)."""
    n = len(view.rubric_aspects)
    return {s: (list(view.aspect_marks.get(s, [])) + [None] * n)[:n] for s in SIDES}


def draw_pair(data: dict[str, Any], on_event: Callable[[], None], *, key: str = KEY) -> None:
    """Mount (or update) the component with `data`; `on_event` runs on Submit or Skip, before
    the run that follows (the event: `event_value(key)`). `key`: the element's (the rating
    page's by default; the training's practice pairs have their own)."""
    _mount()(key=key, data=data, on_event_change=on_event)


def draw_held(data: dict[str, Any] | None) -> None:
    """Mount (or update) the hidden carrier with the next pair's `pair_data` (None: no pair is
    held). It sends nothing back."""
    _mount_held()(key=HELD_KEY, data={"held": data})


def event_value(key: str = KEY) -> Any:
    """The event the component with `key` sent with this run (None without one)."""
    state = st.session_state.get(key)
    return state.get(EVENT) if state is not None else None
