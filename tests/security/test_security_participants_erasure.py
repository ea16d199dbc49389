"""Participants' data, point 2 (issue 24.2): withdrawal, erasure and retention leave nothing
of the person in the database.

After an erasure (by an admin, or the participant's own withdrawal with erasure) every table of
`SQLModel.metadata` is read in full, and no row holds the person's account id in an
`annotator_id` column, their account, or, in any column, their name, Prolific id, session id
(or its hash), token hash or any text they typed; the other participant's data are untouched;
the audit entry says what was done with counts only; the study's erasure log is in the report
and the card. Retention forgets platform ids and typed text older than the study's period and
keeps the scores. Runs on SQLite and on PostgreSQL (`PRB_TEST_DATABASE_URL`).
"""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from sqlalchemy import select as sa_select
from sqlalchemy import update
from sqlmodel import SQLModel, select
from typer.testing import CliRunner

from annotate.cli.common import State, app
from annotate.db import read_session, write_session
from annotate.db.tables import Annotator, Assignment, AuditEntry, Participation, utcnow
from annotate.domain.crowd.enrolment import ENDED, EnrolmentError
from annotate.domain.study import accounts
from annotate.domain.study.accounts import LoginNoLongerValid
from annotate.domain.study.permissions import SYSTEM
from annotate.services.admin.erasure import erase_person, retention, set_retention, withdraw_me
from annotate.services.admin.people import set_accounts_active
from annotate.services.admin.publish import card_files
from annotate.services.participant.enrolment import enrol
from annotate.services.results.reporting import study_ratings, study_report
from tests.security.participants_world import STUDY, study_key, two_participants


def _everything(engine) -> dict[str, list[dict]]:
    """Every row of every table, as dicts."""
    found = {}
    with engine.connect() as connection:
        for table in SQLModel.metadata.sorted_tables:
            rows = connection.execute(sa_select(table)).mappings().all()
            found[table.name] = [dict(r) for r in rows]
    return found


def _traces(engine, person) -> list[str]:
    """Where anything of `person` is still in the database: 'table.column'."""
    words = [
        *person.secrets(),
        accounts.hash_token(person.session_id),
        accounts.hash_token(person.token),
    ]
    hits = []
    for table, rows in _everything(engine).items():
        for row in rows:
            for column, value in row.items():
                if column == "annotator_id" and value == person.annotator_id:
                    hits.append(f"{table}.{column}")
                if table == "annotator" and column == "id" and value == person.annotator_id:
                    hits.append("annotator.id")
                cell = json.dumps(value, default=str) if not isinstance(value, str) else value
                if any(w in cell or json.dumps(w)[1:-1] in cell for w in words):
                    hits.append(f"{table}.{column}")
    return sorted(set(hits))


def _counts(engine) -> dict[str, int]:
    return {table: len(rows) for table, rows in _everything(engine).items()}


@pytest.fixture
def world(engine):
    one, two = two_participants(engine)
    # an admin action that names the person, so the audit log holds them too
    set_accounts_active(engine, SYSTEM, [one.name], True)
    assert _traces(engine, one)  # the check finds them before the erasure
    return engine, one, two


def test_an_erased_person_leaves_nothing_in_any_table(world):
    engine, one, two = world
    before_two = _traces(engine, two)
    done = erase_person(engine, SYSTEM, one.name, STUDY)
    assert done.account_removed
    assert done.n_scores == one.n_scores
    assert _traces(engine, one) == []
    assert _traces(engine, two) == before_two  # the other person is untouched
    with read_session(engine) as session:
        entry = session.exec(select(AuditEntry).where(AuditEntry.action == "annotator.erase")).one()
    assert entry.after == {
        "scores_removed": one.n_scores,
        "pairs_removed": 6,
        "account_removed": True,
    }
    data = study_ratings(engine, STUDY)
    assert data.snapshot.ratings["annotator"].nunique() == 1
    report = study_report(data)
    (logged,) = report["erasures"]
    assert (logged["reason"], logged["n_scores"], logged["after_ratings"]) == (
        "request",
        one.n_scores,
        True,
    )
    card = card_files(engine, SYSTEM, STUDY)["README.md"].decode()
    assert "1 participant(s)' data were erased" in card
    md = card_files(engine, SYSTEM, STUDY)["report.md"].decode()
    assert "Participants' data erased" in md


