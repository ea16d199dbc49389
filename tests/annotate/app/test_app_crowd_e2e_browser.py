"""A paid crowd study, run unattended (issue 34, point 8): the acceptance test, in headless
Chromium against a real `streamlit run` server on a SQLite file, with the local fake Prolific
server (`support.fake_prolific`; never the real service).

The study is set up through the services (the pilot's end-to-end test covers set-up on the
pages): 8 pairs, k = 3, 4 pairs per person, Finish after 3, two instructed-response checks
(after 1 and 2 pairs), a bonus per pair beyond 3, on Prolific, with a group-sequential plan
(looks at 4 and 8 pairs, O'Brien-Fleming). Twelve participants follow the crowd link (their
Prolific ids in the URL), each in a browser context of its own:

- two open their first pair and return the study on Prolific, one times out (the test marks
  their submissions RETURNED / TIMED-OUT in the fake and runs the platform sync, which releases
  their pairs);
- one skips everything (screened out at the skip limit), one fails both checks, one rates a pair
  and withdraws (the sidebar's Withdraw box);
- six finish: three at the quota, three with Finish after 3, one of them on a 390x844 touch
  phone.

For each: what the page showed (a code or none) equals the stored outcome
(`outcomes.outcome_of`), the Participants rows and the payments export. Then the sync sends
approvals, the one rejection (failed checks), the screen-out and the bonuses, with a 5xx in the
middle; a second send sends nothing; the fake's call counts and paid totals show nothing went
twice. Every pair ends at k with no pair given twice to one person; the monitor's figures equal
counts from the database; the plan, read by the monitor after each participant, first says
stop at its second look (finishers score the chosen response far higher on rubric alignment and
level on the other dimensions). Every wait is on the page's state.
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
import statistics
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import insert
from sqlmodel import col, select
from typer.testing import CliRunner

from annotate.cli import app
from annotate.cli.common import State
from annotate.db import make_engine, read_session, write_session
from annotate.db.tables import Annotator, Assignment, CheckAnswer, Pair, Rating
from annotate.domain.crowd.enrolment import enrolment_link
from annotate.domain.crowd.outcomes import (
    COMPLETED,
    FAILED_CHECKS,
    RETURNED,
    SCREENED_OUT,
    TIMED_OUT,
    WITHDRAWN,
    outcome_of,
)
from annotate.domain.crowd.participants import participant_rows
from annotate.domain.platforms.prolific import Prolific
from annotate.domain.study import studies
from annotate.domain.study.permissions import SYSTEM
from annotate.domain.study.studies import get_study
from annotate.services.admin.monitor import monitor
from annotate.services.admin.payments import participant_payments, payments_csv
from annotate.services.admin.platform import sync
from annotate.vocabulary import DIMENSIONS, AssignmentStatus
from support.fake_prolific import FakeProlific
from tests.helpers.browser_helpers import (
    BROWSER_MARKS,
    LAPTOP,
    PHONE,
    Recorder,
    confirm_withdrawal,
    screenshot_dir,
    settle,
    start_server,
    withdraw,
)
from tests.helpers.component_entry import PAIR, enter_by_pointer, shown_pair
from tests.helpers.rating_entry import PairEntry

pytestmark = BROWSER_MARKS

STUDY = "crowd-e2e"
PAIRS, K, QUOTA, MINIMUM = 8, 3, 4, 3
CODE, SCREENOUT = "DONE-CROWD-34", "OUT-CROWD-34"
TOKEN = "prolific-token-e2e-Hq7Lw2Zx9Vb4Nm6Kc3Rt"
PLATFORM_STUDY = "65b2c3d4e5f60718293a4b5c"
REWARD, PER_EXTRA, FEE = 150, 20, "33.33"  # pence, pence, percent
OPTIONS = ["Not at all", "Somewhat", "Very much"]
CHECKS = [
    {"text": "For this item, select Somewhat.", "options": OPTIONS, "expected": "Somewhat",
     "after": 1},
    {"text": "For this item, select Very much.", "options": OPTIONS, "expected": "Very much",
     "after": 2},
]  # fmt: skip
PLAN = {"looks": [4, 8, 16], "alpha_spending": "obrien-fleming"}
"""Looks at 4, 8 and 16 pairs: the study's 8 pairs reach the second look, not the last, so a
stop there is the boundary crossed, not the plan's end."""


