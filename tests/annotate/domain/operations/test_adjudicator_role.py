"""The adjudicator role (issues 22.5 and 24.10): who may have it, what work it gets, and the
integrity of adjudication under concurrency, on SQLite and PostgreSQL.

The study is `adjudication_helpers.make_disputed`'s: a3 and a4 are adjudicators (a4
deactivated), a0-a2 rated every pair; at threshold 2 the queue is {p001, p003}.
"""

from __future__ import annotations

import threading

import pytest
from sqlalchemy.exc import IntegrityError
from sqlmodel import select

from annotate.db import read_session, write_session
from annotate.db.tables import Annotator, Assignment, AuditEntry, FlagResolution, Pair
from annotate.domain.assignment import PairSelection
from annotate.domain.crowd.training import require_trained, studies_in_training
from annotate.domain.study import accounts
from annotate.domain.study.accounts import AccountError
from annotate.domain.study.permissions import SYSTEM
from annotate.errors import Conflict, PrbError
from annotate.services.admin import adjudication, flags, people, plans
from annotate.services.participant.rating import skip_pair
from annotate.services.participant.work import pull_next
from annotate.vocabulary import FlagAction
from tests.helpers.adjudication_helpers import assignment_of, make_disputed, side_scores
from tests.helpers.admin_helpers import make_people, make_study, rate

QUESTIONS = [{"id": "sides", "text": "Same response?", "options": ["Yes", "No"], "correct": [1]}]


def _role(engine, name: str, role: str) -> None:
    people.set_account_role(engine, SYSTEM, name, role)


