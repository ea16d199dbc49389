"""Roles (every admin action checks the actor) and study settings."""

from __future__ import annotations

import pytest
from sqlmodel import select

from annotate.db import read_session, write_session
from annotate.db.tables import Assignment, Study
from annotate.domain.assignment import PairSelection
from annotate.domain.study.accounts import AccountError, set_active
from annotate.domain.study.permissions import PermissionDenied, may_administer, may_see_results
from annotate.domain.study.questionnaire import questionnaire_of
from annotate.domain.study.studies import (
    QuestionnaireLocked,
    StudyError,
    create_study,
    update_study,
)
from annotate.questionnaire import DEFAULT_QUESTIONNAIRE, parse_questionnaire
from annotate.services.admin import data, people, plans, progress, studies
from tests.helpers.admin_helpers import make_people, make_study

ACTIONS = {
    "list_studies": lambda e, a: studies.list_studies(e, a),
    "create_study": lambda e, a: studies.create_study(e, a, "new"),
    "update_study": lambda e, a: studies.update_study(e, a, "s", overlap=1),
    "upload": lambda e, a: data.upload_dataset(e, a, study="s", filename="x.jsonl", data=b""),
    "accounts": lambda e, a: people.list_accounts(e, a),
    "create_accounts": lambda e, a: people.create_accounts(e, a, ["eve"]),
    "rotate": lambda e, a: people.rotate_account(e, a, "a0"),
    "deactivate": lambda e, a: people.set_accounts_active(e, a, ["a0"], False),
    "role": lambda e, a: people.set_account_role(e, a, "a0", "admin"),
    "plan": lambda e, a: plans.make_plan(
        e, a, study="s", annotators=["a0"], selection=PairSelection(), per_pair=1
    ),
    "reassign": lambda e, a: plans.reassign_work(e, a, study="s", giver="a0"),
    "rows": lambda e, a: plans.assignment_rows(e, a, "s"),
    "gold": lambda e, a: progress.set_gold(e, a, study="s", record_ids=["p000"], expect="chosen"),
    "dashboard": lambda e, a: progress.dashboard(e, a, "s"),
    "link": lambda e, a: studies.study_enrolment_link(e, a, "s"),
}


@pytest.fixture
def world(engine):
    make_study(engine, "s", pairs=3, overlap=1)
    (annotator,) = make_people(engine, 1, prefix="a")
    (researcher,) = make_people(engine, 1, prefix="r", role="researcher")
    (boss,) = make_people(engine, 1, prefix="boss", role="admin")
    return {"annotator": annotator, "researcher": researcher, "admin": boss}


@pytest.mark.parametrize("action", sorted(ACTIONS))
@pytest.mark.parametrize("who", ["annotator", "researcher", None])
def test_admin_actions_refuse_anyone_but_an_admin(engine, world, snapshot, action, who):
    before = snapshot(engine)
    with pytest.raises(PermissionDenied):
        ACTIONS[action](engine, world[who] if who else None)
    assert snapshot(engine) == before


@pytest.mark.parametrize("action", sorted(ACTIONS))
def test_admin_actions_work_for_an_admin(engine, world, action):
    try:
        ACTIONS[action](engine, world["admin"])
    except PermissionDenied:  # pragma: no cover - the failure this test looks for
        pytest.fail(f"{action} refused an admin")
    except Exception:
        pass


def test_a_deactivated_or_demoted_admin_is_refused_at_once(engine, world):
    people.set_account_role(engine, world["admin"], "a0", "admin")
    assert studies.list_studies(engine, world["annotator"])  # promoted: allowed
    with write_session(engine) as session:
        set_active(session, "a0", False)
    with pytest.raises(PermissionDenied):
        studies.list_studies(engine, world["annotator"])
    people.set_accounts_active(engine, world["admin"], ["a0"], True)
    assert studies.list_studies(engine, world["annotator"])
    people.set_account_role(engine, world["admin"], "a0", "annotator")
    with pytest.raises(PermissionDenied):
        studies.list_studies(engine, world["annotator"])


def test_an_admin_cannot_lock_themselves_out(engine, world):
    with pytest.raises(AccountError, match="your own"):
        people.set_accounts_active(engine, world["admin"], ["boss0"], False)
    with pytest.raises(AccountError, match="your own"):
        people.set_account_role(engine, world["admin"], "boss0", "annotator")


