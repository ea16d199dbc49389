"""A crowd participant can always finish (issue 22.4): enrolment opens only with a per-person
quota, and once a participant has rated the study's minimum the rating page offers Finish,
which ends with the completion code. Services on SQLite or PostgreSQL, the page with AppTest."""

from __future__ import annotations

import pytest
from sqlmodel import select

from annotate.db import read_session, write_session
from annotate.db.tables import Participation
from annotate.domain.crowd.finish import FinishRefused
from annotate.domain.rating.queue import finished_studies, pair_view
from annotate.domain.study.studies import (
    DEFAULT_CROWD_QUOTA,
    StudyError,
    get_study,
    preview_changes,
    update_study,
)
from annotate.services.participant.enrolment import enrol, finish_offers, finish_study, start
from annotate.services.participant.work import pull_next
from tests.helpers.admin_helpers import (
    assignments,
    button,
    make_people,
    make_study,
    page_texts,
    rate,
)

PID = "5f1a2b3c4d5e6f7a8b9c0d1e"
SESSION = "6a7b8c9d0e1f2a3b4c5d6e7f"


def _participant(engine, pid: str = PID):
    with read_session(engine) as session:
        key = get_study(session, "crowd").enrolment_key
    visit = enrol(engine, study="crowd", key=key, participant_id=pid, session_id=SESSION)
    start(engine, visit.annotator_id, study="crowd", key=key)
    return visit


def _rate_pulled(engine, annotator_id: int, study_id: int, n: int) -> None:
    for _ in range(n):
        pulled = pull_next(engine, annotator_id, study_id)
        assert pulled is not None
        rate(engine, annotator_id, pulled)


def test_opening_enrolment_without_a_quota_gives_the_default_and_says_so(engine):
    make_study(engine, "crowd", pairs=30, pool_open=True)
    with read_session(engine) as session:
        shown = preview_changes(get_study(session, "crowd"), {"enrolment_open": True})
    assert shown["pool_quota"] == (None, DEFAULT_CROWD_QUOTA)  # in the confirmation table
    with write_session(engine) as session:
        update_study(session, "crowd", enrolment_open=True)
    with write_session(engine) as session:
        assert get_study(session, "crowd").pool_quota == DEFAULT_CROWD_QUOTA
        with pytest.raises(StudyError, match="cannot exceed the pairs per person"):
            update_study(session, "crowd", finish_minimum=DEFAULT_CROWD_QUOTA + 1)


def test_finish_is_offered_at_the_minimum_and_ends_the_participant_s_work(engine):
    study_id = make_study(
        engine, "crowd", pairs=8, overlap=1, pool_open=True, enrolment_open=True,
        pool_quota=5, finish_minimum=2, completion_code="DONE-1",
    )  # fmt: skip
    visit = _participant(engine)
    me = visit.annotator_id
    rate(engine, me, pull_next(engine, me, study_id))
    assert finish_offers(engine, me) == []
    with pytest.raises(FinishRefused, match="at least 2 pairs"):
        finish_study(engine, me, study="crowd", token=visit.token)
    rate(engine, me, pull_next(engine, me, study_id))
    held = pull_next(engine, me, study_id)  # the third pair, reserved and shown
    (offer,) = finish_offers(engine, me)
    assert (offer.study, offer.rated, offer.minimum, offer.quota) == ("crowd", 2, 2, 5)
    assert finish_study(engine, me, study="crowd", token=visit.token) == 1
    statuses = {a.id: a.status for a in assignments(engine, study_id)}
    assert statuses[held] == "released"  # back to the pool for someone else
    assert sorted(statuses.values()) == ["done", "done", "released"]
    assert pull_next(engine, me, study_id) is None  # nothing more for them
    assert finish_offers(engine, me) == []
    with read_session(engine) as session:
        assert [s.name for s in finished_studies(session, me)] == ["crowd"]
        (row,) = session.exec(select(Participation)).all()
    assert row.finished_at is not None
    other = _participant(engine, pid="5f1a2b3c4d5e6f7a8b9c0d1f")
    assert pull_next(engine, other.annotator_id, study_id) is not None


def test_a_stale_login_cannot_finish(engine):
    study_id = make_study(
        engine, "crowd", pairs=4, overlap=1, pool_open=True, enrolment_open=True,
        pool_quota=3, finish_minimum=1,
    )  # fmt: skip
    visit = _participant(engine)
    rate(engine, visit.annotator_id, pull_next(engine, visit.annotator_id, study_id))
    with pytest.raises(Exception, match="no longer valid"):
        finish_study(engine, visit.annotator_id, study="crowd", token="not-the-token")


def test_the_rating_page_offers_finish_and_ends_with_the_completion_code(page_engine, open_page):
    study_id = make_study(
        page_engine, "crowd", pairs=8, overlap=1, pool_open=True, enrolment_open=True,
        pool_quota=6, finish_minimum=2, completion_code="DONE-7",
    )  # fmt: skip
    visit = _participant(page_engine)
    at = open_page(visit.token)
    assert "Finish and get my completion code" not in {b.label for b in at.button}
    assert "**Pair 1 of 6** · 0 rated" in page_texts(at)  # against the quota
    _rate_pulled(page_engine, visit.annotator_id, study_id, 2)
    at = open_page(visit.token)
    assert "You have rated **2** pairs; 2 were asked (at most 6)." in page_texts(at)
    button(at, "Finish and get my completion code").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert "All done, thank you!" in [t.value for t in at.title]
    assert "DONE-7" in page_texts(at)
    again = open_page(visit.token)  # a reload: still done, no new pair
    assert "All done, thank you!" in [t.value for t in again.title]


def _counter(engine, annotator_id: int, assignment_id: int) -> tuple[int, int]:
    with read_session(engine) as session:
        view = pair_view(session, annotator_id, assignment_id)
    return view.number, view.total


def test_the_pair_counter_counts_against_the_quota(engine):
    """ "Pair N of M" in an open pool with a quota: M is the quota (pairs are pulled one at a
    time, so the queue alone read "Pair 3 of 3"); after Finish, the pairs the person kept."""
    study_id = make_study(
        engine, "crowd", pairs=8, overlap=1, pool_open=True, enrolment_open=True,
        pool_quota=5, finish_minimum=2,
    )  # fmt: skip
    visit = _participant(engine)
    me = visit.annotator_id
    first = pull_next(engine, me, study_id)  # the pair reserved at Start
    assert _counter(engine, me, first) == (1, 5)
    rate(engine, me, first)
    second = pull_next(engine, me, study_id)
    assert _counter(engine, me, second) == (2, 5)
    assert _counter(engine, me, first) == (1, 5)
    rate(engine, me, second)
    third = pull_next(engine, me, study_id)
    assert _counter(engine, me, third) == (3, 5)
    finish_study(engine, me, study="crowd", token=visit.token)
    assert _counter(engine, me, first) == (1, 2)  # reviewing after Finish: the two rated


def test_without_a_quota_the_counter_is_the_queue(engine):
    study_id = make_study(engine, "pool", pairs=8, overlap=1, pool_open=True)
    (me,) = make_people(engine, 1)
    first = pull_next(engine, me, study_id)
    assert _counter(engine, me, first) == (1, 1)