def _run_at_once(*actions) -> list[object]:
    """Run the actions in threads released together; each one's result or error."""
    results: list[object] = [None] * len(actions)
    barrier = threading.Barrier(len(actions))

    def body(i: int) -> None:
        barrier.wait()
        try:
            results[i] = actions[i]()
        except PrbError as error:
            results[i] = error

    threads = [threading.Thread(target=body, args=(i,)) for i in range(len(actions))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    return results


# ---------------------------------------------------------------- who may be an adjudicator


def test_only_a_person_s_own_account_without_the_labels_can_be_an_adjudicator(engine):
    make_study(engine, "s", pairs=2)
    make_people(engine, 2)  # a0, a1
    make_people(engine, 1, prefix="sim-0")  # sim-00: a simulated account's name
    make_people(engine, 1, prefix="boss", role="admin")
    make_people(engine, 1, prefix="res", role="researcher")
    with write_session(engine) as session:
        crowd = accounts.get_account(session, "a1")
        crowd.external_id = "prolific:5f8e2b1c9d3a4e0012345678"
        session.add(crowd)
    refused = {
        "sim-00": "simulated account",
        "a1": "crowd participant",
        "boss0": "can see the benchmark's labels",
        "res0": "can see the benchmark's labels",
    }
    for name, why in refused.items():
        with pytest.raises(AccountError, match=why):
            _role(engine, name, "adjudicator")
    with pytest.raises(AccountError, match="simulated"):
        people.create_accounts(engine, SYSTEM, ["sim-07"], role="adjudicator")
    _role(engine, "a0", "adjudicator")
    people.create_accounts(engine, SYSTEM, ["expert"], role="adjudicator")
    with read_session(engine) as session:
        roles = dict(session.exec(select(Annotator.name, Annotator.role)).all())
    assert (roles["a0"], roles["expert"], roles["a1"], roles["sim-00"]) == (
        "adjudicator",
        "adjudicator",
        "annotator",
        "annotator",
    )


def test_an_annotator_holding_ordinary_work_becomes_an_adjudicator_only_after_reassigning(engine):
    make_study(engine, "s", pairs=2, overlap=1)
    make_people(engine, 2)
    plans.make_plan(engine, SYSTEM, study="s", annotators=["a0"], selection=PairSelection())
    with pytest.raises(AccountError, match="still holds ordinary pairs"):
        _role(engine, "a0", "adjudicator")
    plans.reassign_work(engine, SYSTEM, study="s", giver="a0", receivers=["a1"])
    _role(engine, "a0", "adjudicator")


# ---------------------------------------------------------------- the work they get


def test_an_adjudicator_gets_no_pool_pair_no_plan_and_no_training(engine):
    study_id = make_study(
        engine, "s", pairs=4, overlap=1, pool_open=True, comprehension_questions=QUESTIONS
    )
    (expert,) = make_people(engine, 1, prefix="expert")
    _role(engine, "expert0", "adjudicator")
    assert pull_next(engine, expert, study_id) is None  # the open pool has 4 free pairs
    with pytest.raises(PrbError, match="only adjudication work"):
        plans.make_plan(
            engine, SYSTEM, study="s", annotators=["expert0"], selection=PairSelection()
        )
    (a0,) = make_people(engine, 1)
    rate(engine, a0, _pulled_after_training(engine, a0, study_id))
    skip_pair(engine, annotator_id=a0, assignment_id=_pulled(engine, a0, study_id), reason="odd")
    (item,) = flags.flag_queue(engine, SYSTEM, "s")
    flags.resolve_flag(
        engine, SYSTEM, study="s", assignment_id=item.assignment_id,
        action=FlagAction.ADJUDICATION, note="unclear",
    )  # fmt: skip
    assert adjudication.eligible(engine, SYSTEM, "s", item.record_id) == ["expert0"]
    adjudication.send(engine, SYSTEM, study="s", record_id=item.record_id, adjudicator="expert0")
    with read_session(engine) as session:
        assert studies_in_training(session, expert) == []  # the crowd training is skipped
        require_trained(session, expert, study_id)  # and a submit is not refused for it
        assert studies_in_training(session, a0) == []  # a0 passed it
    made = assignment_of(engine, "expert0", item.record_id)
    assert made.purpose == "adjudication"
    rate(engine, expert, made.id, given=side_scores(made.chosen_side, 1))
    assert assignment_of(engine, "expert0", item.record_id).status == "done"
    assert pull_next(engine, expert, study_id) is None  # after adjudicating: still nothing
    with read_session(engine) as session:
        ordinary = session.exec(
            select(Assignment).where(
                Assignment.annotator_id == expert, Assignment.purpose == "rating"
            )
        ).all()
    assert ordinary == []


def _pulled_after_training(engine, annotator_id: int, study_id: int) -> int:
    from annotate.services.participant import training

    pulled = _pulled(engine, annotator_id, study_id)
    training.answer_check(engine, annotator_id, study="s", answers={"sides": [1]})
    return pulled


def _pulled(engine, annotator_id: int, study_id: int) -> int:
    pulled = pull_next(engine, annotator_id, study_id)
    assert pulled is not None
    return pulled


def test_adjudication_goes_only_to_the_adjudicator_role(engine):
    make_disputed(engine)
    adjudication.set_threshold(engine, SYSTEM, study="s", threshold=2)
    make_people(engine, 1, prefix="sim-0")  # a simulated annotator that never had a pair
    assert adjudication.eligible(engine, SYSTEM, "s", "p001") == ["a3"]
    for name in ("sim-00", "boss0"):
        with pytest.raises(PrbError, match="adjudicator role"):
            adjudication.send(engine, SYSTEM, study="s", record_id="p001", adjudicator=name)


# ---------------------------------------------------------------- integrity


def test_two_admins_sending_one_pair_at_once_get_one_adjudication(both_engines):
    engine = both_engines
    make_disputed(engine)
    adjudication.set_threshold(engine, SYSTEM, study="s", threshold=2)
    make_people(engine, 3, prefix="judge")
    for name in ("judge0", "judge1", "judge2"):
        _role(engine, name, "adjudicator")

    def sender(name: str):
        return lambda: adjudication.send(
            engine, SYSTEM, study="s", record_id="p001", adjudicator=name
        )

    results = _run_at_once(*(sender(n) for n in ("judge0", "judge1", "judge2", "a3")))
    refused = [r for r in results if isinstance(r, Conflict)]
    assert len(refused) == 3, results
    assert all("already with adjudicator" in str(r) for r in refused)
    (candidate,) = [c for c in adjudication.queue(engine, SYSTEM, "s")[1] if c.record_id == "p001"]
    assert [a.status for a in candidate.adjudicators] == ["pending"]
    with read_session(engine) as session:
        sent = session.exec(select(AuditEntry).where(AuditEntry.action == "pair.adjudicate"))
        assert len(sent.all()) == 1  # the refused sends left no audit entry


def test_the_database_itself_refuses_a_second_live_adjudication(both_engines):
    engine = both_engines
    make_disputed(engine)
    adjudication.set_threshold(engine, SYSTEM, study="s", threshold=2)
    adjudication.send(engine, SYSTEM, study="s", record_id="p001", adjudicator="a3")
    first = assignment_of(engine, "a3", "p001")
    with read_session(engine) as session:
        a4 = accounts.get_account(session, "a4").id
    second = Assignment(
        study_id=first.study_id,
        annotator_id=a4,
        pair_id=first.pair_id,
        position=0,
        chosen_side="A",
        purpose="adjudication",
    )
    with pytest.raises(IntegrityError):
        _insert(engine, second)


def _insert(engine, row: Assignment) -> None:
    with write_session(engine) as session:
        session.add(row)


def test_a_deactivated_adjudicator_s_pair_is_released_and_can_go_to_another(both_engines):
    engine = both_engines
    make_disputed(engine)
    adjudication.set_threshold(engine, SYSTEM, study="s", threshold=2)
    make_people(engine, 1, prefix="judge")
    _role(engine, "judge0", "adjudicator")
    adjudication.send(engine, SYSTEM, study="s", record_id="p001", adjudicator="a3")
    adjudication.send(engine, SYSTEM, study="s", record_id="p003", adjudicator="a3")
    rate(engine, (done := assignment_of(engine, "a3", "p003")).annotator_id, done.id)
    people.set_accounts_active(engine, SYSTEM, ["a3"], False)
    assert assignment_of(engine, "a3", "p001").status == "released"
    assert assignment_of(engine, "a3", "p003").status == "done"  # finished work stays
    with read_session(engine) as session:
        (entry,) = session.exec(select(AuditEntry).where(AuditEntry.action == "accounts.active"))
    assert entry.after["released_adjudications"] == [assignment_of(engine, "a3", "p001").id]
    assert adjudication.eligible(engine, SYSTEM, "s", "p001") == ["judge0"]
    adjudication.send(engine, SYSTEM, study="s", record_id="p001", adjudicator="judge0")
    assert assignment_of(engine, "judge0", "p001").status == "pending"


def test_conflicting_flag_actions_at_once_are_refused_not_last_write_wins(both_engines):
    engine = both_engines
    make_study(engine, "s", pairs=2, overlap=1)
    (a0,) = make_people(engine, 1)
    plans.make_plan(engine, SYSTEM, study="s", annotators=["a0"], selection=PairSelection())
    with read_session(engine) as session:
        first = session.exec(select(Assignment).where(Assignment.position == 0)).one()
    skip_pair(engine, annotator_id=a0, assignment_id=first.id, reason="broken text")

    def handle(action: str, note: str):
        return lambda: flags.resolve_flag(
            engine, SYSTEM, study="s", assignment_id=first.id, action=action, note=note
        )

    results = _run_at_once(
        handle(FlagAction.RESOLVED, "Skip accepted"), handle(FlagAction.ADJUDICATION, "unclear")
    )
    refused = [r for r in results if isinstance(r, Conflict)]
    assert len(refused) == 1, results
    assert "changed since it was shown" in str(refused[0])
    with read_session(engine) as session:
        (row,) = session.exec(select(FlagResolution)).all()
    winner = results.index(None)
    assert row.action == (FlagAction.RESOLVED, FlagAction.ADJUDICATION)[winner]
    # whoever saw the item as handled may change it, naming what they replace
    other = FlagAction.ADJUDICATION if row.action == FlagAction.RESOLVED else FlagAction.RESOLVED
    flags.resolve_flag(
        engine, SYSTEM, study="s", assignment_id=first.id, action=other, note="decided",
        replaces=row.action,
    )  # fmt: skip
    with read_session(engine) as session:
        assert session.exec(select(FlagResolution.action)).one() == other
        assert session.exec(select(Pair.id)).all()


def test_an_account_the_simulation_made_is_no_adjudicator_whatever_its_name(engine):
    make_people(engine, 1, prefix="robot")
    with write_session(engine) as session:
        robot = accounts.get_account(session, "robot0")
        robot.simulated = True
        session.add(robot)
    with pytest.raises(AccountError, match="simulated account"):
        _role(engine, "robot0", "adjudicator")
