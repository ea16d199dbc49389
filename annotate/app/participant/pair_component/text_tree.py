"""Dataset text (a response, a turn, a profile post, a rubric aspect) as a tree of plain nodes
for the pair component: Markdown parsed here, on the server, and sent as data that the
browser builds with `document.createElement` and `createTextNode` only (`pair.js`), never as
HTML. So nothing in the text can run, load or style anything, whatever it holds:

- a node is `[tag, children]` with `tag` one of `TAGS` (the script refuses any other); a child
  is a node or a string (text, shown as its characters);
- in a *placed* tree (`placed_tree`, the responses, where spans are marked) a text that stands
  in the stored text as it is shown is `["#", text, start]`: `start` is the code point of the
  stored text where it begins, and its characters are the stored text's from there on
  (`stored[start:start + len(text)] == text`), so a selection in the page maps back to the
  stored text (`pair.js`). Text the parser made (an entity's character, an image's
  "[image: ...]") stays a plain string: shown, never a span's end.
- raw HTML is text (the parser's `html` option is off), a link is its words (no address is
  sent), an image is "[image: description]" (nothing to load), a heading a bold paragraph (the
  page's own headings cannot be imitated), code its characters in `pre` / `code`.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.tree import SyntaxTreeNode

Node = str | list[Any]  # a string, or [tag, [children]]

TAGS = frozenset(
    {"p", "strong", "em", "s", "code", "pre", "ul", "ol", "li", "blockquote", "br", "hr"}
    | {"table", "thead", "tbody", "tr", "th", "td", "span"}
)
_SAME = {
    "paragraph": "p",
    "strong": "strong",
    "em": "em",
    "s": "s",
    "bullet_list": "ul",
    "ordered_list": "ol",
    "list_item": "li",
    "blockquote": "blockquote",
    "table": "table",
    "thead": "thead",
    "tbody": "tbody",
    "tr": "tr",
    "th": "th",
    "td": "td",
    "link": "span",  # its words only
}
_PARSER = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable(
    ["table", "strikethrough"]
)


WINDOW = 16  # how far past the last placed character a character that is not found whole may be


class _Places:
    """Where the shown texts stand in the stored text: each block starts the search at its
    first line and ends it at its last; a text found whole in its block is one run, else
    each character is looked for at most `WINDOW` characters on (markup, an escape's
    backslash, a list's or quote's indent skipped) and one that is not found stays unplaced.
    The search only moves forward, so places grow in reading order."""

    def __init__(self, stored: str) -> None:
        self.stored = stored
        starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", stored)]
        self.line_starts = [*starts, len(stored)]
        self.cursor = 0
        self.limit = len(stored)

    def enter(self, node: SyntaxTreeNode) -> int:
        """Narrow the search to the block `node`; return the limit to restore after it."""
        before = self.limit
        if node.is_root or node.map is None:
            return before
        first, last = node.map
        lines = self.line_starts
        self.cursor = max(self.cursor, lines[min(first, len(lines) - 1)])
        self.limit = max(self.cursor, lines[min(last, len(lines) - 1)])
        return before

    def place(self, text: str) -> list[Node]:
        at = self.stored.find(text, self.cursor, self.limit) if text else -1
        if at >= 0:
            self.cursor = at + len(text)
            return [["#", text, at]]
        out: list[Node] = []
        for char in text:
            at = self.stored.find(char, self.cursor, min(self.cursor + WINDOW, self.limit))
            if at < 0:
                out.append(char)
                continue
            self.cursor = at + 1
            last = out[-1] if out else None
            if isinstance(last, list) and last[2] + len(last[1]) == at:
                last[1] += char
            else:
                out.append(["#", char, at])
        return _joined(out)


def _joined(nodes: list[Node]) -> list[Node]:
    """Neighbouring unplaced characters as one string."""
    out: list[Node] = []
    for node in nodes:
        if isinstance(node, str) and out and isinstance(out[-1], str):
            out[-1] += node
        else:
            out.append(node)
    return out


@lru_cache(maxsize=512)
def _tree(text: str, placed: bool) -> tuple[Node, ...]:
    root = SyntaxTreeNode(_PARSER.parse(text))
    return tuple(_Walk(_Places(text) if placed else None).nodes(root.children))


def text_tree(text: str) -> list[Node]:
    """The blocks of `text` (Markdown) as nodes (see the module's docstring)."""
    return list(_tree(str(text), False))


def placed_tree(text: str) -> list[Node]:
    """The blocks of `text` as nodes whose texts carry their place in `text` (see the
    module's docstring)."""
    return list(_tree(str(text), True))


def shown_between(tree: list[Node], start: int, end: int) -> str:
    """The characters a placed tree shows from stored places `start` to `end` (a span's
    words as the annotator saw them, markup left out)."""
    out: list[str] = []

    def walk(nodes: list[Node]) -> None:
        for node in nodes:
            if isinstance(node, list) and node[0] == "#":
                text, at = node[1], node[2]
                out.append(text[max(start - at, 0) : max(end - at, 0)])
            elif isinstance(node, list):
                walk(node[1])

    walk(tree)
    return "".join(out)


class _Walk:
    """The syntax tree as nodes; with `places`, texts carry their place in the stored text."""

    def __init__(self, places: _Places | None) -> None:
        self.places = places

    def nodes(self, children: list[SyntaxTreeNode]) -> list[Node]:
        out: list[Node] = []
        for child in children:
            if self.places is None:
                out += self.node(child)
                continue
            limit = self.places.enter(child)
            out += self.node(child)
            self.places.limit = limit
        return out

    def text(self, text: str) -> list[Node]:
        return [text] if self.places is None else self.places.place(text)

    def node(self, node: SyntaxTreeNode) -> list[Node]:
        kind = node.type
        if kind == "inline":
            return self.nodes(node.children)
        if kind in ("text", "html_inline", "html_block", "softbreak"):
            return self.text("\n" if kind == "softbreak" else node.content)
        if kind == "hardbreak":
            return [["br", []]]
        if kind == "hr":
            return [["hr", []]]
        if kind == "code_inline":
            return [["code", self.text(node.content)]]
        if kind in ("code_block", "fence"):
            return [["pre", [["code", self.text(node.content)]]]]
        if kind == "image":
            words = "".join(c.content for c in node.children if c.type == "text")
            return [f"[image: {words or 'no description'}]"]
        if kind == "heading":
            return [["p", [["strong", self.nodes(node.children)]]]]
        tag = _SAME.get(kind)
        if tag is None:  # anything this list does not know: its words only
            return self.nodes(node.children) if node.children else self.text(node.content or "")
        return [[tag, self.nodes(node.children)]]
