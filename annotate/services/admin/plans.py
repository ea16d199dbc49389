"""Who rates what, with the admin check in the same transaction: the fixed plan, reassignment,
the listing of a study's assignments."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy.engine import Engine
from sqlmodel import Session

from annotate.db import read_session
from annotate.db.tables import Annotator, stored_id
from annotate.domain import assignment
from annotate.domain.study import accounts, studies
from annotate.domain.study.permissions import Actor, require_admin
from annotate.services.audited import admin_change
from annotate.vocabulary import Role


@dataclass(frozen=True)
class Plan:
    """What `make_plan` did (see `annotate.domain.assignment.PlanResult`)."""

    created: dict[str, int]  # annotator -> new ordinary items
    gold: dict[str, int]  # annotator -> new gold pairs
    moved: int  # of those, pending items moved over by rebalancing
    short: list[str]  # record ids left below k (too few people)
    loads: dict[str, int]  # annotator -> slots held afterwards
    pairs: int  # pairs selected
    overlap: int  # k, the study's overlap after the plan

    @property
    def total(self) -> int:
        return sum(self.created.values())


def _annotators(session: Session, names: Sequence[str] | None) -> list[Annotator]:
    """The named accounts; with None, every active account of the annotator role."""
    if names is None:
        return [a for a in accounts.list_accounts(session) if a.active and a.role == Role.ANNOTATOR]
    return [accounts.get_account(session, n) for n in names]


def make_plan(
    engine: Engine,
    actor: Actor,
    *,
    study: str,
    annotators: Sequence[str] | None,
    selection: assignment.PairSelection,
    per_pair: int | None = None,
    rebalance: bool = False,
) -> Plan:
    """Give every selected pair to k distinct annotators (None: every active annotator)."""
    with admin_change(engine, actor, "plan.assign", study) as change:
        session, target = change.session, studies.get_study(change.session, study)
        pairs = assignment.select_pairs(session, target, selection)
        people = _annotators(session, annotators)
        change.before = {"overlap": target.overlap}
        result = assignment.plan_fixed(
            session, target, people, pairs, per_pair=per_pair, rebalance=rebalance
        )
        change.after = {
            "overlap": target.overlap,
            "annotators": [p.name for p in people],
            "pairs": len(pairs),
            "created": sum(result.created.values()),
            "moved": result.moved,
        }
        return Plan(
            result.created,
            result.gold,
            result.moved,
            result.short,
            result.loads,
            pairs=len(pairs),
            overlap=target.overlap,
        )


def reassign_work(
    engine: Engine,
    actor: Actor,
    *,
    study: str,
    giver: str,
    receivers: Sequence[str] | None = None,
) -> assignment.ReassignResult:
    """Hand the giver's unfinished pairs to `receivers` (None: the study's other annotators)."""
    with admin_change(engine, actor, "plan.reassign", study) as change:
        session, target = change.session, studies.get_study(change.session, study)
        people = _annotators(session, receivers) if receivers else None
        result = assignment.reassign(session, target, accounts.get_account(session, giver), people)
        change.before = {"giver": giver}
        change.after = {"receivers": [p.name for p in people] if people else "the study's others"}
        return result


def assignment_rows(engine: Engine, actor: Actor, study: str) -> list[assignment.AssignmentRow]:
    with read_session(engine) as session:
        require_admin(session, actor)
        study_id = stored_id(studies.get_study(session, study))
        return assignment.assignment_rows(session, study_id)
