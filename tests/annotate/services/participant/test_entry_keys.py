"""Entry keys (issue 36.4) at the service level, on SQLite and PostgreSQL
(PRB_TEST_DATABASE_URL): a resend of an entry that was stored but whose answer was lost is
recognised by its key and counts nothing twice: no second revision, no signals added twice,
no change of status or completion time; two sends of one key at once store it once; the
unique constraint refuses a second row by itself; a skip's key likewise; a key the page could
not have made is refused before anything is written; erasing the person takes their keys."""

from __future__ import annotations

import threading
import uuid
from typing import Any

import pytest
from sqlalchemy import func
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select

from annotate.db import read_session, write_session
from annotate.db.tables import Annotator, Assignment, EntryKey, Pair, Rating, RatingRevision
from annotate.domain.rating.entry_keys import BadEntryKey
from annotate.domain.rating.signals import Signals
from annotate.domain.study.permissions import SYSTEM
from annotate.services.admin.demo import DEMO_ANNOTATOR, DEMO_STUDY, set_up_demo
from annotate.services.admin.erasure import erase_person
from annotate.services.participant.rating import skip_pair, submit_rating
from annotate.vocabulary import DIMENSIONS, SIDES


def _scores(value: int) -> dict[str, dict[str, int]]:
    return {side: dict.fromkeys(DIMENSIONS, value) for side in SIDES}


def _demo(engine: Any) -> tuple[int, list[int]]:
    """The demo annotator and their first three (non-gold) assignments."""
    set_up_demo(engine)
    with read_session(engine) as session:
        me = session.exec(select(Annotator).where(Annotator.name == DEMO_ANNOTATOR)).one().id
        assert me is not None
        rows = session.exec(
            select(Assignment.id)
            .join(Pair, col(Pair.id) == col(Assignment.pair_id))
            .where(Assignment.annotator_id == me, col(Pair.gold_preference).is_(None))
            .order_by(Assignment.position)
            .limit(3)
        ).all()
    return me, [int(r) for r in rows if r is not None]


def _facts(engine: Any, assignment_id: int) -> dict[str, Any]:
    """Everything a second count would change: scores, revisions, signals, status, times."""
    with read_session(engine) as session:
        row = session.get(Assignment, assignment_id)
        assert row is not None
        ratings = session.exec(select(Rating).where(Rating.assignment_id == assignment_id)).all()
        revisions = session.exec(
            select(func.count())
            .select_from(RatingRevision)
            .where(col(RatingRevision.rating_id).in_([r.id for r in ratings]))
        ).one()
        keys = session.exec(
            select(func.count()).select_from(EntryKey).where(EntryKey.assignment_id == row.id)
        ).one()
    return {
        "scores": sorted((r.response, r.dimension, r.score, r.revision) for r in ratings),
        "revisions": revisions,
        "signals": (row.focus_losses, row.pastes),
        "status": row.status,
        "completed_at": row.completed_at,
        "comment": row.comment,
        "keys": keys,
    }


def _submit(engine: Any, me: int, assignment_id: int, value: int, key: str, losses: int) -> Any:
    return submit_rating(
        engine, annotator_id=me, assignment_id=assignment_id, scores=_scores(value),
        seconds=10.0, comment=f"value {value}", signals=Signals(losses, 0), entry_key=key,
    )  # fmt: skip


def test_a_resend_of_a_stored_entry_counts_nothing_twice(engine):
    me, (first, *_) = _demo(engine)
    sent, revised = str(uuid.uuid4()), str(uuid.uuid4())
    assert _submit(engine, me, first, 3, sent, 2).status == "saved"
    # Its answer was lost; meanwhile the annotator revised the pair (another key) ...
    assert _submit(engine, me, first, 5, revised, 1).status == "revised"
    before = _facts(engine, first)
    # ... and then the first entry arrives again: recognised, nothing written.
    again = _submit(engine, me, first, 3, sent, 2)
    assert (again.status, again.repeated) == ("saved", True)
    assert _facts(engine, first) == before
    assert before["signals"] == (3, 0)
    assert before["keys"] == 2
    assert {score for _, _, score, _ in before["scores"]} == {5}


def _send_twice_at_once(engine: Any, me: int, assignment_id: int) -> list[Any]:
    """The same entry (one key) sent by two threads released together; their results."""
    key = str(uuid.uuid4())
    start = threading.Barrier(2)
    results: list[Any] = []
    errors: list[BaseException] = []

    def send() -> None:
        start.wait()
        try:
            results.append(_submit(engine, me, assignment_id, 4, key, 1))
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=send) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    return results


def test_two_concurrent_sends_of_one_key_store_it_once(engine):
    me, (first, second, _) = _demo(engine)
    results = _send_twice_at_once(engine, me, first)  # a first save
    assert sorted(r.repeated for r in results) == [False, True]
    facts = _facts(engine, first)
    assert (facts["keys"], facts["revisions"], facts["signals"]) == (1, 0, (1, 0))
    assert {revision for *_, revision in facts["scores"]} == {1}

    _submit(engine, me, second, 2, str(uuid.uuid4()), 0)
    results = _send_twice_at_once(engine, me, second)  # a revision of a saved pair
    assert sorted(r.repeated for r in results) == [False, True]
    facts = _facts(engine, second)
    assert (facts["keys"], facts["signals"]) == (2, (1, 0))  # signals counted once
    assert facts["revisions"] == 2 * len(DIMENSIONS)  # one revision, not two
    assert {revision for *_, revision in facts["scores"]} == {2}


def test_the_unique_constraint_refuses_a_second_row_by_itself(engine):
    me, (first, *_) = _demo(engine)
    key = str(uuid.uuid4())
    _submit(engine, me, first, 3, key, 0)
    with write_session(engine) as session:
        session.add(EntryKey(assignment_id=first, key=key, action="submit", outcome="saved"))
        with pytest.raises(IntegrityError):
            session.flush()
        session.rollback()


def test_a_skip_sent_twice_is_stored_once(engine):
    me, (_, _, third) = _demo(engine)
    key = str(uuid.uuid4())
    for _ in range(2):
        skip_pair(engine, annotator_id=me, assignment_id=third, reason="unclear", entry_key=key)
    facts = _facts(engine, third)
    assert (facts["status"], facts["keys"]) == ("skipped", 1)


@pytest.mark.parametrize("key", ["", "short", "x" * 65, "<script>-0000000000000", "a b" * 8])
def test_a_key_the_page_cannot_make_is_refused_and_nothing_written(engine, key):
    me, (first, *_) = _demo(engine)
    with pytest.raises(BadEntryKey):
        _submit(engine, me, first, 3, key, 0)
    assert _facts(engine, first)["status"] == "pending"
    assert _facts(engine, first)["keys"] == 0


def test_erasing_the_person_takes_their_keys(engine):
    me, (first, *_) = _demo(engine)
    _submit(engine, me, first, 3, str(uuid.uuid4()), 0)
    erase_person(engine, SYSTEM, DEMO_ANNOTATOR, DEMO_STUDY)
    with read_session(engine) as session:
        assert session.exec(select(func.count()).select_from(EntryKey)).one() == 0