def _hex24(text: str) -> str:
    """A Prolific-style id (24 hex digits), the same on every run."""
    return hashlib.sha256(text.encode()).hexdigest()[:24]


@dataclass(frozen=True)
class Person:
    name: str
    does: str  # return, time out, skip all, fail checks, withdraw, quota, finish
    viewport: dict[str, int] = field(default_factory=lambda: LAPTOP)
    touch: bool = False

    @property
    def pid(self) -> str:
        return _hex24(self.name)

    @property
    def submission(self) -> str:
        return f"sub{self.pid[3:]}"


PEOPLE = (
    Person("returner-1", "return"),
    Person("returner-2", "return"),
    Person("late", "time out"),
    Person("skipper", "skip all"),
    Person("careless", "fail checks"),
    Person("leaver", "withdraw"),
    Person("finisher-1", "quota"),
    Person("finisher-2", "quota"),
    Person("phone", "finish", PHONE, touch=True),
    Person("finisher-4", "quota"),
    Person("finisher-5", "finish"),
    Person("finisher-6", "finish"),
)
"""In this order, as the depth-first fill gives pairs (started pairs first, never one twice to
a person), the last finisher finds three pairs each one rating short of k: a study sized so
that every pair ends at k and every finisher meets the finish rule (another order leaves the
last with two distinct pairs: "completed, pool empty")."""
EXPECTED = {
    "return": RETURNED,
    "time out": TIMED_OUT,
    "skip all": SCREENED_OUT,
    "fail checks": FAILED_CHECKS,
    "withdraw": WITHDRAWN,
    "quota": COMPLETED,
    "finish": COMPLETED,
}


def _pair_rows(study_id: int) -> list[dict[str, Any]]:
    """Eight pairs whose texts name no label (the page's frames are blind)."""
    return [
        {
            "study_id": study_id,
            "record_id": f"e2e_{n}",
            "domain": "Society_and_Culture",
            "category": "hobbies",
            "question": f"How do I start with hobby number {n}?",
            "narrative": "I have little time and little money.",
            "profile": [],
            "rubric_aspects": [{"aspect": "Cheap steps", "evidence": "-", "reason": "-"}],
            "chosen": f"Answer kiwi {n}: three cheap short steps.",
            "rejected": f"Answer plum {n}: the long history of the hobby.",
            "extra": {},
            "content_hash": f"e2e_{n}",
            "created_at": datetime.now(UTC),
        }
        for n in range(PAIRS)
    ]


def _set_up(engine: Any) -> str:
    """The study through the domain's own functions (what `prb-annotate studies` calls)."""
    with write_session(engine) as session:
        study = studies.create_study(
            session,
            STUDY,
            seed=34,
            overlap=K,
            pool_open=True,
            enrolment_open=True,
            pool_quota=QUOTA,
            finish_minimum=MINIMUM,
            completion_code=CODE,
            screenout_code=SCREENOUT,
            instructed_checks=CHECKS,
            platform="prolific",
            platform_study_id=PLATFORM_STUDY,
            reward=REWARD,
            bonus_rule=f"per_extra_pair:{PER_EXTRA}",
            platform_fee_percent=float(FEE),
            sequential=PLAN,
        )
        session.execute(insert(Pair), _pair_rows(int(study.id or 0)))
        key = study.enrolment_key or ""
    return key


