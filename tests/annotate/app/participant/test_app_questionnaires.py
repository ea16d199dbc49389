"""Other questionnaires on the rating page (issue 35.1): a study with three questions (a choice
`describe` and two scales) and one with six are rated on the page and exported; the stored
`Rating` rows and the export's rows are what was entered, and the page never names the chosen
response. A new question is added through the settings file only and rated.

The expected rows are computed here from first principles (side + where chosen is shown ->
response), not with the product's own mapping.
"""

from __future__ import annotations

import re

import pytest
import yaml
from sqlmodel import select
from streamlit.testing.v1 import AppTest

from annotate.db import read_session, write_session
from annotate.db.tables import Study
from annotate.domain.study.permissions import SYSTEM
from annotate.domain.study.studies import get_study
from annotate.questionnaire import TEMPLATES, parse_questionnaire
from annotate.services.admin import data as data_service
from annotate.services.admin.study_settings import import_settings
from annotate.services.results.reporting import study_ratings, study_report
from tests.helpers.apptest_helpers import (
    PAIR_TOKEN,
    assignment_row,
    sent_elements,
    stored_scores,
)

LEAKS = re.compile(r"\b(chosen|rejected)\b", re.I)

THREE = {
    "questions": [
        {
            "key": "tone",
            "label": "Tone",
            "text": "Which tone does the response take?",
            "choices": ["Warm", "Neutral", "Cold"],
        },
        {"key": "style", "label": "Style", "text": "How well written?", "role": "tie"},
        {
            "key": "fit",
            "label": "Fit for this user",
            "text": "How well does it fit?",
            "points": [1, 2, 3, 4, 5, 6, 7],
            "anchors": {1: "Not at all", 7: "Perfectly"},
            "role": "diverge",
        },
    ]
}
SIX = {
    "questions": [
        {"key": f"q{n}", "label": f"Question {n}", "text": f"Asked {n}?", "role": role}
        for n, role in enumerate(["tie", "tie", "diverge", "describe", "tie", "diverge"], 1)
    ]
}
# Different on every question and across sides: a swapped question or side cannot pass.
ANSWERS = {
    "three": {"A": {"tone": 3, "style": 2, "fit": 7}, "B": {"tone": 1, "style": 4, "fit": 2}},
    "six": {
        "A": {"q1": 1, "q2": 2, "q3": 3, "q4": 4, "q5": 5, "q6": 1},
        "B": {"q1": 5, "q2": 4, "q3": 2, "q4": 1, "q5": 3, "q6": 4},
    },
}


def _ask(engine, questionnaire: object) -> None:
    with write_session(engine) as session:
        study = session.exec(select(Study).where(Study.name == "demo")).one()
        study.questionnaire = parse_questionnaire(questionnaire).stored()
        session.add(study)


def _shown(at: AppTest) -> int:
    tokens = [t.value for t in at.text_input if t.key == PAIR_TOKEN]
    assert len(tokens) == 1, tokens
    return int(tokens[0])


def _rate(at: AppTest, answers: dict[str, dict[str, int]]) -> int:
    """Answer every question on both sides by its radio and submit; the pair's id."""
    shown = _shown(at)
    asked = {r.key for r in at.radio if r.key.endswith(f"_p{shown}")}
    wanted = {f"{key}_{side}_p{shown}" for side, given in answers.items() for key in given}
    assert asked == wanted, (asked, wanted)  # one radio per question and side, no other
    for side, given in answers.items():
        for key, value in given.items():
            at.radio(key=f"{key}_{side}_p{shown}").set_value(value)
    (button,) = [b for b in at.button if getattr(b, "form_id", None) == "pair"]
    button.click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return shown


def _expected(chosen_side: str, answers: dict[str, dict[str, int]]) -> dict:
    return {
        ("chosen" if side == chosen_side else "rejected", key): value
        for side, given in answers.items()
        for key, value in given.items()
    }