def test_which_role_sees_what():
    assert [may_administer(r) for r in ("annotator", "researcher", "admin")] == [0, 0, 1]
    assert [may_see_results(r) for r in ("annotator", "researcher", "admin")] == [0, 1, 1]


# ---------------------------------------------------------------- studies


CUSTOM = {
    "questions": [
        {"key": "truth", "label": "Truth", "text": "Is it true?", "role": "tie"},
        {
            "key": "fit",
            "label": "Fit",
            "text": "Does it fit?",
            "points": [0, 1, 2, 3, 4],
            "anchors": {0: "none", 4: "perfect"},
            "role": "diverge",
        },
    ]
}


def test_create_and_edit_every_setting(engine):
    with write_session(engine) as session:
        create_study(
            session,
            "x",
            seed=5,
            questionnaire="rmbench",
            guidelines="Read **both**.",
            equivalence_margin=0.3,
            completion_code=" ABC ",
            overlap=4,
            reservation_minutes=15,
            gold_rate=0.1,
            pool_open=True,
            pool_quota=20,
            enrolment_open=True,
        )
    with write_session(engine) as session:
        update_study(
            session,
            "x",
            questionnaire=CUSTOM,
        )
    with read_session(engine) as session:
        study = session.exec(select(Study).where(Study.name == "x")).one()
    assert study.seed == 5
    asked = questionnaire_of(study)
    assert asked == parse_questionnaire(CUSTOM)
    assert (asked.keys, asked.tie_keys, asked.target) == (("truth", "fit"), ("truth",), "fit")
    assert asked.question("fit").anchors == {0: "none", 4: "perfect"}
    assert study.completion_code == "ABC"
    assert study.guidelines == "Read **both**."
    assert (study.overlap, study.reservation_minutes, study.gold_rate) == (4, 15, 0.1)
    assert (study.pool_open, study.pool_quota, study.enrolment_open) == (True, 20, True)
    assert study.equivalence_margin == 0.3


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {"questionnaire": {"questions": [{**CUSTOM["questions"][0], "points": [5]}]}},
            r"questionnaire.questions\[0\]: points: expected 2 to 11 consecutive",
        ),
        ({"questionnaire": "likert"}, "expected a template's name"),
        ({"overlap": 0}, "at least 1"),
        ({"gold_rate": 1.0}, "below 1"),
        ({"reservation_minutes": 0}, "1 minute"),
        ({"equivalence_margin": 0}, "above 0"),
        ({"enrolment_open": True}, "needs the open pool"),
        ({"colour": "red"}, "unknown setting"),
    ],
)
def test_invalid_settings_are_refused_and_nothing_changes(engine, changes, message):
    make_study(engine, "s", pairs=1)
    with pytest.raises(StudyError, match=message), write_session(engine) as session:
        update_study(session, "s", **changes)
    with read_session(engine) as session:
        study = session.exec(select(Study)).one()
    assert (study.overlap, study.gold_rate, study.enrolment_open) == (3, 0.0, False)
    assert study.questionnaire == DEFAULT_QUESTIONNAIRE.stored()


def test_seed_and_questionnaire_freeze_once_work_exists(engine, world):
    plans.make_plan(engine, world["admin"], study="s", annotators=["a0"], selection=PairSelection())
    with pytest.raises(StudyError, match="seed cannot change"), write_session(engine) as session:
        update_study(session, "s", seed=99)
    from tests.helpers.admin_helpers import rate

    with read_session(engine) as session:
        first = session.exec(select(Assignment)).first()
    rate(engine, world["annotator"], first.id)
    locked = "has ratings since .*: its questionnaire cannot change"
    for other in ("rmbench", CUSTOM):
        with pytest.raises(QuestionnaireLocked, match=locked), write_session(engine) as session:
            update_study(session, "s", questionnaire=other, force=True)
    with write_session(engine) as session:  # the same questionnaire again is no change
        update_study(session, "s", questionnaire="prb", guidelines="ok")
    with read_session(engine) as session:
        assert session.exec(select(Study)).one().questionnaire == DEFAULT_QUESTIONNAIRE.stored()


def test_duplicate_study_names_are_refused(engine):
    make_study(engine, "s", pairs=0)
    with pytest.raises(StudyError, match="already exists"), write_session(engine) as session:
        create_study(session, "s")
