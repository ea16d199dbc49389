"""The Flags page shows the spans the annotator marked on a flagged pair (issue 36.3): under
each response (the admin knows the labels), each span's label and the stored text it covers,
as plain text. Driven with AppTest through the real entry script."""

from __future__ import annotations

from sqlmodel import select

from annotate.db import read_session, write_session
from annotate.db.tables import Assignment, Pair, Study
from annotate.domain.assignment import PairSelection
from annotate.domain.study import accounts
from annotate.domain.study.permissions import SYSTEM
from annotate.questionnaire import DEFAULT_QUESTIONNAIRE, parse_questionnaire
from annotate.services.admin import plans
from annotate.services.participant.rating import submit_rating
from tests.helpers.admin_helpers import make_people, make_study
from tests.helpers.hostile import SCRIPT

LABELS = [{"key": "rubric", "label": "Breaks the rubric"}, {"key": "error", "label": "Wrong"}]


def test_a_flagged_pairs_spans_are_shown_by_response(page_engine, open_page):
    make_study(page_engine, "s", pairs=1, overlap=1)
    (a0,) = make_people(page_engine, 1)
    plans.make_plan(page_engine, SYSTEM, study="s", annotators=["a0"], selection=PairSelection())
    with write_session(page_engine) as session:
        study = session.exec(select(Study).where(Study.name == "s")).one()
        study.questionnaire = parse_questionnaire(
            {"template": "prb", "span_labels": LABELS}
        ).stored()
        session.add(study)
        pair = session.exec(select(Pair)).one()
        pair.chosen = f"Good start. {SCRIPT} then a claim."
        pair.rejected = "Plain words, **bold** ones."
        session.add(pair)
    with read_session(page_engine) as session:
        assignment = session.exec(select(Assignment)).one()
    chosen_on = assignment.chosen_side
    rejected_on = "B" if chosen_on == "A" else "A"
    scores = {side: dict.fromkeys(DEFAULT_QUESTIONNAIRE.keys, 3) for side in "AB"}
    spans = {chosen_on: [(12, 58, "error")], rejected_on: [(13, 19, "rubric")]}
    submit_rating(page_engine, annotator_id=a0, assignment_id=assignment.id, scores=scores,
                  seconds=2.0, flag_reason="odd", spans=spans)  # fmt: skip
    with write_session(page_engine) as session:
        token = accounts.create_account(session, "boss", role="admin")[1]
    at = open_page(token, page="admin_flags.py", pick="s")
    assert not at.exception, [e.value for e in at.exception]
    texts = [t.value for t in at.text]
    assert f"Wrong: “{SCRIPT} then a claim”" in texts  # shown as its characters (st.text)
    assert "Breaks the rubric: “**bold”" in texts
    captions = [c.value for c in at.caption]
    assert captions.count("Spans marked by the annotator (1)") == 2
