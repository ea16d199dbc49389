"""The way back to the crowd platform: a code, a visible link, and a redirect after a pause.

The link is the study's completion URL (an https address checked when the study is saved) with
the completed or the screen-out code in it. The redirect is a short script of ours; the link
stays on the page in case the browser blocks it. The done page of the rating page has no
redirect (issue 22.7): the participant may review their ratings first and leaves with the button
when ready, and opening the link again shows the same page.
"""

from __future__ import annotations

import json

import streamlit as st

REDIRECT_SECONDS = 5


def draw_exit(
    code: str,
    link: str | None,
    *,
    label: str = "Your completion code",
    redirect: bool = True,
) -> None:
    st.success(f"{label}: **{code}**")
    st.code(code, language=None)
    if link is None:
        return
    st.markdown(
        f"You will be taken back to the study platform in {REDIRECT_SECONDS} seconds. "
        "If nothing happens, use this button:"
        if redirect
        else "When you are ready, use this button to return to the study platform and finish there:"
    )
    st.link_button("Return to the study platform", link, type="primary", icon=":material/logout:")
    if not redirect:
        return
    target = json.dumps(link).replace("<", "\\u003c")  # never closes the script element
    with st.container(key="prb_redirect"):
        st.html(
            f"<script>setTimeout(() => window.location.assign({target}), "
            f"{REDIRECT_SECONDS * 1000});</script>",
            unsafe_allow_javascript=True,
        )
