"""A crowd study on Prolific (issue 34.3), for the platform sync tests: participants with
every standing, and the fake Prolific server holding their submissions."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from annotate.services.admin.erasure import withdraw_me
from annotate.services.participant.consent import answer_survey, decide
from annotate.services.participant.enrolment import enrol, finish_study, start
from support.fake_prolific import FakeProlific
from tests.security.participants_world import STUDY, Person, crowd_study, study_key, take_part

TOKEN = "prolific-token-Zq8xK2mW9vT4rYb7nE3cA6uJ"
PLATFORM_STUDY = "65a1b2c3d4e5f60718293a4b"
SCREENOUT = "SCRN-0UT"
REWARD, PER_EXTRA = 150, 20  # pence: the reward, and the bonus per pair beyond 3
IDS = {  # who: (participant id, submission id, submission status on Prolific)
    "full": ("5f8e2b1c9d3a4e0012345678", "sub0000000000000000000001", "AWAITING REVIEW"),
    "three": ("60aa11bb22cc33dd44ee55ff", "sub0000000000000000000002", "AWAITING REVIEW"),
    "returner": ("61bb22cc33dd44ee55ff6677", "sub0000000000000000000003", "RETURNED"),
    "late": ("62cc33dd44ee55ff66778899", "sub0000000000000000000004", "TIMED-OUT"),
    "leaver": ("63dd44ee55ff667788990011", "sub0000000000000000000005", "AWAITING REVIEW"),
    "decliner": ("64ee55ff6677889900112233", "sub0000000000000000000006", "AWAITING REVIEW"),
    "stranger": ("65ff66778899001122334455", "sub0000000000000000000007", "ACTIVE"),
}


@dataclass
class World:
    fake: FakeProlific
    people: dict[str, int]  # who -> account id

    def sub(self, who: str) -> str:
        return IDS[who][1]

    def pid(self, who: str) -> str:
        return IDS[who][0]


def _begin(engine, pid: str, session_id: str, *, accept: bool = True) -> tuple[int, str]:
    link = {"study": STUDY, "key": study_key(engine)}
    visit = enrol(engine, participant_id=pid, session_id=session_id, **link)
    decide(engine, visit.annotator_id, accept=accept, **link)
    if accept:
        answer_survey(engine, visit.annotator_id, answers={"age": "30-49", "job": "x"}, **link)
        start(engine, visit.annotator_id, **link)
    return visit.annotator_id, visit.token


def crowd_on_prolific(engine, **settings) -> dict[str, int]:
    """The study and its people: `full` rated 5 (2 beyond the 3 asked), `three` rated 3,
    skipped one and chose Finish, `returner` and `late` hold a pair, `leaver` withdrew,
    `decliner` declined consent (screened out); `stranger` has no account here."""
    defaults = {
        "pool_quota": 5,
        "finish_minimum": 3,
        "screenout_code": SCREENOUT,
        "platform": "prolific",
        "platform_study_id": PLATFORM_STUDY,
        "reward": REWARD,
        "bonus_rule": f"per_extra_pair:{PER_EXTRA}",
        "platform_fee_percent": 33.33,
    }
    crowd_study(engine, pairs=10, **(defaults | settings))
    three = take_part(engine, Person(IDS["three"][0], "t" * 24), 3, "b")
    finish_study(engine, three.annotator_id, study=STUDY, token=three.token)  # Finish after 3
    people = {
        "full": take_part(engine, Person(IDS["full"][0], "s" * 24), 5, "a").annotator_id,
        "three": three.annotator_id,
    }
    people["returner"] = _begin(engine, IDS["returner"][0], "u" * 24)[0]
    people["late"] = _begin(engine, IDS["late"][0], "v" * 24)[0]
    leaver, token = _begin(engine, IDS["leaver"][0], "w" * 24)
    link = {"study": STUDY, "key": study_key(engine)}
    withdraw_me(engine, leaver, token=token, erase_data=False, **link)
    people["leaver"] = leaver
    people["decliner"] = _begin(engine, IDS["decliner"][0], "x" * 24, accept=False)[0]
    return people


@contextmanager
def prolific_world(engine, monkeypatch, **settings) -> Iterator[World]:
    """The study, and the fake Prolific holding its submissions, its address and token in
    the environment as an operator would set them."""
    people = crowd_on_prolific(engine, **settings)
    with FakeProlific(TOKEN) as fake:
        fake.state.screenout_codes.add(SCREENOUT)
        for pid, sub, status in IDS.values():
            fake.add_submission(PLATFORM_STUDY, sub, pid, status)
        monkeypatch.setenv("PRB_PROLIFIC_TOKEN", TOKEN)
        monkeypatch.setenv("PRB_PROLIFIC_API_URL", fake.url)
        yield World(fake, people)
