"""A pair's conversation drawn as a chat: each earlier turn in a chat bubble (the user's and the
assistant's), the compared responses below it as the assistant's next turn, A and B.

Every turn comes from the dataset, so its text is made inert (`safe_text.inert_markdown`); the
role names are the page's own words, never the dataset's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import streamlit as st

from annotate.app.safe_text import inert_markdown

CONVERSATION = "conversation"
ROLE_NAMES = {"user": "User", "assistant": "Assistant", "system": "Instructions to the assistant"}
AVATARS = {
    "user": ":material/person:",
    "assistant": ":material/smart_toy:",
    "system": ":material/settings:",
}
NEXT_TURN = "The assistant's next turn, written two ways: **Response A** and **Response B** below."


def draw_conversation(turns: Sequence[Mapping[str, str]]) -> None:
    """The turns before the compared responses, oldest first, in a scroll box."""
    with st.container(key=CONVERSATION, border=True):
        st.markdown("**The conversation so far**")
        for turn in turns:
            role = turn.get("role", "user")
            role = role if role in ROLE_NAMES else "user"
            with st.chat_message(role, avatar=AVATARS[role]):
                st.markdown(f"*{ROLE_NAMES[role]}*\n\n" + inert_markdown(turn.get("content", "")))
        st.caption(NEXT_TURN)
