"""The aspect checklist on the rating page (issue 14, item 1), driven with AppTest.

Each rubric aspect gets a 0/1/2 coverage choice per side; the page sends the marks by side and
the server stores them by response (the expected mapping is computed here from the side the
chosen response is shown on). Blinding: nothing the page draws names the chosen response, and
the checklist's widgets are the same whichever side holds it.
"""

from __future__ import annotations

import re

from sqlmodel import select

from annotate.db import read_session, write_session
from annotate.db.tables import AspectMark
from annotate.domain.study.studies import update_study
from tests.helpers.apptest_helpers import (
    assignment_row,
    current_assignment,
    field,
    messages,
    pair_of,
    sent_elements,
    set_scores,
    submit,
)

LABELS = re.compile(r"\b(chosen|rejected|gold)\b", re.I)


def _on(engine) -> None:
    with write_session(engine) as session:
        update_study(session, "demo", aspect_checklist=True)


def _keys(at) -> list[str]:
    return sorted(
        r.key.rsplit("_p", 1)[0] for r in at.radio if r.key and r.key.startswith("aspect_")
    )


def _stored(engine, assignment_id: int) -> dict[tuple[str, int], int]:
    with read_session(engine) as session:
        rows = session.exec(select(AspectMark).where(AspectMark.assignment_id == assignment_id))
        return {(m.response, m.aspect_index): m.coverage for m in rows}


def test_a_study_without_the_checklist_shows_none(open_app, demo):
    at = open_app(demo.token)
    assert _keys(at) == []


def test_every_aspect_is_required_per_side_and_stored_by_response(open_app, demo, engine):
    _on(engine)
    at = open_app(demo.token)
    first = current_assignment(at)
    n = len(pair_of(engine, first).rubric_aspects)
    assert n >= 2
    assert _keys(at) == sorted(f"aspect_{s}_{i}" for s in "AB" for i in range(n))
    radio = at.radio(key=field(at, "aspect_A_0"))
    assert (radio.label, list(radio.options)) == (
        "Response A, aspect 1",
        ["0 · Not covered", "1 · Partly", "2 · Well"],
    )
    set_scores(at, first)
    submit(at, first)
    (error,) = messages(at.error)
    assert "Aspect 1, Response A" in error
    assert f"Aspect {n}, Response B" in error
    assert assignment_row(engine, first).status == "pending"
    for i in range(n):  # A covers everything well, B nothing except its last aspect partly
        at.radio(key=field(at, f"aspect_A_{i}")).set_value(2)
        at.radio(key=field(at, f"aspect_B_{i}")).set_value(1 if i == n - 1 else 0)
    submit(at, first)
    assert current_assignment(at) != first
    assert _keys(at)
    assert all(r.value is None for r in at.radio if r.key.startswith("aspect_"))
    chosen_on_a = assignment_row(engine, first).chosen_side == "A"
    a, b = ("chosen", "rejected") if chosen_on_a else ("rejected", "chosen")
    expected = {(a, i): 2 for i in range(n)} | {(b, i): int(i == n - 1) for i in range(n)}
    assert _stored(engine, first) == expected
    at.button(key="nav_previous").click().run()  # a revisit shows the marks by side
    assert current_assignment(at) == first
    assert at.radio(key=field(at, "aspect_A_0")).value == 2
    assert at.radio(key=field(at, f"aspect_B_{n - 1}")).value == 1


def test_the_checklist_and_the_page_never_name_the_chosen_response(open_app, demo, engine):
    _on(engine)
    at = open_app(demo.token)
    seen: dict[str, list[tuple[str, list[str]]]] = {}
    while len(seen) < 2:  # one pair with chosen shown as A, one with it shown as B
        here = current_assignment(at)
        side = assignment_row(engine, here).chosen_side
        protos = sent_elements(at._tree)
        assert any("aspect_A_0" in p for p in protos)  # the checklist was walked
        leaks = [m for p in protos for m in LABELS.findall(p)]
        assert leaks == [], leaks
        widgets = [(r.label, list(r.options)) for r in at.radio if r.key.startswith("aspect_")]
        seen.setdefault(side, widgets[:4])
        at.button(key="nav_next").click().run()
    assert seen["A"] == seen["B"]


def test_the_results_page_shows_the_aspect_tables_only_with_the_checklist(open_app, demo, engine):
    import streamlit as st

    from annotate.domain.study import accounts
    from annotate.services.admin.simulated import store_simulated_ratings
    from annotate.vocabulary import Role

    with write_session(engine) as session:
        _, token = accounts.create_account(session, "res", role=Role.RESEARCHER)
    store_simulated_ratings(engine, "demo", n_annotators=2, seed=1, count=True)
    title = "Aspect checklist: chosen vs rejected coverage"
    at = open_app(token, pick="demo")
    assert [m for m in at.metric if m.label == "Pairs"]  # the report is drawn
    assert title not in [e.label for e in at.expander]
    assert not [b for b in at.get("download_button") if "aspects" in str(b.proto.id)]
    _on(engine)
    st.cache_data.clear()
    store_simulated_ratings(
        engine, "demo", n_annotators=3, seed=2, count=True
    )  # sim-03 marks aspects
    at = open_app(token, pick="demo")
    labels = [e.label for e in at.expander]
    assert title in labels
    assert "Aspect checklist: annotators vs LLM judge" in labels
    shown = " ".join(str(df.value.to_dict()) for df in at.dataframe)
    assert "All aspects" in shown
    downloads = [b for b in at.get("download_button") if "download_aspects" in str(b.proto.id)]
    assert len(downloads) == 3  # csv, jsonl, parquet


def test_hostile_aspect_text_is_drawn_inert(open_app, demo, engine):
    from annotate.app.safe_text import inert_markdown
    from tests.helpers.hostile import IMG, MD_IMAGE, SCRIPT

    _on(engine)
    at = open_app(demo.token)
    first = current_assignment(at)
    hostile = f"{SCRIPT} {IMG} {MD_IMAGE} # heading"
    with write_session(engine) as session:
        pair = pair_of(engine, first)
        stored = session.get(type(pair), pair.id)
        stored.rubric_aspects = [{"aspect": hostile, "evidence": "e", "reason": "r"}]
        session.add(stored)
    at.run()
    shown = [m.value for m in at.markdown if hostile[:8] in m.value or "script" in m.value]
    assert f"1. {inert_markdown(hostile)}" in shown
    assert all(SCRIPT not in text for text in shown)
    assert _keys(at) == ["aspect_A_0", "aspect_B_0"]
