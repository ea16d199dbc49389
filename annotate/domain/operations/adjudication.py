"""Adjudication (issue 15.3): the queue of disputed pairs and sending one to an adjudicator.

A pair is a candidate when

* its annotators disagree on rubric alignment beyond the study's `adjudication_threshold`: the
  *spread* of their judgements, max - min over the annotators who rated it (done, ordinary
  ratings) of their chosen - rejected rubric-alignment difference, is at least the threshold,
  with two judgements or more (on a 1-5 scale, threshold 2 catches +1 against -1); or
* an admin sent one of its flagged or skipped assignments to adjudication
  (`annotate.domain.operations.flags.resolve` with `FlagAction.ADJUDICATION`).

Sending a candidate to an adjudicator appends it to that account's queue as an assignment with
purpose 'adjudication' and its own seeded side (`slots.assign_pairs`, the same draw as every
assignment): the rating page shows it like any pair, blind, with nothing saying it is disputed
or how others rated it. Adjudications come on top of the pair's k (`slots.slot_clause`); the
analysis uses them only for the figures "after adjudication" (`analysis.designs.adjudication`).

Who adjudicates (issue 22.5, 24.10): an active account with the adjudicator role
(`annotate.domain.study.accounts.adjudicator_refusal` keeps simulated accounts, crowd
participants, admins and researchers out of it) that never had the pair. A pair has one
adjudication per round: one live adjudication (pending, skipped or done) at a time, checked here
and kept by the database (the partial unique index `uq_assignment_live_adjudication`), so two
admins sending it at once get one adjudicator and a refusal. A round ends when its adjudication
is released (the adjudicator deactivated: `release_adjudications`, or their work reassigned);
the pair can then be sent again.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlmodel import Session, col, select

from annotate.db.queries import joined_assignments
from annotate.db.tables import Annotator, Assignment, FlagResolution, Pair, Rating, Study, stored_id
from annotate.domain.assignment import assign_pairs
from annotate.domain.assignment.slots import OPEN_STATUSES, lock_study
from annotate.domain.operations.flags import exclusions
from annotate.domain.study.accounts import get_account
from annotate.domain.study.questionnaire import questionnaire_of
from annotate.errors import Conflict, Invalid, NotFound
from annotate.vocabulary import (
    AssignmentStatus,
    FlagAction,
    Purpose,
    Response,
    Role,
)


class AdjudicationError(Invalid):
    """An adjudication that cannot be sent as asked."""


@dataclass(frozen=True)
class Adjudicator:
    name: str
    status: str  # the adjudication assignment's status: pending, done, skipped, released


@dataclass(frozen=True)
class Candidate:
    """A pair in the adjudication queue, why it is there, and who adjudicates it."""

    record_id: str
    domain: str
    differences: tuple[int, ...]  # each annotator's chosen - rejected rubric score, sorted
    spread: int | None  # max - min of the differences; None with fewer than two
    beyond_threshold: bool
    flag_notes: tuple[str, ...]  # "annotator: note" of each flag sent to adjudication
    excluded: bool
    adjudicators: tuple[Adjudicator, ...] = field(default=())

    @property
    def reasons(self) -> str:
        why = []
        if self.beyond_threshold:
            why.append(f"spread {self.spread} of {len(self.differences)} judgements")
        why += [f"flag sent to adjudication ({n})" for n in self.flag_notes]
        return "; ".join(why)


def spread(differences: Sequence[int]) -> int | None:
    """Max - min of the annotators' chosen - rejected differences (None with fewer than two)."""
    return max(differences) - min(differences) if len(differences) >= 2 else None


def beyond(differences: Sequence[int], threshold: float | None) -> bool:
    """Whether these judgements disagree enough for adjudication (threshold None: never)."""
    value = spread(differences)
    return threshold is not None and value is not None and value >= threshold


