"""The Adjudication admin page and the adjudicator's rating page, driven with AppTest (issue
15.3): the threshold is set, the queue lists the disputed pairs, a pair is sent to someone who
never had it, and that person rates it on the ordinary page, blind (nothing on it says the pair
is disputed, how others rated it, or which response is chosen)."""

from __future__ import annotations

import pytest
from sqlalchemy import insert
from sqlmodel import select

from annotate.db import write_session
from annotate.db.tables import Pair
from annotate.domain.assignment import assign_pairs
from annotate.domain.study import accounts
from annotate.domain.study.permissions import SYSTEM
from annotate.domain.study.studies import get_study
from annotate.services.admin import adjudication, flags
from annotate.services.participant.rating import skip_pair
from annotate.vocabulary import FlagAction
from tests.helpers.adjudication_helpers import assignment_of, make_disputed
from tests.helpers.admin_helpers import button, page_texts, pair_row
from tests.helpers.apptest_helpers import (
    current_assignment,
    expected_scores,
    rate_current,
    stored_scores,
)
from tests.helpers.hostile import IMG, MD_IMAGE, SCRIPT


@pytest.fixture
def tokens(page_engine) -> dict[str, str]:
    make_disputed(page_engine)
    with write_session(page_engine) as session:
        return {
            "boss": accounts.create_account(session, "boss", role="admin")[1],
            "a3": accounts.rotate_token(session, "a3"),
            "a0": accounts.rotate_token(session, "a0"),
        }


def test_the_admin_sets_the_threshold_and_sends_a_pair(page_engine, open_page, tokens):
    at = open_page(tokens["boss"], page="admin_adjudication.py", pick="s")
    assert at.title[0].value == "Adjudication: s"
    assert list(at.dataframe[0].value["pair"]) == ["p003"]  # the flag sent to adjudication
    at.toggle(key="adj_threshold_on").set_value(True)
    at.number_input(key="adj_threshold").set_value(2.0)
    button(at, "Save threshold").click().run()
    assert "Adjudication threshold: 2." in page_texts(at)
    table = at.dataframe[0].value
    assert list(table["pair"]) == ["p001", "p003"]
    assert list(table["rubric differences"]) == ["-1 +0 +1", "+1 +1"]
    assert adjudication.queue(page_engine, SYSTEM, "s")[0] == 2

    at.selectbox(key="adj_pair").set_value("p001").run()
    assert at.selectbox(key="adj_who").options == ["a3"]  # a0-a2 had it, a4 is inactive
    button(at, "Send to the adjudicator").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert "Pair p001 sent to a3" in page_texts(at)
    assert list(at.dataframe[0].value["adjudicators"]) == ["a3 (pending)", ""]
    # issue 34.5: beside "sent to a3" it said "No adjudicator can take this pair"
    assert "No adjudicator can take" not in page_texts(at)
    assert "Pair p001 has its adjudicator: a3 (to do)." in page_texts(at)
    assert assignment_of(page_engine, "a3", "p001").purpose == "adjudication"


def test_the_adjudicator_s_done_page_gives_no_crowd_code(page_engine, open_page, tokens):
    """Issue 34.5: in a crowd study, the adjudicator's done page showed the crowd's completion
    code and the button back to the platform; only the crowd's participants get them."""
    with write_session(page_engine) as session:
        study = get_study(session, "s")
        study.completion_code, study.enrolment_key = "CROWD-CODE", "k" * 16
        study.completion_url = "https://app.prolific.com/submissions/complete?cc={code}"
        session.add(study)
    adjudication.set_threshold(page_engine, SYSTEM, study="s", threshold=2)
    adjudication.send(page_engine, SYSTEM, study="s", record_id="p001", adjudicator="a3")
    at = open_page(tokens["a3"])
    rate_current(at)
    assert "All done, thank you!" in [t.value for t in at.title]
    assert "CROWD-CODE" not in page_texts(at)
    assert not at.get("link_button")


def test_an_annotator_cannot_open_the_page(open_page, tokens):
    at = open_page(tokens["a0"])
    with pytest.raises(ValueError, match="Could not find a navigation page"):
        at.switch_page("admin/admin_adjudication.py")


def test_the_adjudicator_rates_the_pair_blind_on_the_ordinary_page(page_engine, open_page, tokens):
    adjudication.set_threshold(page_engine, SYSTEM, study="s", threshold=2)
    adjudication.send(page_engine, SYSTEM, study="s", record_id="p001", adjudicator="a3")
    made = assignment_of(page_engine, "a3", "p001")
    at = open_page(tokens["a3"])
    assert current_assignment(at) == made.id
    a_text = "chosen text p001" if made.chosen_side == "A" else "rejected text p001"
    b_text = "rejected text p001" if made.chosen_side == "A" else "chosen text p001"
    # the two responses' own texts (the test data names them) aside, no label and no dispute
    shown = page_texts(at).replace(a_text, "").replace(b_text, "").lower()
    for word in ("adjudicat", "disput", "spread", "two readings", "chosen", "rejected"):
        assert word not in shown, word
    texts = [m.value for m in at.markdown]
    assert texts.index(a_text) < texts.index(b_text)  # Response A drawn first
    rate_current(at)
    assert stored_scores(page_engine, made.id) == expected_scores(made.chosen_side)
    assert assignment_of(page_engine, "a3", "p001").status == "done"
    # The results page then shows the figures before and after adjudication.
    with write_session(page_engine) as session:
        _, researcher = accounts.create_account(session, "res", role="researcher")
    results = open_page(token=researcher, pick="s")
    assert "Adjudication: before and after" in [e.label for e in results.expander]


def test_a_hostile_pair_id_and_flag_note_stay_inert_on_the_page(page_engine, open_page, tokens):
    """A record id (from an imported file) and a note are untrusted: the queue shows them as
    table cells, the notice after sending as inert Markdown (no image, no HTML)."""
    hostile = f"{MD_IMAGE}{IMG}"
    with write_session(page_engine) as session:
        study = get_study(session, "s")
        session.execute(insert(Pair), [pair_row(study.id, hostile, "Art")])
        pair = session.exec(select(Pair).where(Pair.record_id == hostile)).one()
        assign_pairs(session, study, accounts.get_account(session, "a0"), [pair])
    item = assignment_of(page_engine, "a0", hostile)
    skip_pair(page_engine, annotator_id=item.annotator_id, assignment_id=item.id, reason=SCRIPT)
    flags.resolve_flag(page_engine, SYSTEM, study="s", assignment_id=item.id,
                       action=FlagAction.ADJUDICATION, note=SCRIPT)  # fmt: skip
    at = open_page(tokens["boss"], page="admin_adjudication.py", pick="s")
    assert hostile in list(at.dataframe[0].value["pair"])
    at.selectbox(key="adj_pair").set_value(hostile).run()
    at.selectbox(key="adj_who").set_value("a3").run()
    button(at, "Send to the adjudicator").click().run()
    (notice,) = [s.value for s in at.success]
    assert "sent to a3" in notice
    assert "![" not in notice
    assert "<img" not in notice
    assert assignment_of(page_engine, "a3", hostile).purpose == "adjudication"
