"""Annotator-facing work actions, one transaction each: pulling the next pair from an open pool,
and holding the one after it (issue 36.2).

The actor pulls for themselves: the assignment is created for `actor_id` and nobody else, and
whether that account may pull (it exists, is active, the pool is open, the quota is not reached)
is decided inside the same write transaction as the pull (`assignment.pool.pull_next`). An
account that may not pull gets None, as an empty pool would give: the rating page then shows
what it shows at the end of a queue.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.engine import Engine

from annotate.db import read_session, write_session
from annotate.db.tables import Annotator, Assignment, Study
from annotate.domain.assignment import pool
from annotate.domain.crowd import finish
from annotate.domain.crowd.checks import DueCheck, due_check
from annotate.domain.crowd.finish import EndingNote, ending_notes
from annotate.domain.rating.queue import PairView, QueueEntry, pair_view, queue
from annotate.vocabulary import AssignmentStatus


def pull_next(
    engine: Engine, actor_id: int, study_id: int, *, now: datetime | None = None
) -> int | None:
    """Reserve the next pair of this open-pool study for the actor; return the assignment id.
    None: nothing for them, and a crowd participant's outcome is concluded."""
    with write_session(engine) as session:
        pulled = pool.pull_next(session, actor_id, study_id, now=now)
        person = session.get(Annotator, actor_id)
        if pulled is None and person is not None and person.external_id is not None:
            finish.conclude(session, session.get_one(Study, study_id), person, now)
        return pulled


def hold_next(
    engine: Engine, actor_id: int, shown_id: int, *, now: datetime | None = None
) -> int | None:
    """The pair held behind the one the actor's page shows (`shown_id`, a pending pair of
    theirs in an open pool): reserved now if none is held yet (`assignment.pool.hold_next`);
    its assignment id, or None (nothing to hold: the quota, the pool, an unproven crowd
    participant). Ending nothing: the shown pair is still theirs to rate. A read first, so a
    pair of a fixed plan never takes the write lock."""
    with read_session(engine) as session:
        shown = session.get(Assignment, shown_id)
        if shown is None or shown.annotator_id != actor_id:
            return None
        study = session.get(Study, shown.study_id)
        if shown.status != AssignmentStatus.PENDING or study is None or not study.pool_open:
            return None
        study_id = shown.study_id
    with write_session(engine) as session:
        held = pool.hold_next(session, actor_id, study_id, now=now)
        return None if held == shown_id else held


def pull_for_annotator(engine: Engine, actor_id: int, *, now: datetime | None = None) -> int | None:
    """For the rating page at the end of a queue: pull from the actor's open pools, one
    transaction per study tried (a read first, so an account in no pool never takes the write
    lock)."""
    with read_session(engine) as session:
        studies = pool.pool_studies_of(session, actor_id)
    for study_id in studies:
        pulled = pull_next(engine, actor_id, study_id, now=now)
        if pulled is not None:
            return pulled
    return None


def annotator_queue(engine: Engine, actor_id: int) -> tuple[list[QueueEntry], DueCheck | None]:
    """The annotator's queue, and the instructed-response check due before their next pair
    (None: none is due)."""
    with read_session(engine) as session:
        return queue(session, actor_id), due_check(session, actor_id)


def shown_pair(engine: Engine, actor_id: int, assignment_id: int) -> PairView:
    """The blinded view of one of the annotator's own pairs (`annotate.domain.rating.queue`)."""
    with read_session(engine) as session:
        return pair_view(session, actor_id, assignment_id)


def endings(engine: Engine, actor_id: int) -> list[EndingNote]:
    """What the done page says of each study the annotator took part in."""
    with read_session(engine) as session:
        return ending_notes(session, actor_id)
