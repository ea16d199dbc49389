"""`prb-annotate crowd purge --study S` (issue 24, item 7): crowd accounts that never started
expire after 24 hours and are removed with their consent records; started ones, recent ones and
those of another study stay; the audit entry holds their number, not their platform ids. Real
database (SQLite, or PostgreSQL with PRB_TEST_DATABASE_URL)."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import update
from sqlmodel import col, select

from annotate.db import make_engine, read_session, write_session
from annotate.db.tables import Annotator, AuditEntry, Participation, utcnow
from annotate.domain.study import studies
from annotate.domain.study.permissions import SYSTEM
from annotate.services.admin.data import import_files
from annotate.services.participant.consent import decide
from annotate.services.participant.enrolment import enrol, start


def _crowd(session, name: str, **settings) -> str:
    study = studies.create_study(session, name, pool_open=True, enrolment_open=True, **settings)
    return study.enrolment_key or ""


def test_purge_removes_expired_unstarted_accounts_only(
    db_url, run, make_record, write_records, tmp_path
):
    engine = make_engine(db_url)
    with write_session(engine) as session:
        key = _crowd(session, "crowd", consent_text="Agree?")
        other_key = _crowd(session, "other", consent_text="Agree?")
    path = write_records(tmp_path / "A_test.jsonl", [make_record(f"r{i}") for i in range(2)])
    import_files(engine, SYSTEM, [path], study="crowd")

    def person(pid: str, study: str = "crowd", link: str = key) -> int:
        found = enrol(engine, study=study, key=link, participant_id=pid, session_id=f"s{pid}")
        decide(engine, found.annotator_id, study=study, key=link, accept=True)
        return found.annotator_id

    idle = person("idle1")
    started = person("worker1")
    assert start(engine, started, study="crowd", key=key) is not None
    elsewhere = person("other1", "other", other_key)
    recent = person("recent1")
    with write_session(engine) as session:  # all but `recent` enrolled two days ago
        session.execute(
            update(Annotator)
            .where(col(Annotator.id).in_([idle, started, elsewhere]))
            .values(created_at=utcnow() - timedelta(days=2))
        )
    printed = run("crowd", "purge", "--study", "crowd")
    assert "1 unstarted crowd account(s) older than 24 hours removed from crowd." in printed
    with read_session(engine) as session:
        left = {a.id for a in session.exec(select(Annotator))}
        consents = {p.annotator_id for p in session.exec(select(Participation))}
        (entry,) = session.exec(select(AuditEntry).where(AuditEntry.action == "crowd.purge"))
    assert left == {started, elsewhere, recent}
    assert idle not in consents
    assert entry.after == {"purged_accounts": 1, "expired_after_hours": 24}
    assert "idle1" not in str(entry.before) + str(entry.after)
    assert "0 unstarted" in run("crowd", "purge", "--study", "crowd")  # nothing left to purge
    engine.dispose()
