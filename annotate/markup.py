"""Text typed by people (study names, survey answers, comments, reasons, annotator names) made
inert in Markdown, shared by the pages, the reports and the published card (no imports).

`markdown_text` escapes every character Markdown, GitHub's autolinks, HTML, LaTeX maths (`$`)
and Streamlit's directives (`:red[...]`) act on, so a link, an image, a heading or a tag shows as
its own characters. `markdown_cell` is the same for a table cell, leaving numbers and fixed
words readable ("<0.001", "-0.52", "rubric_alignment" stay as they are).
"""

from __future__ import annotations

import re

_MARKUP = re.compile(r"([\\`*_\[\]<>!$:|~&{}]|(?<=www)\.)")
_LINE_START = re.compile(r"^(\s*|\s*\d+)([#>+\-=]|(?<=\d)[.)])")
_CELL_MARKUP = re.compile(
    r"([\\`*$|~]|!(?=\[)|\](?=[(\[:])|^\[|<(?=[A-Za-z/!?])|&(?=#?\w+;)|:(?=//)|(?<=www)\.)"
)
_CELL_EMPHASIS = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")


def markdown_text(text: object) -> str:
    """A name or a person's text on one line, every Markdown character escaped; line breaks
    become spaces."""
    flat = " ".join(str(text).split())
    return _LINE_START.sub(r"\1\\\2", _MARKUP.sub(r"\\\1", flat))


def markdown_cell(text: object) -> str:
    """A Markdown table cell that cannot link, load an image, emphasise or open HTML: a
    backslash before `* ` ~ $ |`, before the `!` of `![`, the `]` of `](`, `][` and `]:` and a
    leading `[` (links, images, reference definitions; "Diff [95% CI]" stays), before a `<` or
    `&` that could start HTML, the `:` of `://` and the `.` of `www.` (autolinks), and an `_`
    that could open emphasis; newlines joined."""
    text = _CELL_MARKUP.sub(r"\\\1", str(text).replace("\n", " ").replace("\r", " "))
    return _CELL_EMPHASIS.sub(r"\\_", text)


def markdown_line(text: object) -> str:
    """`markdown_cell` for a text that starts a line (a table's note): a leading `#`, `>`, `-`,
    `+`, `=` or `1.` is escaped too, so it cannot open a heading, a quote or a list."""
    return _LINE_START.sub(r"\1\\\2", markdown_cell(text).lstrip())
