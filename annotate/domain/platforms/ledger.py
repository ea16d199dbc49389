"""The ledger of what the sync sends to a study's platform (issue 34.3): each action is
recorded before it is sent, and its state moves on in a transaction of its own around each
call, so that a retry after a crash, a 5xx or a lost answer never sends an approval or a bonus
twice (a bulk bonus paid twice pays twice).

States: `planned` -> `sending` -> `sent` | `failed` (a decision: sent again on the next sync;
Prolific's transitions are idempotent). A bulk bonus: `planned` -> `creating` -> `created`
(the platform's id kept) -> `paying` -> `sent`; a failure while setting it up is `failed`
(set up again: nothing is paid until it is paid), a payment the platform refused for its rate
goes back to `created`, and one that may have gone through (a 5xx, no answer, or a sync that
stopped while `paying`) is `unknown`:
never paid again by the sync; the admin checks on the platform and says paid or not
(`resolve`). A bonus's set-up and payment are claimed (`move` with `expect`): two syncs at
once never both set up or pay one bonus.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlmodel import Session, col, select

from annotate.db.tables import PlatformAction, stored_id, utcnow
from annotate.domain.assignment import as_utc
from annotate.domain.platforms.plan import BONUS, Action
from annotate.errors import Conflict, NotFound

SENT, FAILED, UNKNOWN, CREATED, PAYING = "sent", "failed", "unknown", "created", "paying"
IN_FLIGHT = ("sending", "creating", PAYING)
"""States a sync holds while it waits for the platform's answer."""
STALE_AFTER = timedelta(minutes=10)
"""An action in flight this long ago belongs to a sync that stopped."""
DONE = (SENT, "erased")
"""States the sync never sends again (`erased`: the participant's data were erased)."""
MAX_ERROR_CHARS = 500


def rows(session: Session, study_id: int) -> list[PlatformAction]:
    query = select(PlatformAction).where(col(PlatformAction.study_id) == study_id)
    return list(session.exec(query.order_by(col(PlatformAction.id))).all())


def as_action(row: PlatformAction) -> Action:
    return Action(
        kind=row.kind,
        key=row.key,
        why=str(row.payload.get("why", "")),
        submission_id=row.submission_id,
        participant_id=str(row.payload.get("participant_id", "")),
        annotator_id=row.annotator_id,
        amount=row.amount,
        payload=dict(row.payload),
        state=row.state,
        action_id=row.id,
    )


def pending_and_sent(session: Session, study_id: int) -> tuple[dict[str, Action], set[str]]:
    """The recorded actions not sent yet (by key), and the keys of those sent."""
    found = rows(session, study_id)
    pending = {r.key: as_action(r) for r in found if r.state not in DONE}
    return pending, {r.key for r in found if r.state in DONE}


def all_actions(session: Session, study_id: int) -> list[Action]:
    return [as_action(r) for r in rows(session, study_id)]


def record(session: Session, study_id: int, action: Action) -> PlatformAction:
    """The action's ledger row: the one held for its key, else a new one, `planned`."""
    row = session.exec(
        select(PlatformAction).where(
            col(PlatformAction.study_id) == study_id, col(PlatformAction.key) == action.key
        )
    ).first()
    if row is None:
        payload = dict(action.payload) | {
            "why": action.why,
            "participant_id": action.participant_id,
        }
        row = PlatformAction(
            study_id=study_id,
            key=action.key,
            kind=action.kind,
            annotator_id=action.annotator_id,
            submission_id=action.submission_id,
            payload=payload,
            amount=action.amount,
        )
        session.add(row)
        session.flush()
    action.action_id, action.state = stored_id(row), row.state
    return row


class Taken(Conflict):
    """Another sync holds the action (it is waiting for the platform's answer)."""


def move(
    session: Session,
    action_id: int,
    state: str,
    *,
    error: str = "",
    ref: str | None = None,
    attempt: bool = False,
    expect: tuple[str, ...] | None = None,
    now: datetime | None = None,
) -> PlatformAction:
    """Set the action's state (with the platform's id of what it created, the error). With
    `expect`, only from one of those states, and from a state in flight only when the sync
    that set it stopped (`STALE_AFTER`): else `Taken`, so two syncs at once (two admins, two
    servers) never both set up or pay one bonus."""
    row = session.get(PlatformAction, action_id)
    if row is None:
        raise NotFound(f"no platform action {action_id}")
    if expect is not None:
        moment = now or utcnow()
        busy = row.state in IN_FLIGHT and as_utc(row.updated_at) > moment - STALE_AFTER
        if row.state not in expect or busy:
            raise Taken(
                f"platform action {action_id} is {row.state}: another sync is sending it (or "
                f"one stopped: it can be sent again {STALE_AFTER.seconds // 60} minutes after)"
            )
    row.state, row.error, row.updated_at = state, error[:MAX_ERROR_CHARS], utcnow()
    if ref is not None:
        row.platform_ref = ref
    if attempt:
        row.attempts += 1
    session.add(row)
    session.flush()
    return row


def resolve(session: Session, study_id: int, action_id: int, paid: bool) -> PlatformAction:
    """The admin's word on a bulk bonus whose payment is unknown: paid (sent) or not (created:
    the next sync pays it)."""
    row = session.get(PlatformAction, action_id)
    if row is None or row.study_id != study_id or row.kind != BONUS:
        raise NotFound(f"no bonus payment {action_id} in this study")
    if row.state != UNKNOWN:
        raise Conflict(f"bonus payment {action_id} is {row.state}, not unknown: nothing to resolve")
    return move(session, action_id, SENT if paid else CREATED)