@dataclass
class Crowd:
    url: str
    engine: Any
    link: str
    fake: FakeProlific
    shots: Path
    db_url: str
    shown: dict[str, str | None] = field(default_factory=dict)  # name -> code shown (None)
    looks: list[tuple[str, int, str]] = field(default_factory=list)  # after whom, look, decision

    def person_link(self, person: Person) -> str:
        return (
            self.link.replace("{{%PROLIFIC_PID%}}", person.pid)
            .replace("{{%STUDY_ID%}}", PLATFORM_STUDY)
            .replace("{{%SESSION_ID%}}", _hex24(person.name + " session"))
        )

    def client(self) -> Prolific:
        return Prolific(self.fake.url, TOKEN, sleep=lambda _: None)

    def sync(self, *, send: bool) -> Any:
        return sync(self.engine, SYSTEM, STUDY, send=send, platform=lambda _: self.client())


@pytest.fixture
def crowd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Crowd]:
    db = tmp_path / "crowd.db"
    engine = make_engine(str(db))
    key = _set_up(engine)
    server = start_server(db, tmp_path / "server.log")
    try:
        with FakeProlific(TOKEN) as fake:
            fake.state.screenout_codes.add(SCREENOUT)
            for person in PEOPLE:
                fake.add_submission(PLATFORM_STUDY, person.submission, person.pid, "ACTIVE")
            monkeypatch.setenv("PRB_PROLIFIC_TOKEN", TOKEN)
            monkeypatch.setenv("PRB_PROLIFIC_API_URL", fake.url)
            monkeypatch.delenv("PRB_DATABASE_URL", raising=False)
            link = enrolment_link(STUDY, key, server.url)
            shots = screenshot_dir(tmp_path / "shots")
            yield Crowd(server.url, engine, link, fake, shots, str(db))
    finally:
        server.stop()
        engine.dispose()


def test_a_paid_crowd_study_runs_unattended(crowd: Crowd, new_page: Any) -> None:
    for person in PEOPLE:
        page = new_page(person.viewport, has_touch=person.touch, is_mobile=person.touch)
        record = Recorder().attach(page)
        try:
            crowd.shown[person.name] = _take_part(crowd, page, person)
        except Exception:
            page.screenshot(path=str(crowd.shots / f"crowd_failed_{person.name}.png"))
            raise
        assert record.received, "the websocket frames were not recorded"
        assert record.label_leaks() == [], person.name  # blind: no label reached the browser
        page.context.close()
        if person.does in ("return", "time out"):
            status = "RETURNED" if person.does == "return" else "TIMED-OUT"
            crowd.fake.state.submissions[person.submission]["status"] = status
            crowd.sync(send=True)  # the platform says so: the pair goes back to the pool
        else:
            crowd.fake.state.submissions[person.submission]["status"] = "AWAITING REVIEW"
        _look(crowd, person.name)
    _check_outcomes(crowd)
    _check_every_pair_at_k(crowd)
    _check_the_platform(crowd)
    _check_the_monitor(crowd)
    # seen on 2026-12-05: look 0 up to the leaver, look 1 (continue) after finishers 1, 2 and
    # the phone, look 2 continue after finisher 4, stop after finisher 5
    first_stop = next(look for _, look, decision in crowd.looks if decision == "stop")
    assert first_stop == 2, crowd.looks
    assert any(look == 1 and d == "continue" for _, look, d in crowd.looks), crowd.looks


# ---------------------------------------------------------------- a participant on the page


def _take_part(crowd: Crowd, page: Any, person: Person) -> str | None:
    """Follow the link and do what `person.does`; the code the page showed last (None)."""
    page.goto(crowd.person_link(person))
    start = page.locator(".st-key-crowd_start button")
    start.wait_for()
    settle(page)
    _press(page, start, person)
    _wait_for_pair_or_end(page)
    if person.does in ("return", "time out"):
        shown_pair(page)  # the pair is on the page; they leave (the platform says what follows)
        return None
    if person.does == "withdraw":
        _next_step(page, person, _rate(crowd, page, person))
        return _withdraw(page)
    rated = 0
    while not _ended(page):
        if person.does == "skip all":
            last = _skip(page, person)
        elif person.does == "finish" and rated == MINIMUM and _finish_offered(page):
            _press(page, page.locator(".st-key-finish_0 button"), person)
            page.get_by_text("All done, thank you!").wait_for()
            break
        else:
            last = _rate(crowd, page, person)
            rated += 1
        _next_step(page, person, last)
    page.locator("h1").filter(has_text=re.compile("All done|Thank you")).wait_for()
    settle(page)
    code = page.locator("[data-testid='stCode']")
    if person.does in ("skip all", "quota", "finish"):  # a code is due: wait until drawn
        code.wait_for()
    page.screenshot(path=str(crowd.shots / f"crowd_done_{person.name}.png"))
    return code.inner_text().strip() if code.count() else None


