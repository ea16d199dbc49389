"""Only the work earns the code, and every slot comes back (issue 34, points 1 and 2).

Each way a participant's work ends is settled once (`crowd.outcomes.settle`) and read back the
same by the done page (`crowd.finish.ending_notes`, and the page itself with AppTest), the
Participants page and the payments export (`services.payments`, its CSV). Then the issue's crowd
run: 10 pairs at k = 3, 5 pairs per person, two participants skip, one flags without scores,
one withdraws, two return on the platform, one times out and one lets a reservation lapse; the
others complete. Every pair ends at 3 and no pair was given twice to one person. Services on
SQLite, or PostgreSQL with `PRB_TEST_DATABASE_URL`.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import update

from annotate.config import STARTS_PER_MINUTE_ENV, UNPROVEN_SHARE_ENV
from annotate.db import read_session, write_session
from annotate.db.tables import Annotator, Assignment, Study, utcnow
from annotate.domain.crowd import outcomes
from annotate.domain.crowd.finish import ending_notes
from annotate.domain.crowd.outcomes import outcome_of, settle
from annotate.domain.rating.progress import short_pairs, totals
from annotate.domain.study import accounts
from annotate.domain.study.permissions import SYSTEM
from annotate.domain.study.studies import get_study
from annotate.services.admin.erasure import withdraw_me
from annotate.services.admin.payments import participant_payments, payments_csv
from annotate.services.participant.consent import decide
from annotate.services.participant.enrolment import enrol, finish_study, start
from annotate.services.participant.rating import skip_pair
from annotate.services.participant.work import pull_next
from tests.helpers.admin_helpers import assignments, make_study, page_texts, rate

STUDY = "crowd"
DONE, OUT = "DONE-34", "OUT-34"


@pytest.fixture(autouse=True)
def _many_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Many participants start within a minute here: lift the study link's burst limits."""
    monkeypatch.setenv(STARTS_PER_MINUTE_ENV, "1000")
    monkeypatch.setenv(UNPROVEN_SHARE_ENV, "100")


def _study(engine, pairs: int, **settings: Any) -> int:
    settings = {
        "overlap": 1,
        "pool_quota": 5,
        "finish_minimum": 3,
        "completion_code": DONE,
        "screenout_code": OUT,
        "consent_text": "You will rate answers.",
        **settings,
    }
    return make_study(engine, STUDY, pairs=pairs, pool_open=True, enrolment_open=True, **settings)


def _link(engine) -> dict[str, str]:
    with read_session(engine) as session:
        key = get_study(session, STUDY).enrolment_key
    assert key
    return {"study": STUDY, "key": key}


class Person:
    """A participant enrolled through the study link, who consented."""

    def __init__(self, engine, number: int, *, consent: bool = True) -> None:
        self.engine, self.link = engine, _link(engine)
        pid, session_id = f"{number:024x}", f"{number + 10**6:024x}"
        visit = enrol(engine, participant_id=pid, session_id=session_id, **self.link)
        self.id, self.token, self.pid = visit.annotator_id, visit.token, pid
        decide(engine, self.id, accept=consent, **self.link)
        self.first = start(engine, self.id, **self.link) if consent else None
        with read_session(engine) as session:
            self.study_id = get_study(session, STUDY).id

    def pull(self) -> int | None:
        """What the rating page does at the end of the queue."""
        return pull_next(self.engine, self.id, self.study_id)

    def rate(self, n: int = 1) -> int:
        rated = 0
        for _ in range(n):
            pulled = self.pull()
            if pulled is None:
                break
            rate(self.engine, self.id, pulled)
            rated += 1
        return rated

    def set_aside(self, n: int = 1, *, flag: bool = False) -> int:
        aside = 0
        for _ in range(n):
            pulled = self.pull()
            if pulled is None:
                break
            why = "broken pair" if flag else "not sure"
            mine = {"annotator_id": self.id, "assignment_id": pulled}
            skip_pair(self.engine, **mine, reason=why, flag=flag)
            aside += 1
        return aside

    def platform(self, status: str) -> outcomes.Outcome:
        """The platform says so (the adapter calls `settle` the same way)."""
        with write_session(self.engine) as session:
            study = session.get_one(Study, self.study_id)
            return settle(session, study, session.get_one(Annotator, self.id), status)


