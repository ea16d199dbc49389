"""One stored outcome per participant and study (issue 34.1): how their participation ended,
with the code they were given and the reason they were shown.

`settle` is the only writer; the done page, the Participants page, the payments export and the
platform adapter read `outcome_of`, so what the participant was shown is what the admin
approves. The outcome lives on the participation row (`Participation.outcome*`), made here for
a participant who has none.

The statuses, their codes and who sets them:

- `completed`, the completion code: Finish, the quota reached, or the pool empty once the finish
  rule was met (`annotate.domain.crowd.finish.conclude`);
- `completed, pool empty`, the completion code, paid pro rata: the pool ran dry after some
  rated work, short of the rule;
- `screened out`, the screen-out code: declined consent, failed training, or the skip-and-flag
  limit reached short of the rule;
- `failed checks`, no code: the instructed-response checks failed (in session);
- `withdrawn`, no code: the participant withdrew;
- `returned`, `timed out`, no code: the platform says the submission was returned or timed out
  (not a withdrawal).

Later calls (idempotent): the same status again changes nothing. The first outcome stands
against every other status except what the platform says: `returned` or `timed out` replaces
any outcome (the platform's record of the submission is final for payment; a participant
shown the completion code who then returned it is not paid), and one platform status replaces
the other. A refused change returns the stored outcome unchanged; the caller compares statuses.
Whatever the status, and whether or not it changed, `settle` releases the person's unfinished
slots (`annotate.domain.assignment.release.release_unfinished`) and the pool gives them nothing
more (`assignment.crowd.has_finished`).

These functions work in the caller's transaction and do not commit.

The instructed-response checks (`annotate.domain.crowd.checks`) end a participant with
`settle(session, study, annotator, FAILED_CHECKS, reason)`; the platform adapter
(`annotate.domain.platforms.standing`) reads `outcome_of` to approve (`PAID`) and calls
`settle(..., RETURNED | TIMED_OUT)` for submissions returned or timed out on the platform.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session, select

from annotate.db.tables import Annotator, Participation, Study, stored_id
from annotate.domain.assignment import as_utc
from annotate.domain.assignment.release import release_unfinished
from annotate.errors import Invalid

COMPLETED = "completed"
PARTIAL = "completed, pool empty"  # paid pro rata
SCREENED_OUT = "screened out"
FAILED_CHECKS = "failed checks"
WITHDRAWN = "withdrawn"
RETURNED = "returned"  # set from the platform: not a withdrawal
TIMED_OUT = "timed out"  # set from the platform
STATUSES = (COMPLETED, PARTIAL, SCREENED_OUT, FAILED_CHECKS, WITHDRAWN, RETURNED, TIMED_OUT)
PLATFORM = frozenset({RETURNED, TIMED_OUT})
"""The statuses the platform decides: they replace any earlier outcome."""
PAID = frozenset({COMPLETED, PARTIAL})
"""The statuses that earn the completion code."""
NOT_ASKED = "not asked"  # the consent of a participation made here (a study without consent)


@dataclass(frozen=True)
class Outcome:
    status: str
    code: str
    reason: str
    at: datetime


def code_for(study: Study, status: str) -> str:
    """The code a participant with `status` is given (empty: none)."""
    if status in PAID:
        return study.completion_code or ""
    if status == SCREENED_OUT:
        return study.screenout_code or ""
    return ""


def may_replace(before: str, after: str) -> bool:
    """Whether an outcome `before` may become `after` (see the module)."""
    return before != after and after in PLATFORM


def _row(session: Session, study_id: int, annotator_id: int) -> Participation | None:
    return session.exec(
        select(Participation).where(
            Participation.annotator_id == annotator_id, Participation.study_id == study_id
        )
    ).first()


def _read(row: Participation | None) -> Outcome | None:
    if row is None or row.outcome is None or row.outcome_at is None:
        return None
    return Outcome(row.outcome, row.outcome_code, row.outcome_reason, as_utc(row.outcome_at))


def outcome_of(session: Session, study_id: int, annotator_id: int) -> Outcome | None:
    """The participant's stored outcome in the study (None: not ended)."""
    return _read(_row(session, study_id, annotator_id))


def settle(
    session: Session,
    study: Study,
    annotator: Annotator,
    status: str,
    reason: str = "",
    now: datetime | None = None,
) -> Outcome:
    """End the participant's participation with `status` (see the module for the codes and
    the changes allowed); return the outcome stored now (the earlier one when the change is
    not allowed). Their unfinished slots go back to the pool in every case."""
    if status not in STATUSES:
        raise Invalid(f"unknown outcome {status!r}; expected one of {', '.join(STATUSES)}")
    moment = as_utc(now)
    study_id, annotator_id = stored_id(study), stored_id(annotator)
    release_unfinished(session, study_id, annotator_id, status, moment)
    row = _row(session, study_id, annotator_id)
    before = _read(row)
    if before is not None and not may_replace(before.status, status):
        return before
    if row is None:
        row = Participation(annotator_id=annotator_id, study_id=study_id, consent=NOT_ASKED)
    row.outcome, row.outcome_code = status, code_for(study, status)
    row.outcome_reason, row.outcome_at = reason, moment
    session.add(row)
    session.flush()
    found = _read(row)
    assert found is not None
    return found
