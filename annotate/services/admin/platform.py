"""The crowd platform in the loop (issue 34.3, admin, audited): `sync` reads a study's
submissions on its platform, plans what to do with each (`annotate.domain.platforms.plan`)
and, with `send`, does it: every action is recorded in the ledger before it is sent and its
state moves on in a transaction of its own around each call (`annotate.domain.platforms.
ledger`), so a retry never sends an approval or a bonus twice. Without `send` nothing is
written: the table of what would be sent. Every action sent is audited, naming the
participant by pseudonym, never by platform id.

A platform without an API (`completion_url`) gives the same table, as a CSV
(`actions_csv`), for the admin to apply by hand; its "submissions" are the study's
participants as the database knows them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from sqlalchemy.engine import Engine
from sqlmodel import Session

from annotate.db import read_session
from annotate.db.tables import PlatformAction, Study, stored_id
from annotate.domain.crowd import outcomes
from annotate.domain.crowd.payment_rules import major_units, payment_rules
from annotate.domain.exports.pseudonyms import pseudonym, secret_key
from annotate.domain.exports.spreadsheet import inert_csv
from annotate.domain.platforms import (
    AWAITING_REVIEW,
    Platform,
    PlatformRefused,
    PlatformUnavailable,
    Submission,
    ledger,
    open_platform,
    plan,
    standing,
)
from annotate.domain.platforms.plan import Action, Standing
from annotate.domain.study.permissions import Actor, require_admin
from annotate.domain.study.studies import get_study
from annotate.errors import Invalid, PrbError
from annotate.services.audited import admin_change

ACTION_COLUMNS = (
    "action_id",
    "action",
    "participant_id",
    "submission_id",
    "amount",
    "currency",
    "why",
    "state",
)
WORDS = {
    plan.RELEASE: "release the pairs",
    plan.APPROVE: "approve",
    plan.REJECT: "reject (failed checks)",
    plan.COMPLETE: "screen out (code)",
    plan.REQUEST_RETURN: "ask to return",
    plan.BONUS: "bonus",
    plan.NONE: "nothing",
}


@dataclass(frozen=True)
class SyncLine:
    action_id: int | None
    kind: str
    participant_id: str
    submission_id: str
    amount: int
    why: str
    state: str
    entries: tuple[tuple[str, int], ...] = ()

    @property
    def words(self) -> str:
        return WORDS.get(self.kind, self.kind)


@dataclass
class SyncResult:
    study: str
    platform: str
    sends: bool
    currency: str
    lines: list[SyncLine]
    sent: bool = False
    problems: list[str] = field(default_factory=list)

    @property
    def to_send(self) -> list[SyncLine]:
        return [line for line in self.lines if line.kind != plan.NONE]


def _line(action: Action) -> SyncLine:
    who = action.participant_id
    if action.kind == plan.BONUS:
        n = len(action.payload.get("entries", []))
        who = f"{n} participant" + ("s" if n != 1 else "")
    return SyncLine(
        action.action_id,
        action.kind,
        who,
        action.submission_id or "",
        action.amount,
        action.why,
        action.state,
        tuple((e.participant_id, e.amount) for e in action.entries),
    )


def _target(session: Session, actor: Actor, study: str) -> Study:
    require_admin(session, actor)
    target = get_study(session, study)
    if target.platform is None:
        raise Invalid(f"study {study!r} has no platform: set one (studies edit --platform)")
    if target.platform == "prolific" and not target.platform_study_id:
        raise Invalid(
            f"study {study!r} has no platform study id (studies edit --platform-study-id)"
        )
    return target


def _submissions(found: list[Submission] | None, people: dict[str, Standing]) -> list[Submission]:
    """The platform's submissions; for a platform without an API, the study's participants
    (their participant id as the submission's), all to review."""
    if found is not None:
        return found
    return [Submission(p, p, AWAITING_REVIEW) for p in sorted(people)]


def _planned(
    session: Session, target: Study, found: list[Submission] | None, bonus_csv: str | None
) -> list[Action]:
    people = standing.standings(session, target)
    subs = _submissions(found, people)
    actions = plan.submission_actions(subs, people, target.screenout_code)
    recorded = ledger.all_actions(session, stored_id(target))
    bonus = plan.rule_bonus_action(subs, people, payment_rules(target), plan.rule_bonused(recorded))
    if bonus_csv is not None:
        bonus = plan.bonus_action(
            "csv", plan.read_bonus_csv(bonus_csv, people), "the uploaded bonus file"
        )
        # a CSV replaces the rule for this sync; the rule pays the rest later
    actions += [bonus] if bonus is not None else []
    pending, sent = ledger.pending_and_sent(session, stored_id(target))
    return plan.with_ledger(actions, pending, sent)


def sync(
    engine: Engine,
    actor: Actor,
    study: str,
    *,
    send: bool = False,
    bonus_csv: str | None = None,
    platform: Callable[[str], Platform] = open_platform,
) -> SyncResult:
    """The study's actions on its platform: the table (dry run), or with `send` sent."""
    with read_session(engine) as session:
        target = _target(session, actor, study)
        name, platform_study = str(target.platform), target.platform_study_id or ""
    client = platform(name)
    found = client.submissions(platform_study) if client.sends else None
    if not send:
        with read_session(engine) as session:
            target = _target(session, actor, study)
            actions = _planned(session, target, found, bonus_csv)
        return SyncResult(study, name, client.sends, target.currency, [_line(a) for a in actions])
    if not client.sends:
        raise Invalid(f"{name}: this platform has no API; apply the table by hand (its CSV)")
    with admin_change(engine, actor, "platform.plan", study) as change:
        assert change.study is not None
        target, currency = change.study, change.study.currency
        actions = _planned(change.session, target, found, bonus_csv)
        for action in actions:
            if action.kind != plan.NONE:
                ledger.record(change.session, stored_id(target), action)
        change.after = {"actions": _counts(actions)}
        change.changed = any(a.kind != plan.NONE for a in actions)
    result = SyncResult(study, name, True, currency, [], sent=True)
    sender = _Sender(engine, actor, study, client, platform_study)
    for action in actions:
        if action.kind != plan.NONE:
            sender.send(action, result)
        result.lines.append(_line(action))
    return result


def _counts(actions: list[Action]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for action in actions:
        counts[action.kind] = counts.get(action.kind, 0) + 1
    return counts


@dataclass(frozen=True)
class _Sender:
    """Sends one study's actions, each state change a transaction of its own."""

    engine: Engine
    actor: Actor
    study: str
    client: Platform
    platform_study: str

    def send(self, action: Action, result: SyncResult) -> None:
        try:
            if action.kind == plan.RELEASE:
                self._release(action)
            elif action.kind == plan.BONUS:
                self._bonus(action)
            else:  # a decision: Prolific's transitions are idempotent, so sent again if need be
                self._step(action, "sending", attempt=True, audited=False)
                _decide(self.client, action)
                self._step(action, ledger.SENT)
        except (PlatformUnavailable, PlatformRefused) as error:
            result.problems.append(f"{WORDS.get(action.kind, action.kind)}: {error}")
            if action.kind != plan.BONUS:
                self._step(action, ledger.FAILED, error=str(error))
        except ledger.Taken as error:
            result.problems.append(f"{WORDS.get(action.kind, action.kind)}: {error}")

    def _step(
        self,
        action: Action,
        state: str,
        *,
        error: str = "",
        ref: str | None = None,
        attempt: bool = False,
        audited: bool = True,
        expect: tuple[str, ...] | None = None,
    ) -> None:
        """Move the action to `state` (audited: what, whom by pseudonym, how much; never a
        platform id or the error's text)."""
        assert action.action_id is not None
        with admin_change(self.engine, self.actor, f"platform.{action.kind}", self.study) as change:
            assert change.study is not None
            ledger.move(
                change.session,
                action.action_id,
                state,
                error=error,
                ref=ref,
                attempt=attempt,
                expect=expect,
            )
            action.state = state
            change.after = {"action_id": action.action_id, "state": state}
            change.after |= _whom(change.session, change.study, action)
            if action.amount:
                change.after["amount"] = action.amount
            change.changed = audited

    def _release(self, action: Action) -> None:
        assert action.action_id is not None
        assert action.annotator_id is not None
        status = outcomes.RETURNED if action.why.startswith("returned") else outcomes.TIMED_OUT
        with admin_change(self.engine, self.actor, "platform.release", self.study) as change:
            assert change.study is not None
            released = standing.settle_exit(
                change.session, change.study, action.annotator_id, status
            )
            ledger.move(change.session, action.action_id, ledger.SENT, attempt=True)
            action.state = ledger.SENT
            change.after = {"action_id": action.action_id, "status": status}
            change.after |= _whom(change.session, change.study, action)
            change.after["pairs_released"] = released

    def _bonus(self, action: Action) -> None:
        """Set the bulk bonus up (again, if need be: nothing is paid by that), then pay it
        once; a payment that may have gone through is `unknown` until the admin says."""
        if action.state == ledger.PAYING:  # a sync stopped during the payment (or pays now)
            self._step(
                action, ledger.UNKNOWN, error="stopped while paying", expect=(ledger.PAYING,)
            )
        if action.state == ledger.UNKNOWN:
            return  # paid or not: the admin checks on the platform first (`resolve_bonus`)
        if action.state != ledger.CREATED:
            again = ("planned", ledger.FAILED, "creating")
            self._step(action, "creating", attempt=True, audited=False, expect=again)
            try:
                ref = self.client.create_bonus(self.platform_study, action.entries)
            except (PlatformUnavailable, PlatformRefused) as error:
                self._step(action, ledger.FAILED, error=str(error))
                raise
            self._step(action, ledger.CREATED, ref=ref, audited=False)
        self._step(action, ledger.PAYING, attempt=True, audited=False, expect=(ledger.CREATED,))
        try:
            self.client.pay_bonus(self._ref(action))
        except PlatformUnavailable as error:
            state = ledger.UNKNOWN if error.maybe_done else ledger.CREATED
            self._step(action, state, error=str(error))
            raise
        except PlatformRefused as error:
            self._step(action, ledger.CREATED, error=str(error))
            raise
        self._step(action, ledger.SENT)

    def _ref(self, action: Action) -> str:
        """The platform's id of the bulk bonus the action set up."""
        with read_session(self.engine) as session:
            row = session.get(PlatformAction, action.action_id)
            if row is None or not row.platform_ref:
                raise PrbError(f"bonus payment {action.action_id} has no platform id")
            return row.platform_ref


def _whom(session: Session, study: Study, action: Action) -> dict[str, object]:
    """Whom the action concerns, for the audit log: a pseudonym, or a bonus's head count."""
    if action.kind == plan.BONUS:
        return {"participants": len(action.payload.get("entries", []))}
    if action.annotator_id is None:
        return {}
    key = secret_key(session)
    return {"participant": pseudonym(key, stored_id(study), action.annotator_id)}


def _decide(client: Platform, action: Action) -> None:
    sub = action.submission_id or ""
    if action.kind == plan.APPROVE:
        client.approve(sub)
    elif action.kind == plan.REJECT:
        client.reject(sub, action.payload["rejection_category"], action.payload["message"])
    elif action.kind == plan.COMPLETE:
        client.complete(sub, action.payload["completion_code"])
    elif action.kind == plan.REQUEST_RETURN:
        client.request_return(sub, action.payload["reasons"])


def resolve_bonus(engine: Engine, actor: Actor, study: str, action_id: int, paid: bool) -> None:
    """The admin's word, after checking on the platform, on a bulk bonus whose payment is
    unknown: paid (done) or not (the next sync pays it)."""
    with admin_change(engine, actor, "platform.bonus_resolved", study) as change:
        assert change.study is not None
        row = ledger.resolve(change.session, stored_id(change.study), action_id, paid)
        change.after = {"action_id": action_id, "paid": paid, "state": row.state}


def actions_csv(result: SyncResult) -> str:
    """The table as CSV (`ACTION_COLUMNS`), every text cell inert: for a platform without an
    API, what the admin applies by hand; one line per bonus entry."""
    rows: list[list[object]] = []
    for line in result.lines:
        for who, amount in line.entries or ((line.participant_id, line.amount),):
            shown = major_units(amount) if amount else ""
            rows.append(
                [
                    line.action_id or "",
                    line.words,
                    who,
                    line.submission_id,
                    shown,
                    result.currency if shown else "",
                    line.why,
                    line.state,
                ]
            )
    return inert_csv(ACTION_COLUMNS, rows)