def _agree(person: Person) -> tuple[outcomes.Outcome, Any]:
    """The done page's note, the stored outcome, the Participants row and the payments CSV say
    the same status and code; returns the outcome and the row."""
    with read_session(person.engine) as session:
        stored = outcome_of(session, person.study_id, person.id)
        notes = ending_notes(session, person.id)
    assert stored is not None
    (note,) = notes
    found = participant_payments(person.engine, SYSTEM, STUDY)
    (row,) = [r for r in found.rows if r.annotator_id == person.id]
    table = list(csv.DictReader(io.StringIO(payments_csv(found))))
    (line,) = [r for r in table if r["participant_id"] == person.pid]
    assert (note.status, note.code) == (stored.status, stored.code)
    assert (row.status, row.completion_code) == (stored.status, stored.code)
    assert (line["status"], line["completion_code"]) == (stored.status, stored.code)
    assert (note.reason, row.outcome_reason, line["outcome_reason"]) == (stored.reason,) * 3
    return stored, row


def _finish(p: Person) -> None:
    p.rate(3)
    p.pull()  # the page shows the 4th pair and offers Finish
    assert finish_study(p.engine, p.id, study=STUDY, token=p.token) == 1  # the 4th, released


def _withdraw(p: Person) -> None:
    p.rate(1)
    p.set_aside(1)
    p.pull()  # a pair reserved for them
    withdraw_me(p.engine, p.id, token=p.token, erase_data=False, **p.link)


WAYS = {
    # way: (pairs in the study, what the participant does, status, code, pro rata)
    "finish": (12, _finish, outcomes.COMPLETED, DONE, 1.0),
    "quota": (12, lambda p: p.rate(6), outcomes.COMPLETED, DONE, 1.0),
    "pool empty": (2, lambda p: p.rate(6), outcomes.PARTIAL, DONE, 0.667),
    "withdraw": (12, _withdraw, outcomes.WITHDRAWN, "", 0.0),
    "skip all": (12, lambda p: p.set_aside(6), outcomes.SCREENED_OUT, OUT, 0.0),
    "flag all": (12, lambda p: p.set_aside(6, flag=True), outcomes.SCREENED_OUT, OUT, 0.0),
    "failed checks": (
        12,
        lambda p: (p.rate(1), p.platform(outcomes.FAILED_CHECKS)),
        outcomes.FAILED_CHECKS,
        "",
        0.0,
    ),
    "returned": (
        12,
        lambda p: (p.rate(1), p.platform(outcomes.RETURNED)),
        outcomes.RETURNED,
        "",
        0.0,
    ),
    "timed out": (12, lambda p: p.platform(outcomes.TIMED_OUT), outcomes.TIMED_OUT, "", 0.0),
}


@pytest.mark.parametrize("way", list(WAYS))
def test_each_way_of_ending_is_one_outcome_everywhere(engine, way):
    pairs, act, status, code, share = WAYS[way]
    _study(engine, pairs)
    person = Person(engine, 1)
    act(person)
    person.pull()  # the page once more: nothing more for them
    stored, row = _agree(person)
    assert (stored.status, stored.code, row.pro_rata) == (status, code, share)
    held = [
        a
        for a in assignments(engine, person.study_id)
        if a.annotator_id == person.id and a.status in ("pending", "skipped")
    ]
    assert all(a.released_at is not None or a.status == "released" for a in held)
    assert person.pull() is None  # nothing after the end


def test_declining_consent_is_screened_out_with_the_code(engine):
    _study(engine, 4)
    person = Person(engine, 1, consent=False)
    stored, _ = _agree(person)
    assert (stored.status, stored.code) == (outcomes.SCREENED_OUT, OUT)
    assert stored.reason == "You declined to take part in this study."


