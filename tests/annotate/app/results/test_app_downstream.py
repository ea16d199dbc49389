"""A comparison study on the rating page (issue 25, item 2), driven with AppTest: every element
the page sends for each of its pairs holds no condition name, no reward model, no "expected" or
"baseline" and no label (the aspect checklist is on, as in every comparison study)."""

from __future__ import annotations

import re

from annotate.db import write_session
from annotate.domain.assignment import assign_pairs, study_pairs
from annotate.domain.study import accounts
from annotate.domain.study.permissions import SYSTEM
from annotate.domain.study.studies import get_study
from annotate.services.results import downstream
from tests.annotate.domain.downstream.test_downstream_comparison import build_world
from tests.helpers.apptest_helpers import current_assignment, queue_ids, sent_elements

LEAKS = re.compile(r"hidden-rm|bon:|\bexpected\b|\bbaseline\b|\bchosen\b|\brejected\b", re.I)


def test_the_rating_page_of_a_comparison_study_sends_nothing_of_the_conditions(
    open_app, engine, tmp_path, make_record, write_records
):
    build_world(engine, tmp_path, make_record, write_records)
    downstream.create_comparison(
        engine, SYSTEM, source_study="bench", name="cmp",
        expected="bon:hidden-rm:k16", baseline="bon:hidden-rm:k1", seed=11,
    )  # fmt: skip
    with write_session(engine) as session:
        annotator, token = accounts.create_account(session, "rater")
        study = get_study(session, "cmp")
        assign_pairs(session, study, annotator, study_pairs(session, study))
    at = open_app(token)
    ids = queue_ids(engine, "rater")
    assert len(ids) == 3
    for assignment_id in ids:
        at.selectbox(key="nav_jump").set_value(assignment_id)
        at.run()
        assert current_assignment(at) == assignment_id
        sent = "\n".join(sent_elements(at._tree))
        assert "answer to" in sent  # the pair's texts are in what was checked
        assert "Aspect" in sent or "aspect" in sent  # and so is the checklist
        assert LEAKS.findall(sent) == []
