"""Untrusted text (responses, profiles, rubric) made inert before Streamlit renders it.

Markdown may render (emphasis, lists), but nothing from a dataset may run or load: HTML is shown
as text, and images (which would load an external URL) become a plain "[image: ...]" note.
Streamlit's Markdown without `unsafe_allow_html` already refuses raw HTML; this is a second
layer that does not depend on that.
"""

from __future__ import annotations

import re

_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_REFERENCE_IMAGE = re.compile(r"!\[([^\]]*)\]\[[^\]]*\]")
_HTML_SPECIALS = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
# Any image the two patterns above miss (a label with nested brackets, a shortcut reference
# `![x]` with `[x]: URL` elsewhere, a `<URL>` destination) still starts with "![": escaping
# that "!" turns it into a plain link. An even run of backslashes before it escapes only
# itself, so one more is added; "$" (LaTeX) is escaped the same way.
_IMAGE_START = re.compile(r"(\\*)!(?=\[)")
_DOLLAR = re.compile(r"(\\*)\$")


def _escape(pattern: re.Pattern[str], char: str, text: str) -> str:
    def one(match: re.Match[str]) -> str:
        slashes = match.group(1)
        return slashes + ("\\" if len(slashes) % 2 == 0 else "") + char

    return pattern.sub(one, text)


def inert_markdown(text: str) -> str:
    """Markdown that renders the text's formatting but cannot run, load or inject HTML."""
    text = _IMAGE.sub(lambda m: f"[image: {m.group(1) or 'no description'}]", text)
    text = _REFERENCE_IMAGE.sub(lambda m: f"[image: {m.group(1) or 'no description'}]", text)
    text = _escape(_IMAGE_START, "!", text)
    text = "".join(_HTML_SPECIALS.get(ch, ch) for ch in text)
    # "$" starts LaTeX in Streamlit's Markdown; money amounts should stay money amounts.
    return _escape(_DOLLAR, "$", text)
