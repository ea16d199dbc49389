"""What the sync would do with each of a study's submissions (issue 34.3), with no database:
from the platform's submissions, each participant's standing (their outcome in the study),
the study's payment rules and what the ledger already holds.

- RETURNED or TIMED-OUT: *release*: the participant's unfinished pairs go back to the pool
  (done here, not on the platform).
- AWAITING REVIEW: *approve* a participant who completed (or whose pool ran dry after
  working); *reject* (category FAILED_CHECK) only one who failed the study's
  instructed-response checks (gold pairs, speed and disagreement never lead to rejection);
  *complete* with the screen-out code one who was screened out (when the study has the
  code); *request a return* from one who withdrew. Anyone else is left to the admin.
- Bonuses: the study's rule for each participant approved now or before (one bulk payment
  for those the rule has not paid yet), or an uploaded CSV (once per distinct file).

Every action has a key (one decision per submission: `review:<id>`), so the ledger holds it
once whatever happens between planning and sending.
"""

from __future__ import annotations

import csv
import hashlib
import io
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from annotate.domain.crowd.outcomes import FAILED_CHECKS, SCREENED_OUT, WITHDRAWN
from annotate.domain.crowd.payment_rules import PAID_STATUSES, PaymentRules, minor_units, rule_bonus
from annotate.domain.platforms import (
    APPROVED,
    AWAITING_REVIEW,
    RETURNED,
    TIMED_OUT,
    BonusEntry,
    Submission,
)
from annotate.errors import Invalid

RELEASE, APPROVE, REJECT, COMPLETE, REQUEST_RETURN, BONUS, NONE = (
    "release",
    "approve",
    "reject",
    "complete",
    "request_return",
    "bonus",
    "none",
)
ORDER = (RELEASE, APPROVE, REJECT, COMPLETE, REQUEST_RETURN, BONUS, NONE)
REJECTION_CATEGORY = "FAILED_CHECK"
REJECTION_MESSAGE = (
    "Your submission cannot be approved: you did not follow two of the study's instructed "
    "questions (each asked for a given answer, such as 'select somewhat here'). Thank you for "
    "your time."
)
RETURN_REASONS = ("Withdrew from the study.",)
MAX_CSV_LINES = 10_000


@dataclass(frozen=True)
class Standing:
    """A participant of the study as the sync reads them."""

    annotator_id: int
    participant_id: str
    status: str
    pairs_done: int


@dataclass
class Action:
    """One thing to do; `state` is the ledger's ('new' when it holds nothing yet)."""

    kind: str
    key: str
    why: str
    submission_id: str | None = None
    participant_id: str = ""
    annotator_id: int | None = None
    amount: int = 0
    payload: dict[str, Any] = field(default_factory=dict)
    state: str = "new"
    action_id: int | None = None

    @property
    def entries(self) -> list[BonusEntry]:
        return [BonusEntry(str(p), int(a)) for p, a in self.payload.get("entries", [])]


def submission_actions(
    submissions: Iterable[Submission],
    standings: Mapping[str, Standing],
    screenout_code: str | None,
) -> list[Action]:
    """The release or decision each submission calls for (NONE: left to the admin)."""
    found = []
    for sub in submissions:
        person = standings.get(sub.participant_id)
        base: dict[str, Any] = {
            "submission_id": sub.id,
            "participant_id": sub.participant_id,
            "annotator_id": None if person is None else person.annotator_id,
        }
        if sub.status in (RETURNED, TIMED_OUT):
            if person is not None:
                why = "returned" if sub.status == RETURNED else "timed out"
                found.append(Action(RELEASE, f"release:{sub.id}", f"{why} on the platform", **base))
            continue
        if sub.status != AWAITING_REVIEW:
            continue
        found.append(_decision(sub, person, screenout_code, base))
    return found


def _decision(
    sub: Submission, person: Standing | None, screenout: str | None, base: dict[str, Any]
) -> Action:
    key = f"review:{sub.id}"
    status = "no account in this study" if person is None else person.status
    if status in PAID_STATUSES:
        return Action(APPROVE, key, status, **base)
    if status == FAILED_CHECKS:
        payload = {"rejection_category": REJECTION_CATEGORY, "message": REJECTION_MESSAGE}
        return Action(REJECT, key, status, payload=payload, **base)
    if status == SCREENED_OUT and screenout:
        return Action(COMPLETE, key, status, payload={"completion_code": screenout}, **base)
    if status == WITHDRAWN:
        return Action(REQUEST_RETURN, key, status, payload={"reasons": [*RETURN_REASONS]}, **base)
    return Action(NONE, key, f"{status}: left to you", **base)


