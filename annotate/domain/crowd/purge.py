"""Crowd accounts that never started (issue 24, item 7): an account is created at a
participant's first deliberate action (consent, Begin or Start), but someone may stop there, and
made-up ids may be sent on purpose. An *unstarted* account is a crowd account (external id set)
that has never had a pair in any study; it expires `UNSTARTED_HOURS` after it was created, and
`purge_unstarted` removes the expired ones of a study: the account, and its consent, survey and
training records in that study. Accounts known to another study's records are left to that
study; accounts with no record anywhere are removed with any study's purge (they hold nothing).
The last active admin is never removed, whatever account it was made from.
Works in the caller's transaction.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import delete
from sqlmodel import Session, col, select

from annotate.db.tables import Annotator, Assignment, Participation, Study, Training, stored_id
from annotate.domain.study.permissions import spare_last_admin

UNSTARTED_HOURS = 24
"""An unstarted crowd account expires this long after it was created."""


def expired_unstarted(session: Session, study: Study, now: datetime) -> list[Annotator]:
    """The study's unstarted crowd accounts created more than UNSTARTED_HOURS before `now`."""
    study_id = stored_id(study)
    worked = select(Assignment.annotator_id)
    elsewhere = select(Participation.annotator_id).where(Participation.study_id != study_id)
    trained_elsewhere = select(Training.annotator_id).where(Training.study_id != study_id)
    found = session.exec(
        select(Annotator).where(
            col(Annotator.external_id).is_not(None),
            col(Annotator.created_at) < now - timedelta(hours=UNSTARTED_HOURS),
            col(Annotator.id).not_in(worked),
            col(Annotator.id).not_in(elsewhere),
            col(Annotator.id).not_in(trained_elsewhere),
        )
    )
    return spare_last_admin(session, list(found))


def purge_unstarted(session: Session, study: Study, now: datetime) -> int:
    """Remove the study's expired unstarted accounts with their records; how many."""
    gone = [stored_id(a) for a in expired_unstarted(session, study, now)]
    if gone:
        for table in (Participation, Training):
            session.execute(delete(table).where(col(table.annotator_id).in_(gone)))
        session.execute(delete(Annotator).where(col(Annotator.id).in_(gone)))
    return len(gone)
