"""The adjudication tests' study: four pairs of which two are disputed (by the spread of the
annotators' rubric differences, or by a skip an admin sent to adjudication).

Study `s` (overlap 3, seed 7): four pairs given to a0, a1, a2, who rate them with these chosen -
rejected rubric-alignment differences (the other dimensions are 3 on both sides):

    p000: +1 +1 +1     spread 0
    p001: +1 -1  0     spread 2 (votes chosen, rejected, tie: majority tie)
    p002: +2 +1 +1     spread 1
    p003: +1 +1, a2 skips it ("unclear"), and an admin sends that skip to adjudication

so the queue is {p003} with no threshold, {p001, p003} at 2 and {p001, p002, p003} at 1.
a3 and a4 are adjudicators and never had a pair; a4 is deactivated; boss0 is the admin.
"""

from __future__ import annotations

from sqlalchemy.engine import Engine
from sqlmodel import select

from annotate.db import read_session, write_session
from annotate.db.tables import Annotator, Assignment, Pair
from annotate.domain.assignment import PairSelection
from annotate.domain.study import accounts
from annotate.domain.study.permissions import SYSTEM
from annotate.services.admin import flags, plans
from annotate.services.participant.rating import skip_pair
from annotate.vocabulary import FlagAction
from tests.helpers.admin_helpers import make_people, make_study, rate, scores

DIFFS = {
    "p000": (1, 1, 1),
    "p001": (1, -1, 0),
    "p002": (2, 1, 1),
    "p003": (1, 1, None),  # None: skipped
}


def side_scores(chosen_side: str, diff: int) -> dict[str, dict[str, int]]:
    """Scores by side with chosen - rejected = diff on rubric alignment (3 elsewhere)."""
    given = {"chosen": scores(3, rubric_alignment=3 + diff)["A"], "rejected": scores(3)["A"]}
    other = "B" if chosen_side == "A" else "A"
    return {chosen_side: given["chosen"], other: given["rejected"]}


def assignment_of(engine, name: str, record_id: str) -> Assignment:
    with read_session(engine) as session:
        return session.exec(
            select(Assignment)
            .join(Annotator, Annotator.id == Assignment.annotator_id)
            .join(Pair, Pair.id == Assignment.pair_id)
            .where(Annotator.name == name, Pair.record_id == record_id)
        ).one()


def make_disputed(engine: Engine) -> int:
    """The study of the module docstring; returns the admin's account id."""
    make_study(engine, "s", pairs=4, overlap=3)
    make_people(engine, 5)
    (admin,) = make_people(engine, 1, prefix="boss", role="admin")
    with write_session(engine) as session:
        for name in ("a3", "a4"):
            accounts.set_role(session, name, "adjudicator")
        accounts.set_active(session, "a4", False)
    plans.make_plan(
        engine, SYSTEM, study="s", annotators=["a0", "a1", "a2"], selection=PairSelection()
    )
    for record_id, diffs in DIFFS.items():
        for name, diff in zip(("a0", "a1", "a2"), diffs, strict=True):
            item = assignment_of(engine, name, record_id)
            if diff is None:
                skip_pair(engine, annotator_id=item.annotator_id, assignment_id=item.id,
                          reason="unclear")  # fmt: skip
            else:
                given = side_scores(item.chosen_side, diff)
                rate(engine, item.annotator_id, item.id, given=given, comment=f"{name} note")
    skipped = assignment_of(engine, "a2", "p003")
    flags.resolve_flag(
        engine, SYSTEM, study="s", assignment_id=skipped.id, action=FlagAction.ADJUDICATION,
        note="two readings",
    )  # fmt: skip
    return admin
