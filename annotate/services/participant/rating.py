"""An annotator's own actions on a pair: submit scores (with an optional flag), skip.

Each is one write transaction that first checks, inside it, that the assignment is the caller's
(`annotate.domain.rating.ratings.owned_assignment`), then calls the domain. The page passes the
logged-in account's id; nobody can touch another annotator's work.

With an `entry_key` (the rating component's, issue 36.4) the key is stored in the same
transaction; a resend of a key already stored is answered with what its first write did and
writes nothing (`annotate.domain.rating.entry_keys`). Two sends of one key at once: the write
lock runs them one after the other, and the unique constraint backs it (the loser's
IntegrityError is retried, and then recognised).
"""

from __future__ import annotations

from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

from annotate.db import write_session
from annotate.domain.crowd import training
from annotate.domain.rating import entry_keys, ratings
from annotate.domain.rating.aspects import AspectMarks
from annotate.domain.rating.ratings import Scores, Submission, SubmitResult
from annotate.domain.rating.signals import Signals
from annotate.domain.rating.spans import SideSpans
from annotate.domain.study import accounts


def submit_rating(
    engine: Engine,
    *,
    annotator_id: int,
    assignment_id: int,
    scores: Scores,
    seconds: float,
    comment: str | None = None,
    flag_reason: str | None = None,
    token: str | None = None,
    side_preference: int | None = None,
    rationale: str | None = None,
    aspect_marks: AspectMarks | None = None,
    signals: Signals | None = None,
    spans: SideSpans | None = None,
    entry_key: str | None = None,
) -> SubmitResult:
    """Save the 8 scores of one pair. Resubmitting the same scores changes nothing.

    `side_preference` and `rationale`: the direct preference by side, for a study that asks
    for it; `aspect_marks`: each rubric aspect's coverage by side, for a study with the aspect
    checklist; `spans`: the spans marked by side (`annotate.domain.rating.spans`; None leaves
    them as they are); `signals`: the focus losses and pastes the browser counted on this showing of
    the pair (all saved in the same transaction as the scores, or none). With `token` (the
    page's login token), the save is refused (`LoginNoLongerValid`, nothing written) unless,
    inside the same transaction, it is still this active account's token. `entry_key`: as
    the module says (a resend returns the first write's status, `repeated`).
    """
    sent = Submission(
        scores,
        seconds,
        comment,
        flag_reason,
        side_preference,
        rationale,
        aspect_marks,
        signals,
        spans,
    )
    key = None if entry_key is None else entry_keys.checked_key(entry_key)
    try:
        return _submit_once(engine, annotator_id, assignment_id, sent, token, key)
    except IntegrityError:
        # A concurrent submit of the same pair won the insert race; ours becomes a revision
        # (or, for the same entry key, is recognised as the same entry).
        return _submit_once(engine, annotator_id, assignment_id, sent, token, key)


def _submit_once(
    engine: Engine,
    annotator_id: int,
    assignment_id: int,
    sent: Submission,
    token: str | None,
    key: str | None,
) -> SubmitResult:
    with write_session(engine) as session:
        if token is not None:
            accounts.require_current_login(session, token, annotator_id)
        assignment = ratings.owned_assignment(session, annotator_id, assignment_id)
        earlier = None if key is None else entry_keys.recorded(session, assignment_id, key)
        if earlier is not None:
            return SubmitResult(earlier.outcome, assignment_id, repeated=True)
        training.require_trained(session, annotator_id, assignment.study_id)
        result = ratings.save_scores(session, assignment, sent)
        if key is not None:
            entry_keys.record(session, assignment_id, key, entry_keys.SUBMIT, result.status)
        return result


def skip_pair(
    engine: Engine,
    *,
    annotator_id: int,
    assignment_id: int,
    reason: str,
    token: str | None = None,
    flag: bool = False,
    entry_key: str | None = None,
) -> None:
    """Mark a pair skipped, with the annotator's reason. Scores already given are kept.

    `flag`: the reason is a flag sent without scores (set aside as a skip, in the Flags queue
    as a flag: `ratings.skip`). `token`, `entry_key`: as for `submit_rating`.
    """
    ratings.check_skip_reason(reason, flag=flag)
    key = None if entry_key is None else entry_keys.checked_key(entry_key)
    try:
        _skip_once(engine, annotator_id, assignment_id, reason, token, flag, key)
    except IntegrityError:  # the same key stored meanwhile: recognised on the retry
        _skip_once(engine, annotator_id, assignment_id, reason, token, flag, key)


def _skip_once(
    engine: Engine,
    annotator_id: int,
    assignment_id: int,
    reason: str,
    token: str | None,
    flag: bool,
    key: str | None,
) -> None:
    with write_session(engine) as session:
        if token is not None:
            accounts.require_current_login(session, token, annotator_id)
        assignment = ratings.owned_assignment(session, annotator_id, assignment_id)
        if key is not None and entry_keys.recorded(session, assignment_id, key) is not None:
            return
        ratings.skip(session, assignment, reason, flag=flag)
        if key is not None:
            entry_keys.record(session, assignment_id, key, entry_keys.SKIP, "skipped")