def rule_bonus_action(
    submissions: Iterable[Submission],
    standings: Mapping[str, Standing],
    rules: PaymentRules,
    already: set[str],
) -> Action | None:
    """One bulk bonus by the study's rule for the participants approved now or before whom no
    earlier rule bonus holds (`already`); None when there is nobody to pay."""
    entries = []
    for sub in submissions:
        person = standings.get(sub.participant_id)
        if person is None or sub.status not in (AWAITING_REVIEW, APPROVED):
            continue
        amount = rule_bonus(rules, person.status, person.pairs_done)
        if amount and sub.participant_id not in already:
            entries.append(BonusEntry(sub.participant_id, amount))
    return bonus_action("rule", entries, "the study's bonus rule")


def bonus_action(source: str, entries: Sequence[BonusEntry], why: str) -> Action | None:
    if not entries:
        return None
    rows = sorted((e.participant_id, e.amount) for e in entries)
    digest = hashlib.sha256(repr(rows).encode()).hexdigest()[:16]
    payload = {"source": source, "entries": [list(r) for r in rows]}
    total = sum(a for _, a in rows)
    who = f"{len(rows)} participant" + ("s" if len(rows) != 1 else "")
    return Action(
        BONUS, f"bonus:{source}:{digest}", f"{why} ({who})", amount=total, payload=payload
    )


def rule_bonused(recorded: Iterable[Action]) -> set[str]:
    """Participants a rule bonus already holds (in any state: a failed one is retried as it
    is, never planned again with others)."""
    return {
        str(pid)
        for r in recorded
        if r.kind == BONUS and r.payload.get("source") == "rule"
        for pid, _ in r.payload.get("entries", [])
    }


def read_bonus_csv(text: str, participants: Iterable[str]) -> list[BonusEntry]:
    """`participant_id,amount` lines (amount in the currency, e.g. 1.50; a header line is
    allowed), every participant one of the study's; all or nothing, problems by line."""
    known, problems, entries, seen = set(participants), [], [], set()
    lines = list(csv.reader(io.StringIO(text)))
    if len(lines) > MAX_CSV_LINES:
        raise Invalid(f"a bonus file has at most {MAX_CSV_LINES:,} lines")
    for number, row in enumerate(lines, start=1):
        cells = [c.strip() for c in row]
        if not any(cells) or (number == 1 and cells[:1] == ["participant_id"]):
            continue
        if len(cells) != 2:
            problems.append(f"line {number}: expected participant_id,amount")
            continue
        try:
            amount = minor_units(cells[1])
        except ValueError as error:
            problems.append(f"line {number}: {error}")
            continue
        if cells[0] not in known:
            problems.append(f"line {number}: not a participant of this study")
        elif cells[0] in seen:
            problems.append(f"line {number}: the participant has a line already")
        else:
            seen.add(cells[0])
            entries.append(BonusEntry(cells[0], amount))
    if problems:
        raise Invalid("the bonus file: " + "; ".join(problems[:20]))
    if not entries:
        raise Invalid("the bonus file has no participant_id,amount line")
    return entries


def with_ledger(
    planned: Iterable[Action], pending: Mapping[str, Action], sent: set[str]
) -> list[Action]:
    """The actions to send, in the order they are sent (releases first, bonuses after the
    decisions): what the ledger holds unsent stands as recorded (a decision once recorded is
    not changed; a bulk bonus keeps its entries), what it holds as sent is left out, and a
    recorded bonus that is no longer planned (set up, its payment unknown) is kept."""
    kept: dict[str, Action] = {}
    for action in planned:
        if action.key not in sent:
            kept[action.key] = pending.get(action.key, action)
    for key, action in pending.items():
        if action.kind == BONUS and key not in kept:
            kept[key] = action
    return sorted(kept.values(), key=lambda a: ORDER.index(a.kind))