@pytest.mark.parametrize("name", ["three", "six"])
def test_a_study_with_other_questions_is_rated_on_the_page_and_exported(
    open_app, demo, engine, name
):
    questionnaire = THREE if name == "three" else SIX
    _ask(engine, questionnaire)
    at = open_app(demo.token)
    first = _shown(at)
    tone = next((r for r in at.radio if r.key == f"tone_A_p{first}"), None)
    if name == "three":  # a choice list numbered 1..N: keys 1..N answer it
        assert tone is not None
        assert list(tone.options) == [
            "1\u00a0· Warm",
            "2\u00a0· Neutral",
            "3\u00a0· Cold",
        ]
        fit = at.radio(key=f"fit_B_p{first}")
        assert fit.label == "Response B: Fit for this user"
        assert fit.help == "How well does it fit?"
        assert [o.split("\u00a0")[0] for o in fit.options] == list("1234567")
    seen_sides = set()
    rated = []
    for _ in range(4):  # until both sides have held the chosen response
        protos = sent_elements(at._tree)
        assert [m for p in protos for m in LEAKS.findall(p)] == []
        held = at.session_state._state.filtered_state  # what the page keeps for the browser
        assert LEAKS.findall(repr(held)) == [], held
        rated.append(_rate(at, ANSWERS[name]))
        seen_sides.add(assignment_row(engine, rated[-1]).chosen_side)
        if seen_sides == {"A", "B"}:
            break
    assert seen_sides == {"A", "B"}
    for assignment_id in rated:
        side = assignment_row(engine, assignment_id).chosen_side
        assert stored_scores(engine, assignment_id) == _expected(side, ANSWERS[name])

    export = data_service.export_ratings(engine, SYSTEM, "demo")
    rows = export[export["score"].notna()]
    n_questions = len(questionnaire["questions"])
    assert len(rows) == len(rated) * 2 * n_questions
    assert set(rows["dimension"]) == {q["key"] for q in questionnaire["questions"]}
    for (pair, response), by_key in rows.groupby(["pair_id", "response"]):
        given = {k: int(v) for k, v in zip(by_key["dimension"], by_key["score"], strict=True)}
        side = by_key["side"].iloc[0]
        assert given == ANSWERS[name][side], (pair, response)

    # ... and the report reads the same questions with their roles (issue 35.1, end to end)
    report = study_report(study_ratings(engine, "demo"), mixed=False, domains=False)
    asked = parse_questionnaire(questionnaire)
    assert list(report["dimensions"]) == [q.key for q in asked.questions if q.is_scale]
    listed = report["questionnaire"]["questions"]
    assert [(q["key"], q["role"]) for q in listed] == [(q.key, q.role) for q in asked.questions]
    if name == "three":
        counts = report["choices"]["tone"]["counts"]
        assert sum(counts["chosen"]) == sum(counts["rejected"]) == len(rated)


def test_a_new_question_is_added_by_the_settings_file_only_and_rated(
    open_app, demo, engine, tmp_path
):
    """No code file touched: the benchmark's four dimensions and a fifth, `clarity`, given in a
    settings file, are asked on the page and stored."""
    prb = TEMPLATES["prb"].stored()["questions"]
    clarity = "    - {key: clarity, label: Clarity, text: Is it easy to follow?, role: tie}\n"
    text = "questionnaire:\n  questions:\n"
    text += "".join(
        "    - " + yaml.safe_dump(q, default_flow_style=True, width=10_000) for q in prb
    )
    text += clarity
    path = tmp_path / "five.yaml"
    path.write_text(text, encoding="utf-8")
    import_settings(engine, SYSTEM, "demo", str(path), path.read_bytes())
    with read_session(engine) as session:
        asked = parse_questionnaire(get_study(session, "demo").questionnaire)
    assert asked.keys == ("factuality", "relevance", "helpfulness", "rubric_alignment", "clarity")
    at = open_app(demo.token)
    answers = {
        "A": {"factuality": 1, "relevance": 2, "helpfulness": 3, "rubric_alignment": 4},
        "B": {"factuality": 5, "relevance": 4, "helpfulness": 2, "rubric_alignment": 1},
    }
    answers["A"]["clarity"], answers["B"]["clarity"] = 5, 3
    first = _rate(at, answers)
    side = assignment_row(engine, first).chosen_side
    assert stored_scores(engine, first) == _expected(side, answers)
