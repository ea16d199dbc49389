"""A pair's context as the annotator reads it under the question: what this user expects (the
rubric), what they told us (the narrative), their earlier posts and how to rate, each as inert
Markdown. The rating page's two views and the training's practice pairs drawn by the component
take them from here, so a rubric or a post reads the same wherever it is shown.

Our own words in it are never in italics: the font's italic face is a file of its own (139 KB),
which a first open would fetch for a label (issue 36.2: the throttled first open's bytes); only
a dataset's own emphasis is drawn in italics.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from annotate.app.safe_text import inert_markdown


def count(number: int, noun: str, *, bold: bool = False) -> str:
    """'1 pair', '2 pairs' (the number in bold if asked)."""
    shown = f"**{number}**" if bold else str(number)
    return f"{shown} {noun}{'' if number == 1 else 's'}"


def rubric_title(aspects: Sequence[object]) -> str:
    return f"What this user expects ({count(len(aspects), 'aspect')})"


def rubric_markdown(aspects: Sequence[dict[str, Any]]) -> str:
    """The rubric as a numbered list: each aspect in bold, its evidence and why it matters under
    it (a line left out where the dataset gives none, rather than a label with nothing after)."""
    return "\n".join(_aspect_item(number, aspect) for number, aspect in enumerate(aspects, 1))


def _aspect_item(number: int, aspect: dict[str, Any]) -> str:
    lines = [f"{number}. **{inert_markdown(str(aspect.get('aspect', '')))}**"]
    for label, key in (("Evidence", "evidence"), ("Why it matters", "reason")):
        said = str(aspect.get(key, "") or "").strip()
        if said:
            lines.append(f"   {label}: {inert_markdown(said)}")
    return "  \n".join(lines)


def profile_markdown(items: Sequence[dict[str, Any]]) -> str:
    """All posts as one Markdown list: one element, not one per post (profiles run to 100+)."""
    return "\n".join(
        f"- **{inert_markdown(str(item.get('category', '')))}**: "
        # continuation lines stay inside their list item
        + inert_markdown(str(item.get("text", ""))).replace("\n", "\n  ")
        for item in items
    )


def context_sections(
    *,
    rubric: Sequence[dict[str, Any]],
    narrative: str,
    profile: Sequence[dict[str, Any]],
    how_to_rate: str,
) -> list[tuple[str, str]]:
    """The context's parts under the question, as (title, Markdown), for the component: only
    those the pair has (a plain preference set shows no empty sections), then how to rate."""
    sections = []
    if rubric:
        sections.append((rubric_title(rubric), rubric_markdown(rubric)))
    if narrative:
        sections.append(("What the user told us", inert_markdown(narrative)))
    if profile:
        sections.append((f"Their earlier posts ({len(profile)})", profile_markdown(profile)))
    sections.append(("How to rate", how_to_rate))
    return sections
