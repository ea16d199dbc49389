"""Crowd platforms (issue 34.3): one small interface, `Platform`, and a registry of the
platforms by name, so that a second platform is one module.

`prolific` talks to Prolific's API (its HTTP client lives there and nowhere else);
`completion_url` is any platform that only sends people to the study and takes them back
through a completion URL: it has no API, so its actions are a table the admin applies by hand.
`plan` decides what to do with each submission from the participants' standing, `ledger`
records each action before it is sent, so a retry never sends one twice.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from annotate.errors import Invalid, Unavailable

# Submission statuses, as Prolific names them (other platforms map theirs onto these).
RESERVED = "RESERVED"
ACTIVE = "ACTIVE"
AWAITING_REVIEW = "AWAITING REVIEW"
APPROVED = "APPROVED"
REJECTED = "REJECTED"
RETURNED = "RETURNED"
TIMED_OUT = "TIMED-OUT"
SCREENED_OUT = "SCREENED OUT"

REJECTION_CATEGORIES = (
    "BAD_CODE",
    "FAILED_CHECK",
    "FAILED_INSTRUCTIONS",
    "INCOMP_LONGITUDINAL",
    "LOW_EFFORT",
    "MALINGERING",
    "NO_CODE",
    "NO_DATA",
    "OTHER",
    "TOO_QUICKLY",
    "TOO_SLOWLY",
    "UNSUPP_DEVICE",
)
"""Prolific's rejection categories (its API reference; pyrolific's
`SubmissionTransitionRejectionCategory`)."""


class PlatformUnavailable(Unavailable):
    """The platform did not answer, or answered 429 or 5xx, after the retries. `maybe_done`:
    the request may have been carried out all the same (a 5xx or a broken connection)."""

    def __init__(self, message: str, status: int | None, maybe_done: bool) -> None:
        super().__init__(message)
        self.status = status
        self.maybe_done = maybe_done


class PlatformRefused(Invalid):
    """The platform refused the request (a 4xx other than 429): nothing was done."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Submission:
    """One participant's place in the platform's study."""

    id: str
    participant_id: str
    status: str


@dataclass(frozen=True)
class BonusEntry:
    participant_id: str
    amount: int  # minor units


class Platform(Protocol):
    """What the sync needs of a crowd platform. A platform that cannot `send` is given its
    actions as a table; its `submissions` are None (the sync then reads the database's
    participants)."""

    name: str
    sends: bool

    def submissions(self, study_id: str) -> list[Submission] | None: ...

    def approve(self, submission_id: str) -> None: ...

    def reject(self, submission_id: str, category: str, message: str) -> None: ...

    def complete(self, submission_id: str, code: str) -> None: ...

    def request_return(self, submission_id: str, reasons: Sequence[str]) -> None: ...

    def create_bonus(self, study_id: str, entries: Sequence[BonusEntry]) -> str: ...

    def pay_bonus(self, bonus_id: str) -> None: ...


PlatformFactory = Callable[[], Platform]


def registry() -> dict[str, PlatformFactory]:
    """The platforms by name (`annotate.vocabulary.PLATFORM_NAMES`), each made when asked for:
    Prolific's reads its API token then."""
    from annotate.domain.platforms import completion_url, prolific

    return {"prolific": prolific.from_environment, "completion_url": completion_url.CompletionUrl}


def open_platform(name: str) -> Platform:
    """The platform called `name`; KeyError for an unknown one."""
    return registry()[name]()
