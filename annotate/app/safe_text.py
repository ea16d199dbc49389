"""Untrusted text (responses, profiles, rubric) made inert before Streamlit renders it.

Markdown may render (emphasis, lists), but nothing from a dataset may run or load: HTML is shown
as text, and images (which would load an external URL) become a plain "[image: ...]" note.
Streamlit's Markdown without `unsafe_allow_html` already refuses raw HTML; this is a second
layer that does not depend on that.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from annotate.markup import markdown_cell, markdown_text

_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_REFERENCE_IMAGE = re.compile(r"!\[([^\]]*)\]\[[^\]]*\]")
_HTML_SPECIALS = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
# Any image the two patterns above miss (a label with nested brackets, a shortcut reference
# `![x]` with `[x]: URL` elsewhere, a `<URL>` destination) still starts with "![": escaping
# that "!" turns it into a plain link. An even run of backslashes before it escapes only
# itself, so one more is added; "$" (LaTeX) is escaped the same way.
_IMAGE_START = re.compile(r"(\\*)!(?=\[)")
_DOLLAR = re.compile(r"(\\*)\$")
# A heading line (ATX "# x", also inside a quote or a list item) and a setext underline.
_ATX_HEADING = re.compile(
    r"^((?:[ \t]*>)*[ \t]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?)#{1,6}(?:[ \t]+|$)(.*)$"
)
_CLOSING_HASHES = re.compile(r"[ \t]+#+[ \t]*$")
_SETEXT_UNDERLINE = re.compile(r"^[ ]{0,3}(?:=+|-+)[ \t]*$")
_LIST_OR_QUOTE = re.compile(r"^[ \t]*(?:>|[-*+][ \t]|\d{1,9}[.)][ \t])")
_FENCE = re.compile(r"^[ ]{0,3}(`{3,}|~{3,})")


def _escape(pattern: re.Pattern[str], char: str, text: str) -> str:
    def one(match: re.Match[str]) -> str:
        slashes = match.group(1)
        return slashes + ("\\" if len(slashes) % 2 == 0 else "") + char

    return pattern.sub(one, text)


def _bold(text: str) -> str:
    text = _CLOSING_HASHES.sub("", text).strip()
    return f"**{text}**" if text else ""


def _plain_paragraph_line(line: str) -> bool:
    """Could a setext underline turn this line into a heading (not blank, a list or a quote)?"""
    return bool(line.strip()) and not _LIST_OR_QUOTE.match(line)


def demote_headings(text: str) -> str:
    """Headings become bold lines, so dataset text can never imitate the page's own headings.

    ATX headings (`# Response B`, also in quotes and list items) and setext headings (a line
    underlined with `===` or `---`); code blocks are left as they are. A `---` after a blank line
    stays a rule.
    """
    lines = text.split("\n")
    out: list[str] = []
    fence = ""
    demoted = -1
    for line in lines:
        opened = _FENCE.match(line)
        if fence:
            fence = (
                ""
                if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence)
                else fence
            )
            out.append(line)
            continue
        if opened:
            fence = opened.group(1)
            out.append(line)
            continue
        heading = _ATX_HEADING.match(line)
        if heading and not line.startswith(("    ", "\t")):
            out.append(heading.group(1) + _bold(heading.group(2)))
            demoted = len(out) - 1
        elif _SETEXT_UNDERLINE.match(line) and out and _plain_paragraph_line(out[-1]):
            if demoted != len(out) - 1:  # (a demoted "# x" is a bold line already)
                out[-1] = _bold(out[-1])
            out.append("")  # the underline would make a bold line a heading again
        else:
            out.append(line)
    return "\n".join(out)


def inert_markdown(text: str) -> str:
    """Markdown that renders the text's formatting but cannot run, load or inject HTML.

    Headings are demoted to bold lines (`demote_headings`).
    """
    text = demote_headings(text)
    text = _IMAGE.sub(lambda m: f"[image: {m.group(1) or 'no description'}]", text)
    text = _REFERENCE_IMAGE.sub(lambda m: f"[image: {m.group(1) or 'no description'}]", text)
    text = _escape(_IMAGE_START, "!", text)
    text = "".join(_HTML_SPECIALS.get(ch, ch) for ch in text)
    # "$" starts LaTeX in Streamlit's Markdown; money amounts should stay money amounts.
    return _escape(_DOLLAR, "$", text)


def plain_text(text: object) -> str:
    """A name or a person's text (a study name, an annotator, a survey answer, a reason) shown
    as it was typed (`annotate.markup.markdown_text`: a link, an image or a heading renders as
    its own characters)."""
    return markdown_text(text)


def plain_lines(text: object) -> str:
    """`plain_text` line by line, each line kept on a line of its own (a message that lists
    several problems, one a line)."""
    return "  \n".join(plain_text(line) for line in str(text).splitlines())


def table_rows(rows: Iterable[Mapping[str, object]]) -> list[dict[str, str]]:
    """Rows for `st.table`, which renders each header and cell as Markdown and wraps long
    values instead of cutting them (issue 34.5): every one made inert (`markdown_cell`)."""
    return [{markdown_cell(k): markdown_cell(v) for k, v in row.items()} for row in rows]
