"""An annotator's own actions on a pair: submit scores (with an optional flag), skip.

Each is one write transaction that first checks, inside it, that the assignment is the caller's
(`annotate.domain.rating.ratings.owned_assignment`), then calls the domain. The page passes the
logged-in account's id; nobody can touch another annotator's work.
"""

from __future__ import annotations

from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

from annotate.db import write_session
from annotate.domain.crowd import training
from annotate.domain.rating import ratings
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
) -> SubmitResult:
    """Save the 8 scores of one pair. Resubmitting the same scores changes nothing.

    `side_preference` and `rationale`: the direct preference by side, for a study that asks
    for it; `aspect_marks`: each rubric aspect's coverage by side, for a study with the aspect
    checklist; `spans`: the spans marked by side (`annotate.domain.rating.spans`; None leaves
    them as they are); `signals`: the focus losses and pastes the browser counted on this showing of
    the pair (all saved in the same transaction as the scores, or none). With `token` (the
    page's login token), the save is refused (`LoginNoLongerValid`, nothing written) unless,
    inside the same transaction, it is still this active account's token.
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
    try:
        return _submit_once(engine, annotator_id, assignment_id, sent, token)
    except IntegrityError:
        # A concurrent submit of the same pair won the insert race; ours becomes a revision.
        return _submit_once(engine, annotator_id, assignment_id, sent, token)


def _submit_once(
    engine: Engine, annotator_id: int, assignment_id: int, sent: Submission, token: str | None
) -> SubmitResult:
    with write_session(engine) as session:
        if token is not None:
            accounts.require_current_login(session, token, annotator_id)
        assignment = ratings.owned_assignment(session, annotator_id, assignment_id)
        training.require_trained(session, annotator_id, assignment.study_id)
        return ratings.save_scores(session, assignment, sent)


def skip_pair(
    engine: Engine,
    *,
    annotator_id: int,
    assignment_id: int,
    reason: str,
    token: str | None = None,
    flag: bool = False,
) -> None:
    """Mark a pair skipped, with the annotator's reason. Scores already given are kept.

    `flag`: the reason is a flag sent without scores (set aside as a skip, in the Flags queue
    as a flag: `ratings.skip`). `token`: as for `submit_rating`.
    """
    ratings.check_skip_reason(reason, flag=flag)
    with write_session(engine) as session:
        if token is not None:
            accounts.require_current_login(session, token, annotator_id)
        assignment = ratings.owned_assignment(session, annotator_id, assignment_id)
        ratings.skip(session, assignment, reason, flag=flag)
