"""Spans without a browser: the placed text tree (`text_tree.placed_tree`) gives every shown
text its place in the stored text, and the component's Submit event's spans are read as
untrusted (`pair_view`)."""

from __future__ import annotations

from typing import Any

import pytest

from annotate.app.participant.pair_component.text_tree import placed_tree, shown_between, text_tree
from annotate.app.participant.pair_view import _spans
from annotate.domain.rating.spans import MAX_SPANS
from tests.helpers import hostile

TEXTS = [
    "Start with **bold words** here.\n\n- first item\n- second item\n",
    "```python\nx = 1  # code\n```\n\n> quoted\n> lines\n",
    "1. one\n2. two\n   ```\n   indented code\n   ```\n",
    "AT&amp;T &copy; \\*not em\\* and `code` ![alt](x.png) [words](http://x.example/)",
    "| a | b |\n|---|---|\n| 中文 | مرحبا |\n",
    "crlf line\r\nnext line\r\n\r\n- item\r\n",
    f"{hostile.CJK} {hostile.EMOJI} {hostile.ARABIC}\n\n{hostile.IMG} {hostile.SCRIPT}",
    "# Heading\n\nText under *it*.",
]


def _runs(nodes: list[Any]) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    for node in nodes:
        if isinstance(node, list) and node[0] == "#":
            out.append((node[1], node[2]))
        elif isinstance(node, list):
            out += _runs(node[1])
    return out


def _plain(nodes: list[Any]) -> list[Any]:
    """The placed tree with its places taken off: the plain tree's shape."""
    out: list[Any] = []
    for node in nodes:
        if isinstance(node, list) and node[0] == "#":
            item: Any = node[1]
        elif isinstance(node, list):
            item = [node[0], _plain(node[1])]
        else:
            item = node
        if isinstance(item, str) and out and isinstance(out[-1], str):
            out[-1] += item
        else:
            out.append(item)
    return out


@pytest.mark.parametrize("text", TEXTS)
def test_every_placed_text_is_the_stored_text_at_its_place_in_reading_order(text):
    runs = _runs(placed_tree(text))
    assert runs, "nothing placed"
    for shown, at in runs:
        assert text[at : at + len(shown)] == shown
    places = [at for _, at in runs]
    assert places == sorted(places)  # a selection's first and last characters bound it
    ends = [at + len(shown) for shown, at in runs]
    assert all(end <= start for end, start in zip(ends, places[1:], strict=False))


@pytest.mark.parametrize("text", TEXTS)
def test_the_placed_tree_shows_what_the_plain_tree_shows(text):
    assert _plain(placed_tree(text)) == _plain(text_tree(text))


def test_text_the_parser_made_has_no_place():
    """An entity's character has no place (its first character, '&', does); an image's
    words are the page's own."""
    assert placed_tree("AT&amp;T &copy; ![alt](x.png)") == [
        ["p", [["#", "AT&", 0], ["#", "T ", 7], "©", ["#", " ", 15], "[image: alt]"]]
    ]


def test_shown_between_gives_the_words_of_a_stored_slice():
    text = TEXTS[0]
    start, end = text.index("bold"), text.index("here") + 4
    assert text[start:end] == "bold words** here"
    assert shown_between(placed_tree(text), start, end) == "bold words here"
    start, end = text.index("item"), text.index("second") + 6
    assert shown_between(placed_tree(text), start, end) == "itemsecond"


def test_the_events_spans_are_read_as_untrusted():
    sent = {
        "A": [[1, 4, "rubric"], ["1", 4, "rubric"], [True, 4, "x"], {"start": 1}, [1, 2]],
        "B": [[0, 1, "error"]] * (MAX_SPANS + 10),
        "C": [[0, 1, "error"]],
    }
    spans = _spans(sent)
    assert set(spans) == {"A", "B"}  # sides only
    assert spans["A"] == [(1, 4, "rubric")] + [(-1, -1, "")] * 4  # refused by the save path
    assert len(spans["B"]) == MAX_SPANS + 1  # one past the limit: refused by the save path
    assert _spans("not a mapping") == {"A": [], "B": []}
