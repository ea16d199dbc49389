"""The last active admin is never withdrawn, erased, deactivated or demoted (issue 32,
deliverable 2; in one run of the attack pass no admin account was left).

Each path: the command line (`annotators deactivate`, `annotators role`, `annotators erase`),
retention (`retention --erase`) and the crowd purge (`crowd purge`), which run on a schedule,
and the participant's withdrawal; the admin's Participants page is in
`tests/annotate/app/admin/test_publish_and_participants_pages.py`. With a second active admin the
same changes go through. Runs on SQLite and on PostgreSQL (`PRB_TEST_DATABASE_URL`).
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import update
from sqlmodel import col, select
from typer.testing import CliRunner

from annotate.cli.common import State, app
from annotate.db import read_session, write_session
from annotate.db.tables import Annotator, Assignment, Participation, utcnow
from annotate.domain.assignment import assign_pairs, study_pairs
from annotate.domain.operations import erasure
from annotate.domain.study import accounts
from annotate.domain.study.permissions import SYSTEM, LastAdmin
from annotate.domain.study.studies import get_study
from annotate.services.admin.erasure import set_retention
from annotate.services.participant.consent import decide
from annotate.services.participant.enrolment import enrol
from tests.helpers.admin_helpers import rate
from tests.security.participants_world import STUDY, crowd_study, study_key


@pytest.fixture
def cli(db_url, monkeypatch):
    monkeypatch.delenv("PRB_DATABASE_URL", raising=False)

    def invoke(*args: str):
        try:
            return CliRunner().invoke(app, ["--db", db_url, *args])
        finally:
            if State._engine is not None:
                State._engine.dispose()

    return invoke


def _admin_who_rated(engine, name: str = "boss") -> int:
    """An admin account holding a rated pair of the crowd study (so erasure has data)."""
    with write_session(engine) as session:
        account, _ = accounts.create_account(session, name, role="admin")
        study = get_study(session, STUDY)
        assign_pairs(session, study, account, study_pairs(session, study))
        account_id = int(account.id)  # type: ignore[arg-type]
    with read_session(engine) as session:
        held = session.exec(select(Assignment.id).where(Assignment.annotator_id == account_id))
        first = held.first()
    assert first is not None
    rate(engine, account_id, first, side_preference=1)
    return account_id


def _state(engine, account_id: int) -> tuple[str, str, bool] | None:
    with read_session(engine) as session:
        account = session.get(Annotator, account_id)
        return None if account is None else (account.name, account.role, account.active)


def test_the_command_line_keeps_the_last_active_admin(engine, cli):
    crowd_study(engine)
    boss = _admin_who_rated(engine)
    for args in (
        ("annotators", "deactivate", "boss"),
        ("annotators", "role", "boss", "annotator"),
        ("annotators", "erase", "boss", "--study", STUDY, "--yes"),
    ):
        result = cli(*args)
        assert result.exit_code == 1, result.output
        assert "last active admin" in result.output
    assert _state(engine, boss) == ("boss", "admin", True)
    _admin_who_rated(engine, "second")  # with another admin, each goes through
    assert cli("annotators", "role", "boss", "researcher").exit_code == 0
    assert cli("annotators", "role", "boss", "admin").exit_code == 0
    assert cli("annotators", "deactivate", "boss").exit_code == 0
    assert cli("annotators", "erase", "second", "--study", STUDY, "--yes").exit_code == 1
    assert _state(engine, boss) == ("boss", "admin", False)


def _crowd_admin(engine) -> int:
    """A crowd participant's account made the only admin (a platform id, consent only)."""
    crowd_study(engine)
    found = enrol(engine, study=STUDY, key=study_key(engine), participant_id="p1", session_id="s1")
    decide(engine, found.annotator_id, study=STUDY, key=study_key(engine), accept=True)
    with write_session(engine) as session:
        accounts.set_role(session, found.name, "admin")
    return found.annotator_id


def test_retention_leaves_the_last_active_admin(engine, cli):
    admin = _crowd_admin(engine)
    set_retention(engine, SYSTEM, STUDY, 30)
    old = utcnow() - timedelta(days=45)
    with write_session(engine) as session:
        session.execute(update(Participation).values(consent_at=old))
    result = cli("retention", "--erase")
    assert result.exit_code == 0, result.output
    assert "0 participant(s) erased" in result.output
    assert _state(engine, admin) == ("prolific:p1", "admin", True)


def test_the_crowd_purge_leaves_the_last_active_admin(engine, cli):
    admin = _crowd_admin(engine)
    with write_session(engine) as session:
        session.execute(
            update(Annotator)
            .where(col(Annotator.id) == admin)
            .values(created_at=utcnow() - timedelta(days=2))
        )
    result = cli("crowd", "purge", "--study", STUDY)
    assert result.exit_code == 0, result.output
    assert _state(engine, admin) == ("prolific:p1", "admin", True)


def test_withdrawal_and_erasure_refuse_the_last_active_admin(engine):
    admin = _crowd_admin(engine)
    with write_session(engine) as session:
        account = session.get(Annotator, admin)
        study = get_study(session, STUDY)
        assert account is not None
        for erase in (True, False):
            with pytest.raises(LastAdmin):
                erasure.withdraw(session, account, study, erase_data=erase, key=b"k")
        with pytest.raises(LastAdmin):
            erasure.erase(session, account, study, key=b"k")
    assert _state(engine, admin) == ("prolific:p1", "admin", True)