def _press(page: Any, target: Any, person: Person) -> None:
    target.scroll_into_view_if_needed()
    target.tap() if person.touch else target.click()


def _wait_for_pair_or_end(page: Any, last: int | None = None) -> None:
    """Wait until the page shows a pair other than `last` (the pair the component names), a
    check, or the end; then until its run is over."""
    other = f":not([data-pair='{last}'])" if last is not None else ""
    page.locator(f"{PAIR}[data-pair]{other}").or_(page.locator(".st-key-check_submit")).or_(
        page.locator("h1").filter(has_text=re.compile("All done|withdrawn|Thank you|ended", re.I))
    ).first.wait_for()
    settle(page)


def _ended(page: Any) -> bool:
    return page.locator(PAIR).count() == 0 and page.locator(".st-key-check_submit").count() == 0


def _finish_offered(page: Any) -> bool:
    return page.locator(".st-key-finish_0 button").count() > 0


def _rate(crowd: Crowd, page: Any, person: Person) -> int:
    """Rate the pair shown: the chosen response (read from the database by its text) far
    higher on rubric alignment, both level on the others."""
    shown = shown_pair(page)
    chosen_side = "A" if "kiwi" in shown.response_a else "B"
    rejected_side = "B" if chosen_side == "A" else "A"
    low = 1 + len(person.name) % 2  # some spread between people
    n, who = int(shown.response_a.split()[2].rstrip(":")), PEOPLE.index(person)
    scores = {(chosen_side, dim): 4 for dim in DIMENSIONS}
    for d, dim in enumerate(DIMENSIONS):  # level, but for a few ratings a point apart
        apart = {0: 5, 2: 3}.get(n % 4, 4) if who == 6 + d else 4
        scores[(rejected_side, dim)] = apart
    scores[(chosen_side, "rubric_alignment")] = 5
    scores[(rejected_side, "rubric_alignment")] = low
    enter_by_pointer(page, PairEntry(scores=scores), touch=person.touch)
    number = shown.number
    _press(page, page.locator(f"{PAIR} button.submit"), person)
    page.get_by_text(f"Pair {number} saved.").or_(page.locator(".st-key-check_submit")).or_(
        page.get_by_text("All done, thank you!")
    ).first.wait_for()
    return shown.assignment_id


def _skip(page: Any, person: Person) -> int:
    shown = shown_pair(page)
    number = shown.number
    opener = page.locator(f"{PAIR} button.skip-open")
    _press(page, opener, person)
    box = page.locator(f"{PAIR} #prb-skip-reason")
    box.wait_for()
    box.fill("I would rather not")
    _press(page, page.locator(f"{PAIR} button.skip"), person)
    page.get_by_text(f"Pair {number} skipped.").or_(page.locator(".st-key-check_submit")).or_(
        page.locator("[data-testid='stCode']")
    ).first.wait_for()
    return shown.assignment_id


def _next_step(page: Any, person: Person, last: int) -> None:
    """After pair `last`: an instructed check (answered right, but wrong by the careless one)."""
    _wait_for_pair_or_end(page, last)
    while page.locator(".st-key-check_submit").count():
        question = page.locator("[data-testid='stForm']").inner_text()
        expected = "Very much" if "Very much." in question else "Somewhat"
        answer = "Not at all" if person.does == "fail checks" else expected
        form = page.locator("[data-testid='stForm']")
        _press(page, form.get_by_text(answer, exact=True), person)
        _press(page, page.locator(".st-key-check_submit button"), person)
        page.locator(".st-key-check_submit").wait_for(state="detached")
        _wait_for_pair_or_end(page, last)