def test_skipping_short_of_the_limit_gives_more_pairs_and_the_code(engine):
    """Skips and scoreless flags are replaced up to the limit (default: the pairs per person):
    3 set aside, then 5 rated, is completed; the reason names the set-aside pairs at the
    limit."""
    _study(engine, 12, finish_minimum=5)
    person = Person(engine, 1)
    assert person.set_aside(2) + person.set_aside(1, flag=True) == 3
    assert person.rate(6) == 5  # the quota counts rated pairs only
    stored, _ = _agree(person)
    assert (stored.status, stored.code) == (outcomes.COMPLETED, DONE)
    other = Person(engine, 2)
    assert other.rate(1) == 1
    assert other.set_aside(6) == 5
    stored, _ = _agree(other)
    assert stored.status == outcomes.SCREENED_OUT
    assert "set aside 5 pairs" in stored.reason
    assert "rated 1 of the 5" in stored.reason


def test_counting_flags_and_skips_is_the_study_s_choice(engine):
    _study(engine, 12, finish_minimum=2, finish_counts_flags=True, finish_counts_skips=True)
    person = Person(engine, 1)
    person.set_aside(1)
    person.set_aside(1, flag=True)
    person.pull()
    assert finish_study(engine, person.id, study=STUDY, token=person.token) == 1
    stored, _ = _agree(person)
    assert (stored.status, stored.code) == (outcomes.COMPLETED, DONE)


def test_later_changes_only_from_the_platform(engine):
    """The first outcome stands against everything but the platform's returned / timed out;
    settling again changes nothing and releases nothing twice."""
    _study(engine, 12)
    person = Person(engine, 1)
    person.rate(6)
    person.pull()
    first, _ = _agree(person)
    assert first.status == outcomes.COMPLETED
    for status in (outcomes.WITHDRAWN, outcomes.SCREENED_OUT, outcomes.COMPLETED):
        assert person.platform(status) == first  # refused: the stored one comes back
    returned = person.platform(outcomes.RETURNED)
    assert (returned.status, returned.code) == (outcomes.RETURNED, "")
    assert person.platform(outcomes.RETURNED) == returned  # idempotent
    assert person.platform(outcomes.TIMED_OUT).status == outcomes.TIMED_OUT
    assert _agree(person)[0].status == outcomes.TIMED_OUT


def test_the_done_page_shows_the_screen_out_not_the_completion_code(page_engine, open_page):
    """Issue 34.1: someone who skipped every pair was shown the completion code."""
    _study(page_engine, 12)
    person = Person(page_engine, 1)
    person.set_aside(5)
    at = open_page(person.token)
    assert not at.exception, [e.value for e in at.exception]
    texts = page_texts(at)
    assert OUT in texts
    assert DONE not in texts
    assert "set aside 5 pairs" in texts
    assert "Your screen-out code" in texts
    finisher = Person(page_engine, 2)
    finisher.rate(5)
    at = open_page(finisher.token)
    assert "All done, thank you!" in [t.value for t in at.title]
    assert DONE in page_texts(at)
    assert OUT not in page_texts(at)


# ---------------------------------------------------------------- every slot comes back