def rubric_differences(session: Session, study_id: int) -> dict[str, list[int]]:
    """record id -> each ordinary annotator's chosen - rejected score on the study's target
    question (rubric alignment by default; done assignments of ordinary pairs; gold pairs and
    adjudications left out). A questionnaire without a target gives none."""
    target = questionnaire_of(session.get_one(Study, study_id)).target
    if target is None:
        return {}
    query = joined_assignments(
        Pair.record_id, Assignment.id, Rating.response, Rating.score, ratings=True
    ).where(
        col(Assignment.study_id) == study_id,
        col(Assignment.purpose) == Purpose.RATING,
        col(Assignment.status) == AssignmentStatus.DONE,
        col(Pair.gold_preference).is_(None),
        col(Rating.dimension) == target,
    )
    scores: dict[tuple[str, int], dict[str, int]] = defaultdict(dict)
    for record_id, assignment_id, response, score in session.exec(query).all():
        scores[(record_id, assignment_id)][response] = score
    out: dict[str, list[int]] = defaultdict(list)
    for (record_id, _), given in scores.items():
        if len(given) == 2:
            out[record_id].append(given[Response.CHOSEN] - given[Response.REJECTED])
    return dict(out)


def _by_pair(
    session: Session, study_id: int, value: Any, *where: Any, flags: bool = False
) -> dict[str, list[tuple[str, Any]]]:
    """record id -> (annotator name, `value`) of the study's assignments matching `where`, by
    name; with `flags`, joined to their flag resolutions."""
    query = joined_assignments(Pair.record_id, Annotator.name, value)
    if flags:
        query = query.join(FlagResolution, col(FlagResolution.assignment_id) == col(Assignment.id))
    query = query.where(col(Assignment.study_id) == study_id, *where)
    out: dict[str, list[tuple[str, Any]]] = defaultdict(list)
    for record_id, name, found in session.exec(query.order_by(col(Annotator.name))).all():
        out[record_id].append((name, found))
    return out


def _flag_notes(session: Session, study_id: int) -> dict[str, list[str]]:
    adjudicate = col(FlagResolution.action) == FlagAction.ADJUDICATION
    found = _by_pair(session, study_id, FlagResolution.note, adjudicate, flags=True)
    return {r: [f"{n}: {note}" if note else n for n, note in v] for r, v in found.items()}


def _adjudicators(session: Session, study_id: int) -> dict[str, list[Adjudicator]]:
    adjudication = col(Assignment.purpose) == Purpose.ADJUDICATION
    found = _by_pair(session, study_id, Assignment.status, adjudication)
    return {r: [Adjudicator(n, status) for n, status in v] for r, v in found.items()}


def candidates(session: Session, study: Study) -> list[Candidate]:
    """The study's adjudication queue, by record id: pairs beyond the threshold or with a flag
    sent to adjudication, and pairs already sent to an adjudicator."""
    study_id = stored_id(study)
    differences = rubric_differences(session, study_id)
    notes = _flag_notes(session, study_id)
    adjudicators = _adjudicators(session, study_id)
    excluded = {e.record_id for e in exclusions(session, study_id)}
    threshold = study.adjudication_threshold
    disputed = {r for r, d in differences.items() if beyond(d, threshold)}
    wanted = disputed | set(notes) | set(adjudicators)
    domains = dict(
        session.exec(
            select(Pair.record_id, Pair.domain).where(
                Pair.study_id == study_id, col(Pair.record_id).in_(wanted)
            )
        ).all()
    )
    return [
        Candidate(
            record_id=record_id,
            domain=domains[record_id],
            differences=tuple(sorted(differences.get(record_id, []))),
            spread=spread(differences.get(record_id, [])),
            beyond_threshold=record_id in disputed,
            flag_notes=tuple(notes.get(record_id, [])),
            excluded=record_id in excluded,
            adjudicators=tuple(adjudicators.get(record_id, [])),
        )
        for record_id in sorted(wanted)
    ]