def _withdraw(page: Any) -> str | None:
    withdraw(page, confirm_withdrawal(page))
    code = page.locator("[data-testid='stCode']")
    return code.inner_text().strip() if code.count() else None


# ---------------------------------------------------------------- the checks


def _look(crowd: Crowd, after: str) -> None:
    figures = monitor(crowd.engine, SYSTEM, STUDY)
    assert figures.look is not None
    crowd.looks.append((after, int(figures.look["look"]), str(figures.look["decision"])))


def _accounts(engine: Any) -> dict[str, int]:
    """Platform id -> account id."""
    with read_session(engine) as session:
        people = session.exec(select(Annotator).where(col(Annotator.external_id).is_not(None)))
        return {str(a.external_id).partition(":")[2]: int(a.id or 0) for a in people}


def _check_outcomes(crowd: Crowd) -> None:
    accounts = _accounts(crowd.engine)
    payments = payments_csv(participant_payments(crowd.engine, SYSTEM, STUDY))
    lines = {row["participant_id"]: row for row in csv.DictReader(io.StringIO(payments))}
    with read_session(crowd.engine) as session:
        study = get_study(session, STUDY)
        rows = {r.participant_id: r for r in participant_rows(session, study)}
        for person in PEOPLE:
            outcome = outcome_of(session, int(study.id or 0), accounts[person.pid])
            assert outcome is not None, person.name
            expected = EXPECTED[person.does]
            assert outcome.status == expected, (person.name, outcome)
            shown = crowd.shown[person.name]
            assert (shown or "") == outcome.code, (person.name, shown, outcome)
            row = rows[person.pid]
            assert (row.status, row.completion_code) == (outcome.status, outcome.code)
            line = lines[person.pid]
            assert (line["status"], line["completion_code"]) == (outcome.status, outcome.code)
    codes = {p.does: crowd.shown[p.name] for p in PEOPLE}
    assert codes["quota"] == codes["finish"] == CODE
    assert codes["skip all"] == SCREENOUT
    assert codes["fail checks"] is None
    assert codes["withdraw"] is None


def _check_every_pair_at_k(crowd: Crowd) -> None:
    with read_session(crowd.engine) as session:
        done = session.exec(
            select(Assignment.pair_id, Assignment.annotator_id).where(
                col(Assignment.status) == AssignmentStatus.DONE
            )
        ).all()
        every = session.exec(select(Assignment.pair_id, Assignment.annotator_id)).all()
    per_pair = Counter(pair for pair, _ in done)
    assert len(per_pair) == PAIRS, per_pair
    assert set(per_pair.values()) == {K}, per_pair
    given = Counter(every)
    assert max(given.values()) == 1, [k for k, n in given.items() if n > 1]


