"""Dataset text (a response, a turn, a profile post, a rubric aspect) as a tree of plain nodes
for the pair component: Markdown parsed here, on the server, and sent as data that the
browser builds with `document.createElement` and `createTextNode` only (`pair.js`), never as
HTML. So nothing in the text can run, load or style anything, whatever it holds:

- a node is `[tag, children]` with `tag` one of `TAGS` (the script refuses any other); a child
  is a node or a string (text, shown as its characters);
- raw HTML is text (the parser's `html` option is off), a link is its words (no address is
  sent), an image is "[image: description]" (nothing to load), a heading a bold paragraph (the
  page's own headings cannot be imitated), code its characters in `pre` / `code`.
"""

from __future__ import annotations

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


@lru_cache(maxsize=512)
def _tree(text: str) -> tuple[Node, ...]:
    root = SyntaxTreeNode(_PARSER.parse(text))
    return tuple(_nodes(root.children))


def text_tree(text: str) -> list[Node]:
    """The blocks of `text` (Markdown) as nodes (see the module's docstring)."""
    return list(_tree(str(text)))


def _nodes(children: list[SyntaxTreeNode]) -> list[Node]:
    out: list[Node] = []
    for child in children:
        out += _node(child)
    return out


def _node(node: SyntaxTreeNode) -> list[Node]:
    kind = node.type
    if kind == "inline":
        return _nodes(node.children)
    if kind in ("text", "html_inline", "html_block"):
        return [node.content]
    if kind == "softbreak":
        return ["\n"]
    if kind == "hardbreak":
        return [["br", []]]
    if kind == "hr":
        return [["hr", []]]
    if kind == "code_inline":
        return [["code", [node.content]]]
    if kind in ("code_block", "fence"):
        return [["pre", [["code", [node.content]]]]]
    if kind == "image":
        words = "".join(c.content for c in node.children if c.type == "text")
        return [f"[image: {words or 'no description'}]"]
    if kind == "heading":
        return [["p", [["strong", _nodes(node.children)]]]]
    tag = _SAME.get(kind)
    if tag is None:  # anything this list does not know: its words only
        return _nodes(node.children) if node.children else [node.content or ""]
    return [[tag, _nodes(node.children)]]