def eligible(session: Session, study: Study, record_id: str) -> list[str]:
    """Active adjudicator accounts that never had the pair: who may adjudicate it."""
    had = select(Assignment.annotator_id).join(Pair, col(Pair.id) == col(Assignment.pair_id))
    had = had.where(Pair.study_id == stored_id(study), Pair.record_id == record_id)
    names = session.exec(
        select(Annotator.name)
        .where(
            col(Annotator.active).is_(True),
            Annotator.role == Role.ADJUDICATOR,
            col(Annotator.id).not_in(had),
        )
        .order_by(col(Annotator.name))
    ).all()
    return list(names)


def send(session: Session, study: Study, record_id: str, adjudicator: str) -> Assignment:
    """Give a candidate pair to `adjudicator` (an active account that never had the pair):
    a new assignment with purpose 'adjudication', at the end of their queue, with its own
    drawn side. Refused for a pair that is not a candidate."""
    queue = {c.record_id: c for c in candidates(session, study)}
    candidate = queue.get(record_id)
    if candidate is None:
        raise AdjudicationError(
            f"pair {record_id!r} is not in the adjudication queue of {study.name!r} (neither "
            f"beyond the disagreement threshold nor flagged for adjudication)"
        )
    pair = session.exec(
        select(Pair).where(Pair.study_id == stored_id(study), Pair.record_id == record_id)
    ).first()
    if pair is None:
        raise NotFound(f"no pair {record_id!r} in study {study.name!r}")
    account = get_account(session, adjudicator)
    if not account.active:
        raise AdjudicationError(f"account {adjudicator!r} is deactivated")
    if account.role != Role.ADJUDICATOR:
        raise AdjudicationError(
            f"{adjudicator} has the {account.role} role; adjudication goes only to an account "
            f"with the adjudicator role"
        )
    lock_study(session, stored_id(study))
    live = live_adjudicator(session, stored_id(pair))
    if live is not None:
        raise Conflict(
            f"pair {record_id!r} is already with adjudicator {live}; one adjudication per pair "
            f"at a time (release it first: deactivate the adjudicator or reassign their work)"
        )
    had = session.exec(
        select(Assignment.purpose, Assignment.status).where(
            Assignment.annotator_id == stored_id(account), Assignment.pair_id == stored_id(pair)
        )
    ).first()
    if had is not None:
        what = "adjudicates" if had[0] == Purpose.ADJUDICATION else f"had it ({had[1]})"
        raise Conflict(
            f"{adjudicator} already {what} pair {record_id!r}; an adjudicator must be someone "
            f"who has not seen the pair"
        )
    (assignment,) = assign_pairs(session, study, account, [pair], purpose=Purpose.ADJUDICATION)
    return assignment


def live_adjudicator(session: Session, pair_id: int) -> str | None:
    """The name of whoever holds the pair's live (not released) adjudication, if anyone."""
    return session.exec(
        select(Annotator.name)
        .join(Assignment, col(Assignment.annotator_id) == col(Annotator.id))
        .where(
            Assignment.pair_id == pair_id,
            Assignment.purpose == Purpose.ADJUDICATION,
            Assignment.status != AssignmentStatus.RELEASED,
        )
    ).first()


def release_adjudications(session: Session, annotator_id: int) -> list[int]:
    """Release the adjudications the annotator has not finished (pending or skipped), so their
    pairs can go to another adjudicator; return the released assignments' ids."""
    open_items = session.exec(
        select(Assignment).where(
            Assignment.annotator_id == annotator_id,
            Assignment.purpose == Purpose.ADJUDICATION,
            col(Assignment.status).in_(OPEN_STATUSES),
        )
    ).all()
    for item in open_items:
        lock_study(session, item.study_id)
        item.status = AssignmentStatus.RELEASED
        session.add(item)
    session.flush()
    return [stored_id(item) for item in open_items]
