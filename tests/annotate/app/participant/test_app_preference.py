"""The direct preference on the rating page (issue 14, item 2), driven with AppTest.

The page asks by side (A much better .. B much better); what is stored is the side answer, and
the export maps it to the responses with the side the chosen response was shown on, computed
here from first principles. Blinding: nothing the page draws names the chosen response, and the
preference widget is the same whichever side holds it.
"""

from __future__ import annotations

import json
import re

import streamlit as st

from analysis.designs.preference import preference_summary
from annotate.db import write_session
from annotate.domain.exports.export import ratings_dataframe
from annotate.domain.study.studies import update_study
from annotate.vocabulary import PROVENANCE_EXPORT_COLUMNS
from tests.helpers.apptest_helpers import (
    assignment_row,
    current_assignment,
    field,
    messages,
    sent_elements,
    set_scores,
    submit,
)

PREFERENCE = "preference"
RATIONALE = "rationale"
LABELS = re.compile(r"\b(chosen|rejected|gold)\b", re.I)


def _ask(engine, rationale: str = "required") -> None:
    with write_session(engine) as session:
        update_study(session, "demo", ask_preference=True, rationale=rationale)


def _widget(at) -> tuple[str, list[str]]:
    radio = at.radio(key=field(at, PREFERENCE))
    return radio.label, list(radio.options)


def test_a_study_without_the_option_shows_no_preference(open_app, demo):
    at = open_app(demo.token)
    assert PREFERENCE not in {r.key for r in at.radio}
    assert RATIONALE not in {t.key for t in at.text_area}


def test_the_preference_is_required_with_its_rationale_and_stored_by_side(open_app, demo, engine):
    _ask(engine)
    at = open_app(demo.token)
    first = current_assignment(at)
    assert _widget(at) == (
        "Which response fits this user better?",
        ["A much better", "A better", "Tie", "B better", "B much better"],
    )
    set_scores(at, first)
    submit(at, first)
    (error,) = messages(at.error)
    assert "Which response fits this user better" in error
    assert "Why (your rationale)" in error
    assert assignment_row(engine, first).status == "pending"
    at.radio(key=field(at, PREFERENCE)).set_value(-2)  # A much better
    at.text_area(key=field(at, RATIONALE)).input("A follows the user's wish for short steps.")
    submit(at, first)
    assert current_assignment(at) != first
    row = assignment_row(engine, first)
    assert (row.status, row.side_preference) == ("done", -2)
    assert row.rationale == "A follows the user's wish for short steps."
    # The export, in terms of the responses: A much better is +2 for chosen when chosen is A.
    frame = ratings_dataframe(engine, "demo")
    mine = frame[frame["preference_side"] == -2]
    assert len(mine) == 8
    expected = 2 if row.chosen_side == "A" else -2
    assert set(mine["preference"]) == {expected}
    design = list(frame.columns[: -len(PROVENANCE_EXPORT_COLUMNS)])
    assert design[-4:] == ["preference", "preference_side", "rationale", "preference_history"]
    assert set(mine["preference_history"]) == {"[]"}  # never revised
    summary = preference_summary(frame)  # the analysis reads the export as it is
    assert summary is not None
    assert summary["forced_choice"]["n_judgements"] == 1
    assert summary["forced_choice"]["n_chosen"] == (1 if row.chosen_side == "A" else 0)


def test_an_optional_rationale_may_stay_empty_and_a_revisit_shows_the_side_answer(
    open_app, demo, engine
):
    _ask(engine, rationale="optional")
    at = open_app(demo.token)
    first = current_assignment(at)
    assert at.text_area(key=field(at, RATIONALE)).label == "Why? (optional)"
    set_scores(at, first)
    at.radio(key=field(at, PREFERENCE)).set_value(1)  # B better
    submit(at, first)
    row = assignment_row(engine, first)
    assert (row.side_preference, row.rationale) == (1, None)
    assert at.radio(key=field(at, PREFERENCE)).value is None  # the next pair starts empty
    at.button(key="nav_previous").click().run()
    assert current_assignment(at) == first
    assert at.radio(key=field(at, PREFERENCE)).value == 1
    assert assignment_row(engine, first).preference_history == []  # a first answer: no history

    at.radio(key=field(at, PREFERENCE)).set_value(-2)  # revised: A much better, now with a reason
    at.text_area(key=field(at, RATIONALE)).input("A fits the rubric.")
    submit(at, first)
    at.button(key="nav_previous").click().run()
    submit(at, first)  # the same answer again: no new history entry
    row = assignment_row(engine, first)
    assert (row.side_preference, row.rationale) == (-2, "A fits the rubric.")
    ((earlier),) = row.preference_history
    assert (earlier["side_preference"], earlier["rationale"]) == (1, None)
    assert earlier["replaced_at"] >= row.created_at.isoformat()[:19]
    # The export gives the history in terms of the responses too: B better is +1 for chosen
    # when chosen is shown as B.
    frame = ratings_dataframe(engine, "demo")
    mine = frame[frame["preference_side"] == -2]
    (exported,) = json.loads(mine["preference_history"].iloc[0])
    assert exported == {
        "preference": 1 if row.chosen_side == "B" else -1,
        "preference_side": 1,
        "rationale": None,
        "replaced_at": earlier["replaced_at"],
    }


def test_the_preference_widget_and_the_page_never_name_the_chosen_response(open_app, demo, engine):
    _ask(engine)
    at = open_app(demo.token)
    seen: dict[str, tuple[str, list[str]]] = {}
    while len(seen) < 2:  # one pair with chosen shown as A, one with it shown as B
        here = current_assignment(at)
        side = assignment_row(engine, here).chosen_side
        protos = sent_elements(at._tree)
        assert any("Which response fits this user better" in p for p in protos)  # walked
        leaks = [m for p in protos for m in LABELS.findall(p)]
        assert leaks == [], leaks
        seen.setdefault(side, _widget(at))
        at.button(key="nav_next").click().run()
    assert seen["A"] == seen["B"]


def test_the_results_page_shows_the_preference_figures_only_when_asked(open_app, demo, engine):
    from sqlmodel import select

    from annotate.db import read_session
    from annotate.db.tables import Assignment
    from annotate.domain.study import accounts
    from annotate.services.participant.rating import submit_rating
    from annotate.vocabulary import Role
    from tests.helpers.apptest_helpers import SCORES

    with write_session(engine) as session:
        _, token = accounts.create_account(session, "res", role=Role.RESEARCHER)
    with read_session(engine) as session:
        rows = session.exec(select(Assignment)).all()
    for item in rows:
        submit_rating(engine, annotator_id=item.annotator_id, assignment_id=item.id,
                      scores=SCORES, seconds=4.0)  # fmt: skip
    at = open_app(token, pick="demo")
    assert [m for m in at.metric if m.label == "Pairs"]  # the report is drawn
    assert "Direct preference" not in [e.label for e in at.expander]
    _ask(engine, rationale="off")
    for item in rows:
        submit_rating(engine, annotator_id=item.annotator_id, assignment_id=item.id,
                      scores=SCORES, seconds=4.0, side_preference=0)  # fmt: skip
    st.cache_data.clear()  # the page caches a report per score count (the scores are unchanged)
    at = open_app(token, pick="demo")
    assert "Direct preference" in [e.label for e in at.expander]
    shown = " ".join(str(df.value.to_dict()) for df in at.dataframe)
    assert "Forced-choice accuracy, strict (ties are not wins)" in shown
    assert f"0 judgements prefer chosen, {len(rows)} are ties" in " ".join(
        c.value for c in at.caption
    )
