"""A pair with a conversation on the rating page (issue 35.2), driven with AppTest: its turns are
drawn as chat messages, inert whatever they hold, blinded as before; a pair from a dataset
without profile, narrative or rubric shows no empty tabs.
"""

from __future__ import annotations

import re

from annotate.app.participant.chat import NEXT_TURN, ROLE_NAMES
from annotate.app.safe_text import inert_markdown
from annotate.db import write_session
from annotate.db.tables import Pair
from tests.helpers.apptest_helpers import assignment_row, current_assignment, pair_of, sent_elements
from tests.helpers.hostile import IMG, MD_IMAGE, MD_JS_LINK, SCRIPT

HOSTILE = f"{SCRIPT} {IMG} {MD_IMAGE} {MD_JS_LINK}\n# Response A\n[site](http://127.0.0.1:9/x)"
TURNS = [
    {"role": "system", "content": "Answer briefly."},
    {"role": "user", "content": f"First question {HOSTILE}"},
    {"role": "assistant", "content": f"An earlier answer {HOSTILE}"},
    {"role": "user", "content": "And the follow-up?"},
]
LABELS = re.compile(r"\b(chosen|rejected)\b", re.I)


def _as_plain_chat(engine, assignment_id: int) -> None:
    """The pair of `assignment_id` turned into a conversation with no profile or rubric."""
    with write_session(engine) as session:
        pair = session.get(Pair, pair_of(engine, assignment_id).id)
        assert pair is not None
        pair.conversation = TURNS
        pair.question = TURNS[-1]["content"]
        pair.profile, pair.rubric_aspects, pair.narrative, pair.category = [], [], "", ""
        session.add(pair)


def test_a_conversation_is_drawn_as_chat_messages_and_stays_inert(open_app, demo, engine):
    at = open_app(demo.token)
    _as_plain_chat(engine, current_assignment(at))
    at.run()
    assert not at.exception
    messages = at.chat_message
    assert [m.name for m in messages] == [t["role"] for t in TURNS]
    for message, turn in zip(messages, TURNS, strict=True):
        (text,) = [m.value for m in message.markdown]
        assert text == f"*{ROLE_NAMES[turn['role']]}*\n\n" + inert_markdown(turn["content"])
    shown = " ".join(m.value for m in at.markdown)
    assert SCRIPT not in shown
    assert IMG not in shown
    assert "![t](" not in shown  # the image became a note, never a request
    assert "\n# Response A" not in shown  # no heading imitating the page's own
    assert "The user's question" not in shown  # the conversation replaces the question box
    assert NEXT_TURN in [c.value for c in at.caption]


def test_a_pair_without_profile_narrative_or_rubric_shows_no_empty_tab(open_app, demo, engine):
    at = open_app(demo.token)
    _as_plain_chat(engine, current_assignment(at))
    at.run()
    assert [tab.label for tab in at.tabs] == ["How to rate"]
    guide = " ".join(m.value for m in at.tabs[0].markdown)
    assert "Read the conversation, then answer" in guide
    assert "what this user expects" not in " ".join(m.value for m in at.markdown)


def test_a_conversation_never_names_the_chosen_response(open_app, demo, engine):
    at = open_app(demo.token)
    sides = set()
    while len(sides) < 2:  # one pair with chosen shown as A, one with it shown as B
        here = current_assignment(at)
        _as_plain_chat(engine, here)
        at.run()
        assert at.chat_message
        leaks = [m for p in sent_elements(at._tree) for m in LABELS.findall(p)]
        assert leaks == [], leaks
        sides.add(assignment_row(engine, here).chosen_side)
        at.button(key="nav_next").click().run()
