"""Crowd links against a hostile participant (issue 16, item 3).

Everyone who takes part has the study link, so anyone can make up participant ids. Before, 40
made-up ids enrolled in 3.4 s and reserved every pair of the pool; a genuine participant then got
nothing, and a closed study answered differently from a missing one. Now opening the link
reserves nothing, a pair is reserved only by a deliberate Start, Starts are limited per study and
minute, a study takes at most its cap of participants holding or having done work, and a crowd
participant's first pair is reserved only briefly until they submit. The limits come from the
environment (`annotate.config.enrolment_limits`), set here with monkeypatch.

Also covered elsewhere: tests/annotate/domain/crowd/test_enrolment.py (one account per participant,
takeover).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlmodel import select

from annotate.app.participant.enrol import NOTHING_LEFT
from annotate.config import (
    ENROLMENT_CAP_ENV,
    FIRST_RESERVATION_ENV,
    STARTS_PER_MINUTE_ENV,
    UNPROVEN_SHARE_ENV,
    EnrolmentLimits,
    enrolment_limits,
)
from annotate.db import read_session
from annotate.db.tables import Assignment
from annotate.domain.crowd.enrolment import BUSY, FULL, INVALID_LINK, EnrolmentError
from annotate.domain.study.studies import DEFAULT_CROWD_QUOTA, get_study
from annotate.services.participant.enrolment import enrol, has_started, start
from annotate.services.participant.work import pull_for_annotator
from tests.helpers.admin_helpers import as_read, assignments, make_study, rate

T0 = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
PAIRS = 20


@pytest.fixture
def limits(monkeypatch) -> EnrolmentLimits:
    monkeypatch.setenv(ENROLMENT_CAP_ENV, "12")
    monkeypatch.setenv(STARTS_PER_MINUTE_ENV, "5")
    monkeypatch.setenv(FIRST_RESERVATION_ENV, "5")
    monkeypatch.setenv(UNPROVEN_SHARE_ENV, "100")  # the share is tested on its own below
    return enrolment_limits()


@pytest.fixture
def crowd(engine) -> str:
    """An open crowd study of 20 pairs, each wanted once, reserved for an hour; its key."""
    make_study(
        engine,
        "crowd",
        pairs=PAIRS,
        overlap=1,
        reservation_minutes=60,
        pool_open=True,
        enrolment_open=True,
    )
    with read_session(engine) as session:
        return get_study(session, "crowd").enrolment_key or ""


def _visit(engine, key: str, pid: str, study: str = "crowd"):
    return enrol(engine, study=study, key=key, participant_id=pid, session_id=f"s-{pid}")


def _start(engine, key: str, pid: str, now: datetime, study: str = "crowd") -> int | None:
    visit = _visit(engine, key, pid, study)
    return start(engine, visit.annotator_id, study=study, key=key, now=now)


def _live(engine, now: datetime) -> list[Assignment]:
    """Assignments of the study that hold a pair at `now` (pending, reservation not lapsed)."""
    with read_session(engine) as session:
        rows = session.exec(select(Assignment).where(Assignment.status == "pending")).all()
    return [a for a in rows if a.reserved_until.replace(tzinfo=UTC) > now]


def _drain(
    engine, key: str, now: datetime, prefix: str, n: int = 40, study: str = "crowd"
) -> list[str]:
    """`n` made-up participants opening the link and pressing Start at `now`; their refusals."""
    refused = []
    for i in range(n):
        try:
            _start(engine, key, f"{prefix}{i:03d}", now, study)
        except EnrolmentError as error:
            refused.append(str(error))
    return refused


def test_opening_the_link_reserves_nothing(engine, crowd, limits):
    for i in range(40):
        visit = _visit(engine, crowd, f"fake{i:03d}")
        assert visit.assignment_id is None
        assert not has_started(engine, visit.annotator_id, "crowd")
    assert assignments(engine, 1) == []


def test_a_drain_attempt_leaves_the_pool_to_genuine_participants(engine, crowd, limits):
    refused = _drain(engine, crowd, T0, "fake")
    assert len(refused) == 40 - limits.starts_per_minute
    assert set(refused) == {BUSY}
    held = _live(engine, T0)
    assert len(held) == limits.starts_per_minute  # 5 of the 20 pairs, not all of them
    assert all(a.reserved_until.replace(tzinfo=UTC) == T0 + timedelta(minutes=5) for a in held)

    # A genuine participant a minute later gets a pair, and keeps getting pairs after rating.
    later = T0 + timedelta(seconds=61)
    first = _start(engine, crowd, "genuine", later)
    assert first is not None
    genuine = _visit(engine, crowd, "genuine").annotator_id
    rate(engine, genuine, first)
    second = pull_for_annotator(engine, genuine, now=later)
    assert second is not None
    (reserved,) = [a for a in _live(engine, later) if a.id == second]
    assert reserved.reserved_until.replace(tzinfo=UTC) == later + timedelta(minutes=60)

    # The made-up participants never rate: their pairs come back after 5 minutes.
    after = T0 + timedelta(minutes=6)
    assert _start(engine, crowd, "genuine2", after) is not None
    assert {a.annotator_id for a in _live(engine, after)} == {
        genuine,
        _visit(engine, crowd, "genuine2").annotator_id,
    }


def test_the_cap_counts_participants_holding_or_having_done_work(engine, crowd, limits):
    for minute in range(3):  # 15 Starts over three minutes: the cap of 12 stops the last 3
        refused = _drain(engine, crowd, T0 + timedelta(minutes=minute), f"m{minute}-", n=5)
        assert refused == ([FULL] * 3 if minute == 2 else [])
    assert len(_live(engine, T0 + timedelta(minutes=2))) == limits.cap
    # Their first pairs lapse unrated, so they no longer count: the study takes people again.
    assert _start(engine, crowd, "genuine", T0 + timedelta(minutes=8)) is not None


def test_a_started_participant_is_not_limited_again(engine, crowd, limits):
    first = _start(engine, crowd, "genuine", T0)
    _drain(engine, crowd, T0, "fake")  # the minute's Starts are used up
    assert _start(engine, crowd, "genuine", T0) == first  # their own pair, no refusal


def test_closed_missing_and_wrong_key_answer_identically(engine, crowd, limits):
    make_study(engine, "closed", pairs=2, pool_open=True, enrolment_open=False)
    answers = []
    for study, key in (("closed", crowd), ("missing", crowd), ("crowd", "wrong-key")):
        with pytest.raises(EnrolmentError) as refused:
            _visit(engine, key, "someone", study)
        answers.append((type(refused.value), str(refused.value)))
    assert answers == [(EnrolmentError, INVALID_LINK)] * 3
    # The Start step answers the same way to an enrolled participant.
    visit = _visit(engine, crowd, "someone")
    for study, key in (("closed", crowd), ("missing", crowd), ("crowd", "wrong-key")):
        with pytest.raises(EnrolmentError, match="^" + INVALID_LINK.replace(".", r"\.") + "$"):
            start(engine, visit.annotator_id, study=study, key=key, now=T0)
    assert assignments(engine, 1) == []


def test_the_pages_answer_closed_missing_and_wrong_key_identically(page_engine, open_page):
    make_study(page_engine, "crowd", pairs=2, pool_open=True, enrolment_open=True)
    make_study(page_engine, "closed", pairs=2, pool_open=True, enrolment_open=False)
    with read_session(page_engine) as session:
        key = get_study(session, "crowd").enrolment_key or ""
    shown = []
    for study, given in (("closed", key), ("missing", key), ("crowd", "wrong")):
        at = open_page(study=study, key=given, PROLIFIC_PID="p1", SESSION_ID="s1")
        shown.append(([as_read(e.value) for e in at.error], [t.value for t in at.title]))
        assert "token" not in at.query_params
    assert shown == [([INVALID_LINK], ["prb-annotate"])] * 3


def test_the_page_reserves_only_after_start(page_engine, open_page):
    make_study(page_engine, "crowd", pairs=2, pool_open=True, enrolment_open=True)
    with read_session(page_engine) as session:
        key = get_study(session, "crowd").enrolment_key or ""
    at = open_page(study="crowd", key=key, PROLIFIC_PID="p1", SESSION_ID="s1")
    assert [t.value for t in at.title] == ["Welcome"]
    at.run()  # a reload reserves nothing either
    assert assignments(page_engine, 1) == []
    at.button(key="crowd_start").click().run()
    (held,) = assignments(page_engine, 1)
    assert held.status == "pending"
    assert any(str(m.value).startswith(f"**Pair 1 of {DEFAULT_CROWD_QUOTA}**") for m in at.markdown)


@pytest.mark.parametrize("value", ["0", "-3", "many", "1.5"])
def test_a_limit_must_be_a_positive_whole_number(monkeypatch, value):
    monkeypatch.setenv(STARTS_PER_MINUTE_ENV, value)
    with pytest.raises(ValueError, match=STARTS_PER_MINUTE_ENV):
        enrolment_limits()


def test_made_up_participants_coming_back_through_the_rating_page_are_limited(
    engine, crowd, limits
):
    """Started once, a made-up id has a token and a study: its next pulls (the rating page's)
    are limited as a Start is, until it submits something."""
    fakes = []
    for minute in range(2):  # 10 made-up ids start, 5 a minute
        for i in range(5):
            _start(engine, crowd, f"m{minute}-{i}", T0 + timedelta(minutes=minute))
            fakes.append(_visit(engine, crowd, f"m{minute}-{i}").annotator_id)
    later = T0 + timedelta(minutes=7)  # every first pair lapsed unrated
    pulled = [pull_for_annotator(engine, fake, now=later) for fake in fakes]
    assert sum(p is not None for p in pulled) == limits.starts_per_minute
    held = _live(engine, later)
    assert all(a.reserved_until.replace(tzinfo=UTC) == later + timedelta(minutes=5) for a in held)


def test_start_on_a_study_with_nothing_left_says_so(page_engine, open_page, monkeypatch):
    monkeypatch.setenv(UNPROVEN_SHARE_ENV, "100")  # no share limit: one slot would be "busy"
    make_study(page_engine, "crowd", pairs=1, overlap=1, pool_open=True, enrolment_open=True)
    with read_session(page_engine) as session:
        key = get_study(session, "crowd").enrolment_key or ""
    first = open_page(study="crowd", key=key, PROLIFIC_PID="p1", SESSION_ID="s1")
    first.button(key="crowd_start").click().run()  # takes the only slot
    second = open_page(study="crowd", key=key, PROLIFIC_PID="p2", SESSION_ID="s2")
    second.button(key="crowd_start").click().run()
    assert [i.value for i in second.info] == [NOTHING_LEFT]


def test_a_burst_on_a_small_study_holds_at_most_a_share_of_its_slots(engine, monkeypatch):
    """Issue 24, item 7: 40 made-up ids on a study of 6 pairs wanted 3 times (18 slots), with
    the default limits (1,000 participants, 60 Starts a minute), hold at most a quarter of the
    slots; the others stay for participants who have rated, and the made-up ones lapse."""
    for name in (ENROLMENT_CAP_ENV, STARTS_PER_MINUTE_ENV, FIRST_RESERVATION_ENV):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv(UNPROVEN_SHARE_ENV, raising=False)
    make_study(engine, "small", pairs=6, overlap=3, pool_open=True, enrolment_open=True)
    with read_session(engine) as session:
        key = get_study(session, "small").enrolment_key or ""
    refused = _drain(engine, key, T0, "fake", study="small")
    held = _live(engine, T0)
    assert len(held) == 18 * enrolment_limits().unproven_share_percent // 100 == 4
    assert set(refused) == {BUSY}
    assert len(refused) == 40 - 4
    # Ten minutes later the made-up reservations have lapsed: a genuine participant starts.
    assert _start(engine, key, "genuine", T0 + timedelta(minutes=11), "small") is not None