def test_ten_pairs_at_k3_all_reach_3_whoever_gives_up(engine):
    study_id = _study(engine, 10, overlap=3, finish_minimum=None)
    k = 3
    skipper_1 = Person(engine, 1)
    skipper_1.set_aside(1)
    skipper_1.rate(5)
    skipper_1.pull()  # the done page
    skipper_2 = Person(engine, 2)
    skipper_2.set_aside(2)
    skipper_2.rate(5)
    skipper_2.pull()  # the done page
    flagger = Person(engine, 3)
    flagger.set_aside(1, flag=True)
    flagger.rate(5)
    flagger.pull()  # the done page
    leaver = Person(engine, 4)
    _withdraw(leaver)
    returner_1, returner_2, timed_out = Person(engine, 5), Person(engine, 6), Person(engine, 7)
    returner_1.rate(1)
    returner_1.pull()  # a pair held for them, not rated
    returner_2.pull()  # the pair reserved at Start
    timed_out.rate(2)
    timed_out.pull()
    lapser = Person(engine, 8)  # Start reserved a pair; they never come back
    with write_session(engine) as session:
        session.execute(
            update(Assignment)
            .where(Assignment.annotator_id == lapser.id)
            .values(reserved_until=utcnow() - timedelta(minutes=1))
        )
    with read_session(engine) as session:
        study = get_study(session, STUDY)
        live = totals(session, study).in_progress
    assert live == 3  # returner_1, returner_2, timed_out: the lapsed one and skips are not
    for person, status in ((returner_1, outcomes.RETURNED), (returner_2, outcomes.RETURNED),
                           (timed_out, outcomes.TIMED_OUT)):  # fmt: skip
        assert person.platform(status).status == status
    completers = []
    number = 9
    while True:
        person = Person(engine, number)
        if person.first is None:
            break  # the pool has nothing left: every slot is taken
        person.rate(5)
        person.pull()
        completers.append(person)
        number += 1
    rows = assignments(engine, study_id)
    done = Counter(a.pair_id for a in rows if a.status == "done")
    assert len(done) == 10
    assert set(done.values()) == {k}
    given = Counter((a.annotator_id, a.pair_id) for a in rows)
    assert max(given.values()) == 1  # no pair given twice to one person
    kept = [a for a in rows if a.status == "skipped"]
    assert len(kept) == 5
    assert all(a.released_at is not None for a in kept)
    assert sum(a.flagged for a in kept) == 1
    (lapsed,) = [a for a in rows if a.annotator_id == lapser.id]
    assert (lapsed.status, lapsed.release_reason) == ("released", "lapsed")
    returned = [a for a in rows if a.annotator_id in (returner_1.id, returner_2.id)]
    assert [a.release_reason for a in returned if a.status == "released"] == ["returned"] * 2
    with read_session(engine) as session:
        study = get_study(session, STUDY)
        end = totals(session, study)
        assert (end.complete, end.in_progress, end.to_rate) == (10, 0, 0)
        assert short_pairs(session, study) == []
    statuses = Counter(_agree(p)[0].status for p in completers)
    assert statuses[outcomes.COMPLETED] >= 1
    assert set(statuses) <= {outcomes.COMPLETED, outcomes.PARTIAL}
    for person in (skipper_1, skipper_2, flagger):
        assert _agree(person)[0].status == outcomes.COMPLETED
    assert _agree(leaver)[0].status == outcomes.WITHDRAWN


def test_a_pair_that_cannot_reach_k_is_named_with_the_reason(page_engine, open_page):
    """Enrolment closed: a pair skipped by one of two annotators who may still pull, at k = 2,
    cannot reach k; the Progress page says which and why."""
    _study(page_engine, 2, overlap=2, finish_minimum=None, pool_quota=2)
    one, two = Person(page_engine, 1), Person(page_engine, 2)
    one.set_aside(1)
    one.rate(1)
    two.rate(2)
    with write_session(page_engine) as session:
        session.execute(update(Study).values(enrolment_open=False))
        _, token = accounts.create_account(session, "boss", role="admin")
    with read_session(page_engine) as session:
        (short,) = short_pairs(session, get_study(session, STUDY))
    assert (short.done, short.held, short.missing, short.eligible) == (1, 0, 1, 0)
    assert "everyone else who could has had it" in short.reason
    at = open_page(token, page="admin_progress.py", pick=STUDY)
    assert not at.exception, [e.value for e in at.exception]
    assert "Pairs that cannot reach k = 2 (1)" in [h.value for h in at.subheader]
    (table,) = [t for t in at.dataframe if "why" in t.value.columns]
    assert list(table.value["pair"]) == [short.record_id]
