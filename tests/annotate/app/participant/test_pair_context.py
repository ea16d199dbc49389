"""The pair's context as the annotator reads it (annotate/app/participant/pair_context.py)."""

from __future__ import annotations

from annotate.app.participant.pair_context import profile_markdown, rubric_markdown


def test_a_rubric_aspect_shows_its_evidence_and_reason_when_the_dataset_gives_them():
    shown = rubric_markdown(
        [{"aspect": "Mentions humidity", "evidence": "Keeps ferns", "reason": "Dry air"}]
    )
    assert shown == (
        "1. **Mentions humidity**  \n   Evidence: Keeps ferns  \n   Why it matters: Dry air"
    )


def test_an_empty_evidence_or_reason_leaves_no_label_with_nothing_after_it():
    shown = rubric_markdown(
        [
            {"aspect": "Mentions humidity", "evidence": "", "reason": "  "},
            {"aspect": "Short", "evidence": None, "reason": "Asked for brevity"},
        ]
    )
    assert "Evidence" not in shown
    assert shown.count("Why it matters") == 1
    assert shown.startswith("1. **Mentions humidity**\n2. **Short**  \n")


def test_our_own_labels_are_not_in_italics():
    """The italic face is a font file of its own (139 KB): a label of ours in italics would
    fetch it on every first open. A dataset's own emphasis stays (inert Markdown keeps it)."""
    rubric = rubric_markdown([{"aspect": "Humid", "evidence": "Ferns", "reason": "*Dry* air"}])
    posts = profile_markdown([{"category": "garden", "text": "I keep ferns."}])
    assert "*Evidence" not in rubric
    assert "Evidence:*" not in rubric
    assert "*Why it matters" not in rubric
    assert "*Dry* air" in rubric  # the dataset's emphasis
    assert posts == "- **garden**: I keep ferns."
