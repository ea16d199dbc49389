"""The pair component's server side (issue 36): dataset text as an inert tree of plain nodes,
the event read only for the study's questions by side, the switch that turns the view on."""

from __future__ import annotations

from dataclasses import replace

import pytest

from annotate.app.participant.pair_component.text_tree import TAGS, text_tree
from annotate.app.participant.pair_view import Entered, entered, supported
from annotate.config import RATING_VIEW_ENV, rating_view
from annotate.domain.rating.queue import PairView, StudyScale
from annotate.questionnaire import DEFAULT_QUESTIONNAIRE
from tests.helpers import hostile


def _tags(nodes: list) -> set[str]:
    found: set[str] = set()
    for node in nodes:
        if isinstance(node, list):
            found.add(node[0])
            found |= _tags(node[1])
    return found


def _text(nodes: list) -> str:
    return "".join(n if isinstance(n, str) else _text(n[1]) for n in nodes)


def test_hostile_markdown_becomes_plain_nodes_and_text():
    record = hostile.hostile_record()
    texts = [record["chosen"], record["rejected"], record["narrative"], record["question"]]
    texts += [str(aspect) for aspect in record["rubric_aspects"]]
    texts += [hostile.MD_JS_LINK, hostile.SVG, hostile.IFRAME, hostile.JS_LINK]
    for text in texts:  # only the fixed tags; every character of the text kept as text
        assert _tags(text_tree(text)) <= TAGS, text
    assert _text(text_tree(hostile.SCRIPT)) == hostile.SCRIPT  # raw HTML is its characters
    assert _text(text_tree(hostile.IMG)) == hostile.IMG
    # a javascript: link is not a link (the parser refuses the address): its characters
    assert text_tree(hostile.MD_JS_LINK) == [["p", [hostile.MD_JS_LINK]]]
    assert text_tree(f"[site](http://{hostile.EVIL_HOST}/)") == [["p", [["span", ["site"]]]]]
    assert _text(text_tree(hostile.MD_IMAGE)) == "[image: t]"  # an image loads nothing


def test_markdown_keeps_its_formatting():
    tree = text_tree("# Title\n\nSome **bold** and *em*.\n\n- one\n- two\n\n```\nx = 1\n```")
    assert tree[0] == ["p", [["strong", ["Title"]]]]  # a heading is a bold line
    assert ["strong", ["bold"]] in tree[1][1]
    assert tree[2] == ["ul", [["li", [["p", ["one"]]]], ["li", [["p", ["two"]]]]]]
    assert tree[3] == ["pre", [["code", ["x = 1\n"]]]]


def _view() -> PairView:
    return PairView(
        assignment_id=7,
        number=1,
        total=1,
        done=0,
        status="pending",
        question="q",
        narrative="",
        category="",
        profile=[],
        rubric_aspects=[],
        responses={"A": "a", "B": "b"},
        scale=StudyScale(questionnaire=DEFAULT_QUESTIONNAIRE, guidelines=""),
    )


def test_an_event_is_read_for_the_studys_questions_only():
    view = _view()
    keys = DEFAULT_QUESTIONNAIRE.keys
    event = {
        "pair": "7",
        "scores": {
            "A": {keys[0]: 4, keys[1]: "5", keys[2]: True, "unknown": 3},
            "C": {keys[0]: 1},
            "B": [1, 2],
        },
        "comment": " a comment ",
        "flag": 5,
        "signals": "7:2:0",
    }
    assert entered(event, view) == Entered(
        scores={
            "A": {keys[0]: 4, keys[1]: None, keys[2]: None, keys[3]: None},
            "B": dict.fromkeys(keys),
        },
        comment="a comment",
        flag_reason="",
        signals="7:2:0",
    )
    assert supported(view)


def test_the_view_switch(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv(RATING_VIEW_ENV, raising=False)
    assert rating_view() == "component"  # the default (issue 36, item 5)
    monkeypatch.setenv(RATING_VIEW_ENV, " Streamlit ")
    assert rating_view() == "streamlit"  # the fallback
    monkeypatch.setenv(RATING_VIEW_ENV, " Component ")
    assert rating_view() == "component"
    monkeypatch.setenv(RATING_VIEW_ENV, "react")
    with pytest.raises(ValueError, match="PRB_RATING_VIEW"):
        rating_view()


def test_the_preference_is_read_only_when_asked_and_only_its_points():
    asked = replace(
        _view(),
        scale=StudyScale(
            questionnaire=DEFAULT_QUESTIONNAIRE,
            guidelines="",
            ask_preference=True,
            rationale="optional",
        ),
    )
    for sent, kept in ((2, 2), (-2, -2), (3, None), (True, None), ("1", None), (None, None)):
        event = {"pair": "7", "preference": sent, "rationale": " why "}
        got = entered(event, asked)
        assert (got.side_preference, got.rationale) == (kept, "why")
    plain = entered({"pair": "7", "preference": 2, "rationale": "x"}, _view())
    assert (plain.side_preference, plain.rationale) == (None, None)


def test_the_aspect_marks_are_read_only_when_asked_one_per_aspect():
    """By side, as many as the pair has aspects (a longer list is cut, a shorter one padded
    with None: missing), whole numbers only; None for a study without the checklist."""
    rubric = [{"aspect": "one"}, {"aspect": "two"}, {"aspect": "three"}]
    asked = replace(
        _view(),
        rubric_aspects=rubric,
        scale=StudyScale(questionnaire=DEFAULT_QUESTIONNAIRE, guidelines="", aspect_checklist=True),
    )
    assert supported(asked)
    event = {"pair": "7", "marks": {"A": [2, "1", True, 0], "B": [0], "C": [1, 1, 1]}}
    assert entered(event, asked).aspect_marks == {"A": [2, None, None], "B": [0, None, None]}
    assert entered({"pair": "7", "marks": "2"}, asked).aspect_marks == {
        "A": [None] * 3,
        "B": [None] * 3,
    }
    assert entered(event, replace(asked, scale=_view().scale)).aspect_marks is None


def test_an_events_entry_key_is_passed_on_as_text_only():
    """The outbox's key (issue 36.4) goes to the save as sent (the save checks its shape); a
    missing or non-text key is none, an overlong one cut (and then refused by the save)."""
    view = _view()
    key = "0b6f1c2e-8d4a-4f7e-9a51-3c2d1e0f9a8b"
    assert entered({"pair": "7", "key": key}, view).entry_key == key
    for sent in (None, "", 5, ["k"], {"k": 1}):
        assert entered({"pair": "7", "key": sent}, view).entry_key is None
    assert len(entered({"pair": "7", "key": "k" * 500}, view).entry_key or "") == 100
