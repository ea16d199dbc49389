"""The service layer: one transaction per action with the role check inside it, the system actor
of the command line, and the annotator's own actions checked against the caller.

The role checks of every admin action for every kind of account are in
tests/security/test_security_roles.py; here: what SYSTEM may do and what nobody else gets by it,
and that the check is made again inside the write transaction (an admin demoted while an import
reads its files writes nothing).
"""

from __future__ import annotations

import pytest
from sqlmodel import select

from annotate.db import read_session, write_session
from annotate.db.tables import Assignment, Pair, Study
from annotate.domain.assignment import PairSelection
from annotate.domain.rating.ratings import NotYours
from annotate.domain.study import accounts
from annotate.domain.study.permissions import SYSTEM, LastAdmin, PermissionDenied, require_admin
from annotate.errors import Forbidden
from annotate.services.admin import data, people, plans, studies
from annotate.services.participant.rating import skip_pair
from tests.helpers.admin_helpers import make_people, make_study, rate
from tests.helpers.foundation_helpers import make_record, write_records


def test_the_system_actor_passes_the_admin_check_and_acts_as_no_account(engine):
    with read_session(engine) as session:
        assert require_admin(session, SYSTEM) is None  # passes, and is nobody's account
    created = studies.create_study(engine, SYSTEM, "cli-made", overlap=2)
    assert created.overlap == 2
    assert [s.name for s in studies.list_studies(engine, SYSTEM)] == ["cli-made"]
    links = people.create_accounts(engine, SYSTEM, ["root"], role="admin")
    assert [(n.name, n.role) for n in links] == [("root", "admin")]
    # An account may not deactivate itself or drop its admin role; SYSTEM is no account, but
    # the last active admin is kept even so (issue 32.2): a leaked admin's link is replaced
    # (`annotators rotate`), or another admin is made first.
    with pytest.raises(LastAdmin):
        people.set_accounts_active(engine, SYSTEM, ["root"], False)
    people.create_accounts(engine, SYSTEM, ["root2"], role="admin")
    people.set_accounts_active(engine, SYSTEM, ["root"], False)
    people.set_account_role(engine, SYSTEM, "root", "annotator")
    rows = people.list_accounts(engine, SYSTEM)
    assert [(r.name, r.role, r.active) for r in rows] == [
        ("root", "annotator", False),
        ("root2", "admin", True),
    ]


@pytest.mark.parametrize("pretender", ["system", "SYSTEM", 0, -1, True])
def test_nothing_but_the_system_value_itself_acts_as_the_system(engine, snapshot, pretender):
    """A page passes an account id; no string, number or flag it might carry becomes SYSTEM."""
    make_people(engine, 1, prefix="boss", role="admin")
    before = snapshot(engine)
    with pytest.raises(PermissionDenied):
        studies.create_study(engine, pretender, "sneaky")
    assert snapshot(engine) == before


def test_an_account_still_cannot_deactivate_or_demote_itself(engine, snapshot):
    (boss,) = make_people(engine, 1, prefix="boss", role="admin")
    before = snapshot(engine)
    with pytest.raises(accounts.AccountError, match="your own account"):
        people.set_accounts_active(engine, boss, ["boss0"], False)
    with pytest.raises(accounts.AccountError, match="your own account"):
        people.set_account_role(engine, boss, "boss0", "annotator")
    assert snapshot(engine) == before


def test_a_service_refuses_an_annotator_and_writes_nothing(engine, snapshot, tmp_path):
    make_study(engine, "s", pairs=4)
    (annotator,) = make_people(engine, 1)
    path = write_records(tmp_path / "Art_test.jsonl", [make_record("new-1")])
    before = snapshot(engine)
    with pytest.raises(PermissionDenied, match="needs the admin role"):
        data.import_files(engine, annotator, [path], study="other")
    with pytest.raises(PermissionDenied):
        plans.make_plan(
            engine, annotator, study="s", annotators=["a0"], selection=PairSelection(), per_pair=1
        )
    assert snapshot(engine) == before


def test_the_role_is_checked_again_inside_the_write_transaction(engine, snapshot, tmp_path):
    """The admin is demoted while the import reads its files (before its write transaction):
    the import is refused and writes nothing, neither the pairs nor the new study."""
    (boss,) = make_people(engine, 1, prefix="boss", role="admin")
    path = write_records(tmp_path / "Art_test.jsonl", [make_record(f"r{i}") for i in range(3)])
    before = snapshot(engine)
    demoted = []

    def demote_once(_bytes: int) -> None:
        if not demoted:
            with write_session(engine) as session:
                accounts.set_role(session, "boss0", "annotator")
            demoted.append(True)

    with pytest.raises(PermissionDenied):
        data.import_files(engine, boss, [path], study="late", on_progress=demote_once)
    assert demoted
    with read_session(engine) as session:
        assert session.exec(select(Study).where(Study.name == "late")).first() is None
        assert session.exec(select(Pair)).first() is None
    after = snapshot(engine)
    assert {k: v for k, v in after.items() if k != "annotator"} == {
        k: v for k, v in before.items() if k != "annotator"
    }


def test_an_annotator_cannot_rate_or_skip_anothers_pair(engine, snapshot):
    study_id = make_study(engine, "s", pairs=2)
    ana, ben = make_people(engine, 2)
    plans.make_plan(
        engine, SYSTEM, study="s", annotators=["a0"], selection=PairSelection(), per_pair=1
    )
    with read_session(engine) as session:
        item = session.exec(select(Assignment).where(Assignment.study_id == study_id)).first()
    assert item is not None
    assert item.annotator_id == ana
    before = snapshot(engine)
    with pytest.raises(NotYours, match="not in your queue"):
        rate(engine, ben, item.id)
    with pytest.raises(Forbidden):
        skip_pair(engine, annotator_id=ben, assignment_id=item.id, reason="not mine")
    with pytest.raises(NotYours):
        rate(engine, ana, 10_000)  # no such assignment: the same refusal
    assert snapshot(engine) == before
    assert rate(engine, ana, item.id).status == "saved"
