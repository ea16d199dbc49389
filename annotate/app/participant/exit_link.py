"""The way back to the crowd platform: a code and a button.

The button is a plain link to the study's completion URL (an https address checked when the
study is saved) with the completed or the screen-out code in it. There is no automatic
redirect: the shipped Content-Security-Policy allows only scripts whose hash it lists, and a
script holding each study's own URL cannot be one of them (issue 24, item 7: the earlier inline
redirect was blocked, and the tab stayed on its URL). A link needs no script and works under the
policy. On the done page the participant may also review their ratings first (issue 22.7), and
opening the link again shows the same page.
"""

from __future__ import annotations

import streamlit as st


def draw_exit(code: str, link: str | None, *, label: str = "Your completion code") -> None:
    st.success(f"{label}: **{code}**")
    st.code(code, language=None)
    if link is None:
        return
    st.markdown(
        "When you are ready, use this button to return to the study platform with your code:"
    )
    st.link_button("Return to the study platform", link, type="primary", icon=":material/logout:")
