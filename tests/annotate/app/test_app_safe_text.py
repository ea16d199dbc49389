"""inert_markdown: dataset text may format, but may not run, load or inject anything."""

from __future__ import annotations

import re

import pytest

from annotate.app.safe_text import inert_markdown

# An image that Markdown would still render: "![" not preceded by an odd run of backslashes.
_LIVE_IMAGE = re.compile(r"(?<!\\)(?:\\\\)*!\[")


@pytest.mark.parametrize(
    "text",
    [
        "![t](http://127.0.0.1:9/evil.png)",
        "![a [nested] label](http://127.0.0.1:9/nested.png)",
        "![ref][evil]\n\n[evil]: http://127.0.0.1:9/ref.png",
        "![shortcut]\n\n[shortcut]: http://127.0.0.1:9/shortcut.png",
        "![collapsed][]\n\n[collapsed]: http://127.0.0.1:9/c.png",
        "![angle](<http://127.0.0.1:9/a b.png>)",
        "![t](http://127.0.0.1:9/e.png 'title (with parens)')",
        "\\\\![escaped backslash, live image](http://127.0.0.1:9/x.png)",
        "[![image inside a link](http://127.0.0.1:9/i.png)](http://example.org)",
    ],
)
def test_no_image_syntax_survives(text):
    made = inert_markdown(text)
    assert not _LIVE_IMAGE.search(made), made


@pytest.mark.parametrize(
    "text",
    [
        "<script>window.__pwned=1</script>",
        '<img src=x onerror="window.__pwned=2">',
        '<a href="javascript:alert(1)">x</a>',
        '<iframe src="http://127.0.0.1:9/frame"></iframe>',
    ],
)
def test_html_is_escaped(text):
    made = inert_markdown(text)
    assert "<" not in made
    assert ">" not in made
    assert "&lt;" in made


def test_entities_cannot_be_used_to_smuggle_markup():
    assert inert_markdown("&lt;script&gt;") == "&amp;lt;script&amp;gt;"


def test_dollars_do_not_start_latex_even_after_a_backslash():
    assert inert_markdown("costs $5") == r"costs \$5"
    assert inert_markdown(r"already \$5") == r"already \$5"
    assert inert_markdown("a \\\\$x$") == "a \\\\\\$x\\$"


def test_ordinary_markdown_and_text_are_kept():
    text = "**Bold**, *emphasis*, a [link](https://example.org) and wow! [not an image]"
    assert inert_markdown(text) == text
    for other in ("日本語の質問", "مرحبا بكم", "🎉👍🏽👨‍👩‍👧‍👦"):
        assert inert_markdown(other) == other


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("# Response B", "**Response B**"),
        ("### Your scores ###", "**Your scores**"),
        ("> ## quoted", "&gt; **quoted**"),
        ("- # in a list", "- **in a list**"),
        ("1. ###### deep", "1. **deep**"),
        ("Response A\n==========", "**Response A**\n"),
        ("Your scores\n---", "**Your scores**\n"),
        ("# Response B\n---", "**Response B**\n"),  # no setext heading made of a bold line
        ("#", ""),
    ],
)
def test_headings_in_dataset_text_become_bold_lines(text, shown):
    assert inert_markdown(text) == shown


@pytest.mark.parametrize(
    "text",
    [
        "#hashtag is not a heading",
        "a paragraph\n\n---\n\nafter a rule",  # a rule stays a rule
        "```\n# a comment in code\n```",
        "~~~~\n# code\n~~~~",
        "    # indented code",
        "- item\n---",
    ],
)
def test_what_is_not_a_heading_is_kept(text):
    assert inert_markdown(text) == text
