"""The exclusion rules on the Studies page and the results page (AppTest through the real entry
script): set before any rating, refused after it until the force box is ticked, and shown with
the sensitivity table on the results page."""

from __future__ import annotations

import pytest
from sqlmodel import select

from annotate.db import read_session, write_session
from annotate.db.tables import Assignment, AuditEntry
from annotate.domain.assignment import PairSelection
from annotate.domain.study import accounts
from annotate.domain.study.permissions import SYSTEM
from annotate.domain.study.studies import get_study
from annotate.services.admin import plans
from tests.helpers.admin_helpers import button, make_people, make_study, page_texts, rate


@pytest.fixture
def boss(page_engine) -> str:
    """Study `fresh` (no rating) and study `rated` (a0 and a1 rated all of its 3 pairs)."""
    make_study(page_engine, "fresh", pairs=3, overlap=2)
    make_study(page_engine, "rated", pairs=3, overlap=2)
    make_people(page_engine, 2)
    plans.make_plan(
        page_engine, SYSTEM, study="rated", annotators=["a0", "a1"], selection=PairSelection()
    )
    with read_session(page_engine) as session:
        items = session.exec(select(Assignment)).all()
    for item in items:
        rate(page_engine, item.annotator_id, item.id, value=3, seconds=2.0)
    with write_session(page_engine) as session:
        return accounts.create_account(session, "boss", role="admin")[1]


def captions(at) -> str:
    return " ".join(c.value for c in at.caption)


def rules_of(engine, study: str) -> dict:
    with read_session(engine) as session:
        return dict(get_study(session, study).exclusion_rules)


def test_rules_set_before_any_rating_are_saved(page_engine, open_page, boss):
    at = open_page(boss, page="admin_studies.py", pick="fresh")
    assert "Rules: none (never set; no rating yet)" in captions(at)
    at.number_input(key="rules_fresh_max_gold_failures").set_value(1)
    at.number_input(key="rules_fresh_min_gold_accuracy").set_value(0.5)
    button(at, "Save rules").click().run()
    assert not at.exception
    assert "Exclusion rules of fresh saved." in page_texts(at)
    assert rules_of(page_engine, "fresh") == {"min_gold_accuracy": 0.5, "max_gold_failures": 1}
    assert "Rules: least gold accuracy 0.5, most gold failures 1 (set " in captions(at)


def test_after_the_first_rating_the_force_box_is_needed(page_engine, open_page, boss):
    at = open_page(boss, page="admin_studies.py", pick="rated")
    at.number_input(key="rules_rated_min_median_seconds").set_value(5.0)
    button(at, "Save rules").click().run()
    assert "pass the force flag" in " ".join(e.value for e in at.error)
    assert rules_of(page_engine, "rated") == {}
    at.checkbox(key="rules_rated_force").check()
    button(at, "Save rules").click().run()
    assert "Exclusion rules of rated saved." in page_texts(at)
    assert rules_of(page_engine, "rated") == {"min_median_seconds": 5.0}
    assert "set after the first rating: not pre-registered" in captions(at)
    with read_session(page_engine) as session:
        entry = session.exec(select(AuditEntry).where(AuditEntry.action == "study.rules")).one()
    assert entry.who == "boss"
    assert entry.after["after_data"].startswith("ratings since ")


def test_the_results_page_shows_the_rules_and_the_sensitivity_table(page_engine, open_page, boss):
    from annotate.services.admin.exclusion_rules import set_study_rules

    set_study_rules(page_engine, SYSTEM, "rated", {"min_median_seconds": 1}, force=True)
    with write_session(page_engine) as session:
        reader = accounts.create_account(session, "reader", role="researcher")[1]
    at = open_page(reader, pick="rated")  # a researcher lands on Results
    (expander,) = [e for e in at.expander if e.label.startswith("Pre-registered exclusion")]
    assert expander.label == "Pre-registered exclusion rules (0 annotator(s) excluded)"
    assert "not pre-registered" in " ".join(w.value for w in at.warning)
    variants = list(expander.dataframe[1].value["Rules applied"])
    assert variants == ["no rule", "all rules"]


def test_the_analysis_plan_is_locked_on_the_studies_page_until_forced(page_engine, open_page, boss):
    """The smallest effect, alpha, planned size beside the margin; once the study has ratings a
    change of them is refused until the plan's force box is ticked, then audited and listed."""
    at = open_page(boss, page="admin_studies.py", pick="rated")
    key = f"study_{get_study_id(page_engine, 'rated')}"
    assert "the plan is locked." in captions(at)
    at.number_input(key=f"{key}_alpha").set_value(0.01)
    button(at, "Save settings").click().run()
    button(at, "Confirm").click().run()
    assert "pass the force flag" in " ".join(e.value for e in at.error)
    with read_session(page_engine) as session:
        assert get_study(session, "rated").alpha == 0.05
    at.checkbox(key=f"{key}_force_plan").check()
    button(at, "Save settings").click().run()
    button(at, "Confirm").click().run()
    assert not at.exception
    assert "Settings of rated saved." in page_texts(at)
    with read_session(page_engine) as session:
        assert get_study(session, "rated").alpha == 0.01
        entry = session.exec(select(AuditEntry).where(AuditEntry.action == "study.update")).one()
    assert entry.before == {"alpha": 0.05}
    assert entry.after["after_data"].startswith("forced: ratings since ")
    assert "(after data): alpha 0.05 -> 0.01." in captions(at)


def test_a_study_without_ratings_shows_no_plan_force_box(page_engine, open_page, boss):
    at = open_page(boss, page="admin_studies.py", pick="fresh")
    key = f"study_{get_study_id(page_engine, 'fresh')}"
    assert "no rating yet." in captions(at)
    assert not [c for c in at.checkbox if c.key == f"{key}_force_plan"]
    at.number_input(key=f"{key}_planned_pairs").set_value(200)
    button(at, "Save settings").click().run()
    button(at, "Confirm").click().run()
    with read_session(page_engine) as session:
        assert get_study(session, "fresh").planned_pairs == 200


def get_study_id(engine, name: str) -> int:
    with read_session(engine) as session:
        return int(get_study(session, name).id or 0)


def test_a_group_sequential_plan_is_set_on_the_page_and_a_bad_one_refused(
    page_engine, open_page, boss
):
    at = open_page(boss, page="admin_studies.py", pick="fresh")
    key = f"study_{get_study_id(page_engine, 'fresh')}"
    at.text_input(key=f"{key}_looks").set_value("30, 60, 90, 120")
    at.selectbox(key=f"{key}_spending").set_value("pocock")
    at.selectbox(key=f"{key}_futility").set_value("obrien-fleming")
    button(at, "Save settings").click().run()
    button(at, "Confirm").click().run()
    assert not at.exception
    with read_session(page_engine) as session:
        assert get_study(session, "fresh").sequential == {
            "looks": [30, 60, 90, 120], "unit": "pairs", "alpha_spending": "pocock",
            "futility": "obrien-fleming", "beta": 0.2, "binding": False,
        }  # fmt: skip
    at.text_input(key=f"{key}_looks").set_value("60, 30")
    button(at, "Save settings").click().run()
    if [b for b in at.button if b.label == "Confirm"]:
        button(at, "Confirm").click().run()
    assert "sequential.looks" in " ".join(e.value for e in at.error)
    with read_session(page_engine) as session:
        assert get_study(session, "fresh").sequential["looks"] == [30, 60, 90, 120]