def test_a_participant_who_withdraws_and_asks_for_erasure_leaves_nothing(world):
    engine, one, _two = world
    withdraw_me(
        engine,
        one.annotator_id,
        study=STUDY,
        key=study_key(engine),
        token=one.token,
        erase_data=True,
    )
    assert _traces(engine, one) == []
    assert study_report(study_ratings(engine, STUDY))["erasures"][0]["reason"] == "withdrawal"


def test_a_withdrawal_without_erasure_ends_the_participation_and_keeps_the_ratings(world):
    engine, one, two = world
    counts = _counts(engine)
    withdraw_me(
        engine,
        one.annotator_id,
        study=STUDY,
        key=study_key(engine),
        token=one.token,
        erase_data=False,
    )
    with read_session(engine) as session:
        account = session.get(Annotator, one.annotator_id)
        record = session.exec(
            select(Participation).where(Participation.annotator_id == one.annotator_id)
        ).one()
        pending = session.exec(
            select(Assignment).where(
                Assignment.annotator_id == one.annotator_id, Assignment.status == "pending"
            )
        ).all()
    assert account is not None
    assert not account.active
    assert record.withdrawn_at is not None
    assert pending == []
    assert _counts(engine)["rating"] == counts["rating"]
    with pytest.raises(EnrolmentError, match=ENDED):
        enrol(
            engine,
            study=STUDY,
            key=study_key(engine),
            participant_id=one.pid,
            session_id=one.session_id,
        )
    with pytest.raises(LoginNoLongerValid):  # another's token withdraws nobody
        withdraw_me(
            engine,
            two.annotator_id,
            study=STUDY,
            key=study_key(engine),
            token=one.token,
            erase_data=True,
        )


def test_retention_forgets_platform_ids_and_typed_text_and_keeps_the_scores(world):
    engine, one, _two = world
    set_retention(engine, SYSTEM, STUDY, 30)
    assert retention(engine, SYSTEM) == []  # nobody is older than 30 days
    old = utcnow() - timedelta(days=45)
    with write_session(engine) as session:
        mine = Assignment.annotator_id == one.annotator_id
        session.execute(update(Assignment).where(mine).values(created_at=old, completed_at=old))
        session.execute(
            update(Participation)
            .where(Participation.annotator_id == one.annotator_id)
            .values(consent_at=old)
        )
    scores = _counts(engine)["rating"]
    (due,) = retention(engine, SYSTEM)
    assert due.annotator.startswith("a-")
    assert one.pid not in repr(due)
    assert len(retention(engine, SYSTEM, erase=True)) == 1
    left = [
        t for t in _traces(engine, one) if t not in ("annotator.id",) and "annotator_id" not in t
    ]
    assert left == []  # the account stays (its scores do), nothing of the person's ids or texts
    assert _counts(engine)["rating"] == scores
    with read_session(engine) as session:
        (survey,) = session.exec(
            select(Participation.survey).where(Participation.annotator_id == one.annotator_id)
        ).all()
    assert survey == {"age": "30-49"}  # a choice is no free text
    assert retention(engine, SYSTEM) == []  # forgotten once


def test_the_erasure_command_asks_and_prints_counts_only(world, db_url):
    engine, one, _ = world

    def cli(*args: str, answer: str | None = None):
        try:
            return CliRunner().invoke(app, ["--db", db_url, *args], input=answer)
        finally:
            if State._engine is not None:
                State._engine.dispose()

    refused = cli("annotators", "erase", one.name, "--study", STUDY, answer="n\n")
    assert refused.exit_code == 1
    assert _traces(engine, one)
    result = cli("annotators", "erase", one.name, "--study", STUDY, "--yes")
    assert result.exit_code == 0, result.output
    assert "erased: 6 pair(s), 40 score(s), the account removed" in result.output
    assert one.pid not in result.output.replace(one.name, "")
    assert _traces(engine, one) == []
    again = cli("annotators", "erase", one.name, "--study", STUDY, "--yes")
    assert again.exit_code == 1
