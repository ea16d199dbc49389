"""The Flags page shows a flagged pair's conversation as a chat (issue 35.2): the admin reads the
turns the annotator read, inert whatever they hold; a single-turn pair keeps its question box.
Driven with AppTest through the real entry script."""

from __future__ import annotations

from sqlmodel import select

from annotate.app.participant.chat import ROLE_NAMES
from annotate.app.safe_text import inert_markdown
from annotate.db import read_session, write_session
from annotate.db.tables import Assignment, Pair
from annotate.domain.assignment import PairSelection
from annotate.domain.study import accounts
from annotate.domain.study.permissions import SYSTEM
from annotate.services.admin import plans
from annotate.services.participant.rating import skip_pair
from tests.helpers.admin_helpers import make_people, make_study, page_texts
from tests.helpers.hostile import IMG, SCRIPT

TURNS = [
    {"role": "user", "content": f"First question {SCRIPT}"},
    {"role": "assistant", "content": f"An earlier answer {IMG}"},
    {"role": "user", "content": "And the follow-up?"},
]


def _skipped_pair(engine, *, conversation: list[dict[str, str]]) -> str:
    """Study `s` whose one pair a0 skipped, with `conversation`; the admin's token."""
    make_study(engine, "s", pairs=1, overlap=1)
    (a0,) = make_people(engine, 1)
    plans.make_plan(engine, SYSTEM, study="s", annotators=["a0"], selection=PairSelection())
    with write_session(engine) as session:
        pair = session.exec(select(Pair)).one()
        pair.conversation = conversation
        pair.question = conversation[-1]["content"] if conversation else pair.question
        session.add(pair)
    with read_session(engine) as session:
        assignment = session.exec(select(Assignment)).one()
    skip_pair(engine, annotator_id=a0, assignment_id=assignment.id, reason="unclear")
    with write_session(engine) as session:
        return accounts.create_account(session, "boss", role="admin")[1]


def test_a_flagged_conversation_is_shown_as_a_chat_and_stays_inert(page_engine, open_page):
    at = open_page(_skipped_pair(page_engine, conversation=TURNS), page="admin_flags.py", pick="s")
    assert not at.exception, [e.value for e in at.exception]
    assert [m.name for m in at.chat_message] == [t["role"] for t in TURNS]
    for message, turn in zip(at.chat_message, TURNS, strict=True):
        (text,) = [m.value for m in message.markdown]
        assert text == f"*{ROLE_NAMES[turn['role']]}*\n\n" + inert_markdown(turn["content"])
    shown = page_texts(at)
    assert SCRIPT not in shown
    assert IMG not in shown
    assert "**Question**" not in [m.value for m in at.markdown]


def test_a_single_turn_pair_keeps_its_question_box(page_engine, open_page):
    at = open_page(_skipped_pair(page_engine, conversation=[]), page="admin_flags.py", pick="s")
    assert not at.exception, [e.value for e in at.exception]
    assert not at.chat_message
    assert "**Question**" in [m.value for m in at.markdown]