def _check_the_platform(crowd: Crowd) -> None:
    fake = crowd.fake
    by_does = {p.does: p for p in PEOPLE}
    dry = crowd.sync(send=False)
    finishers = [p.pid for p in PEOPLE if p.does in ("quota", "finish")]
    expected = [("approve", pid) for pid in finishers] + [
        ("bonus", "3 participants"),
        ("complete", by_does["skip all"].pid),  # the screen-out code
        ("reject", by_does["fail checks"].pid),  # the only rejection
        ("request_return", by_does["withdraw"].pid),
    ]
    assert sorted((line.kind, line.participant_id) for line in dry.to_send) == sorted(expected)
    bonus = next(line for line in dry.to_send if line.kind == "bonus")
    quota_pids = sorted(p.pid for p in PEOPLE if p.does == "quota")
    assert sorted(bonus.entries) == [(pid, PER_EXTRA) for pid in quota_pids]
    assert fake.calls["transition"] == fake.calls["pay_bonus"] == 0  # the dry run sent nothing
    before = dict(fake.calls)
    # the first approval is carried out but its answer is lost (a 502): retried, never doubled
    fake.fail_next("transition", 1, status=502, after_processing=True)
    sent = crowd.sync(send=True)
    assert sent.problems == [], sent.problems
    for person in PEOPLE:
        status = fake.status(person.submission)
        if person.does in ("quota", "finish"):
            assert status == "APPROVED", person.name
    assert fake.status(by_does["fail checks"].submission) == "REJECTED"
    assert fake.status(by_does["skip all"].submission) == "SCREENED OUT"
    assert fake.status(by_does["withdraw"].submission) == "AWAITING REVIEW"
    transitions = fake.calls["transition"] - before.get("transition", 0)
    assert transitions == 6 + 1 + 1 + 1  # approvals, the rejection, the screen-out, one retry
    quota_people = [p for p in PEOPLE if p.does == "quota"]
    assert fake.paid_total == PER_EXTRA * len(quota_people)
    for person in quota_people:
        assert fake.paid_to(person.pid) == PER_EXTRA
    assert fake.calls["pay_bonus"] == 1
    calls = dict(fake.calls)
    again = crowd.sync(send=True)
    assert again.to_send == []
    assert dict(fake.calls) == calls | {"list": calls["list"] + 1}
    # and once more as an operator does, with the command line (token and address from the
    # environment): nothing left to send
    output = _command(crowd, ["platform", "sync", STUDY, "--send"])
    assert TOKEN not in output
    assert dict(fake.calls) == calls | {"list": calls["list"] + 2}
    assert fake.paid_total == PER_EXTRA * len(quota_people)


def _command(crowd: Crowd, args: list[str]) -> str:
    """`prb-annotate --db <the study's database> ARGS`; its output (exit code 0)."""
    try:
        result = CliRunner().invoke(app, ["--db", crowd.db_url, *args])
    finally:
        if State._engine is not None:
            State._engine.dispose()
    assert result.exit_code == 0, result.output
    return str(result.output)


def _check_the_monitor(crowd: Crowd) -> None:
    figures = monitor(crowd.engine, SYSTEM, STUDY)
    with read_session(crowd.engine) as session:
        done = session.exec(
            select(Assignment.id).where(col(Assignment.status) == AssignmentStatus.DONE)
        ).all()
        seconds = session.exec(
            select(Rating.assignment_id, Rating.seconds).where(col(Rating.assignment_id).in_(done))
        ).all()
        answers = session.exec(select(CheckAnswer)).all()
    assert figures.throughput.rated == len(done) == PAIRS * K
    assert figures.throughput.recent == len(done)  # all within the hour
    assert figures.size.done == len(done)
    per_pair = {a: s for a, s in seconds if s is not None}  # one time per pair-rating
    if per_pair:
        assert figures.median_seconds == pytest.approx(statistics.median(per_pair.values()))
    failed = Counter(a.annotator_id for a in answers if not a.passed)
    answered = {a.annotator_id for a in answers}  # the monitor names each by pseudonym
    assert sorted(figures.check_failures.values()) == sorted(failed[a] for a in answered)
    assert sum(failed.values()) == 2
    # the cost so far: what the platform was told to pay (approved rewards, bonuses paid on the
    # fake), each participant's pay with the study's fee on top
    spent = 0
    for person in PEOPLE:
        if crowd.fake.status(person.submission) == "APPROVED":
            paid = Decimal(REWARD + crowd.fake.paid_to(person.pid))
            spent += int(paid + (paid * Decimal(FEE) / 100).quantize(Decimal(1), ROUND_HALF_UP))
    assert figures.cost is not None
    assert figures.cost.so_far == spent == 3 * (170 + 57) + 3 * (150 + 50)
    assert figures.look is not None
    assert (figures.look["look"], figures.look["decision"]) == (2, "stop")
    assert figures.look["crossed"]  # on the effect, not because the plan ended
    assert not figures.look["final"]
