"""The participants' standing as the sync reads it, and what a submission returned or timed
out on the platform does here (issue 34.3): both through the participant's stored outcome
(`annotate.domain.crowd.outcomes`), so what the platform is told is what the participant was
shown.
"""

from __future__ import annotations

from sqlmodel import Session

from annotate.db.tables import Annotator, Study, stored_id
from annotate.domain.assignment.release import release_unfinished
from annotate.domain.crowd import outcomes, participants
from annotate.domain.platforms.plan import Standing


def standings(session: Session, study: Study) -> dict[str, Standing]:
    """Each crowd participant of `study` by platform id, with their outcome's status ("in
    progress" or "not started" for one not settled yet)."""
    return {
        row.participant_id: Standing(
            row.annotator_id, row.participant_id, row.status, row.pairs_done
        )
        for row in participants.participant_rows(session, study)
    }


def settle_exit(session: Session, study: Study, annotator_id: int, status: str) -> int:
    """A participant whose submission was returned or timed out on the platform (`status`,
    `outcomes.RETURNED` or `outcomes.TIMED_OUT`): the outcome is settled with it, their
    unfinished pairs go back to the pool and the pool gives them nothing more. Returns how many
    pairs were released."""
    annotator = session.get(Annotator, annotator_id)
    if annotator is None:
        return 0
    released = release_unfinished(session, stored_id(study), annotator_id, status)
    outcomes.settle(session, study, annotator, status, "The platform says: " + status + ".")
    return released
