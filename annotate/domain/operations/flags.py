"""Flagged and skipped pairs handled: the queue an admin works through (each item with the
pair's text, the annotator's reason and scores), resolving an item with a note or marking it
for adjudication, and pairs excluded from the analysis with a reason (kept, reversible)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, or_, select

from annotate.db.queries import joined_assignments
from annotate.db.tables import (
    Annotator,
    Assignment,
    FlagResolution,
    Pair,
    PairExclusion,
    Rating,
    Span,
    Study,
    stored_id,
    utcnow,
)
from annotate.domain.study.questionnaire import questionnaire_of
from annotate.errors import Conflict, Invalid, NotFound
from annotate.vocabulary import AssignmentStatus, FlagAction

MAX_NOTE_CHARS = 2000


class FlagError(Invalid):
    """A flag action that cannot be done as asked (no note, unknown action)."""


@dataclass(frozen=True)
class Resolution:
    action: str
    note: str
    by: str
    at: datetime


@dataclass(frozen=True)
class FlagItem:
    """One flagged or skipped assignment: who, why, their scores, and what was done about it."""

    assignment_id: int
    record_id: str
    domain: str
    annotator: str
    kind: str  # "flag" or "skip"
    reason: str
    comment: str
    status: str
    scores: dict[str, dict[str, int]]  # response -> dimension -> score
    resolution: Resolution | None
    excluded: bool
    spans: list[FlagSpan] = field(default_factory=list)  # the annotator's spans, text order


@dataclass(frozen=True)
class FlagSpan:
    """A span the annotator marked on the item (issue 36.3), by response (the admin knows the
    labels): the span label's words and its code points in the stored response."""

    response: str
    label: str
    start: int
    end: int


@dataclass(frozen=True)
class PairText:
    """A pair as the admin reads it in the queue (not blinded: the admin knows the labels)."""

    record_id: str
    domain: str
    question: str
    narrative: str
    profile: list[dict[str, Any]]
    chosen: str
    rejected: str
    conversation: list[dict[str, str]] = field(default_factory=list)  # turns before the responses


@dataclass(frozen=True)
class Exclusion:
    record_id: str
    reason: str
    by: str
    at: datetime


def flag_queue(session: Session, study_id: int, open_only: bool = False) -> list[FlagItem]:
    """Every flagged or skipped assignment of the study, by pair then annotator; with
    `open_only`, those nobody has resolved or sent to adjudication yet."""
    columns = (
        Assignment.id,
        Pair.record_id,
        Pair.domain,
        Annotator.name,
        Assignment.flagged,
        Assignment.flag_reason,
        Assignment.skip_reason,
        Assignment.comment,
        Assignment.status,
    )
    rows = session.exec(
        joined_assignments(*columns)
        .where(
            col(Assignment.study_id) == study_id,
            or_(
                col(Assignment.flagged).is_(True),
                col(Assignment.status) == AssignmentStatus.SKIPPED,
            ),
        )
        .order_by(col(Pair.record_id), col(Annotator.name))
    ).all()
    ids = [row[0] for row in rows]
    resolutions = _resolutions(session, ids)
    scores = _scores(session, ids)
    spans = _spans(session, study_id, ids)
    excluded = {e.record_id for e in exclusions(session, study_id)}
    items = [
        FlagItem(
            assignment_id=aid,
            record_id=record_id,
            domain=domain,
            annotator=name,
            kind="flag" if flagged else "skip",
            reason=(flag_reason if flagged else skip_reason) or "",
            comment=comment or "",
            status=status,
            scores=scores.get(aid, {}),
            resolution=resolutions.get(aid),
            excluded=record_id in excluded,
            spans=spans.get(aid, []),
        )
        for aid, record_id, domain, name, flagged, flag_reason, skip_reason, comment, status in rows
    ]
    return [i for i in items if i.resolution is None] if open_only else items


def _resolutions(session: Session, ids: list[int]) -> dict[int, Resolution]:
    rows = session.exec(
        select(FlagResolution).where(col(FlagResolution.assignment_id).in_(ids))
    ).all()
    return {r.assignment_id: Resolution(r.action, r.note, r.by, r.at) for r in rows}


def _scores(session: Session, ids: list[int]) -> dict[int, dict[str, dict[str, int]]]:
    out: dict[int, dict[str, dict[str, int]]] = {}
    rows = session.exec(
        select(Rating.assignment_id, Rating.response, Rating.dimension, Rating.score).where(
            col(Rating.assignment_id).in_(ids)
        )
    ).all()
    for aid, response, dimension, score in rows:
        out.setdefault(aid, {}).setdefault(response, {})[dimension] = score
    return out


def _spans(session: Session, study_id: int, ids: list[int]) -> dict[int, list[FlagSpan]]:
    """The current spans of the items, with their labels' words."""
    study = session.get(Study, study_id)
    assert study is not None
    words = {s.key: s.label for s in questionnaire_of(study).span_labels}
    query = (
        select(Span)
        .where(col(Span.assignment_id).in_(ids), col(Span.removed_at).is_(None))
        .order_by(col(Span.response), col(Span.start), col(Span.end))
    )
    out: dict[int, list[FlagSpan]] = {}
    for row in session.exec(query):
        mark = FlagSpan(row.response, words.get(row.label, row.label), row.start, row.end)
        out.setdefault(row.assignment_id, []).append(mark)
    return out


def pair_text(session: Session, study: Study, record_id: str) -> PairText:
    pair = _pair(session, study, record_id)
    return PairText(
        pair.record_id,
        pair.domain,
        pair.question,
        pair.narrative,
        list(pair.profile),
        pair.chosen,
        pair.rejected,
        list(pair.conversation),
    )


UNHANDLED = "open"
"""`replaces` of an item the caller saw unhandled."""


def resolve(
    session: Session,
    study: Study,
    assignment_id: int,
    action: str,
    note: str,
    by: str,
    *,
    replaces: str | None = UNHANDLED,
) -> tuple[Resolution | None, Resolution]:
    """Resolve a flagged or skipped assignment with a note, or mark it for adjudication.
    Returns (earlier, new).

    `replaces` is what the caller saw the item as: `UNHANDLED`, or the action it replaces. If
    someone handled the item differently meanwhile, the action is refused (Conflict) instead of
    the last write winning; None replaces whatever is there (the command line's `--replace`).
    The same action with the same note again changes nothing and is not refused."""
    if action not in set(FlagAction):
        raise FlagError(f"unknown action {action!r}; expected one of {', '.join(FlagAction)}")
    note = note.strip()
    if action == FlagAction.RESOLVED and not note:
        raise FlagError("resolving a flag needs a note saying what was decided")
    if len(note) > MAX_NOTE_CHARS:
        raise FlagError(f"the note is {len(note)} characters; at most {MAX_NOTE_CHARS}")
    item = session.get(Assignment, assignment_id)
    if item is None or item.study_id != study.id:
        raise NotFound(f"no assignment {assignment_id} in study {study.name!r}")
    if not item.flagged and item.status != AssignmentStatus.SKIPPED:
        raise FlagError(f"assignment {assignment_id} is neither flagged nor skipped")
    row = session.exec(
        select(FlagResolution).where(FlagResolution.assignment_id == assignment_id)
    ).first()
    earlier = None if row is None else Resolution(row.action, row.note, row.by, row.at)
    _refuse_conflict(assignment_id, earlier, replaces, action, note)
    row = row or FlagResolution(assignment_id=assignment_id, action=action, note=note, by=by)
    row.action, row.note, row.by, row.at = action, note, by, utcnow()
    session.add(row)
    session.flush()
    return earlier, Resolution(row.action, row.note, row.by, row.at)


def _refuse_conflict(
    assignment_id: int, earlier: Resolution | None, replaces: str | None, action: str, note: str
) -> None:
    if replaces is None or (earlier is None and replaces == UNHANDLED):
        return
    if earlier is not None and (earlier.action, earlier.note) == (action, note):
        return
    if earlier is not None and earlier.action == replaces:
        return
    now = (
        "nobody has handled it"
        if earlier is None
        else f"{earlier.by} handled it as {earlier.action} at {earlier.at:%Y-%m-%d %H:%M}"
    )
    raise Conflict(
        f"item {assignment_id} changed since it was shown: {now}. Nothing was saved; "
        f"look at it again before changing it"
    )


def _pair(session: Session, study: Study, record_id: str) -> Pair:
    pair = session.exec(
        select(Pair).where(Pair.study_id == stored_id(study), Pair.record_id == record_id)
    ).first()
    if pair is None:
        raise NotFound(f"no pair {record_id!r} in study {study.name!r}")
    return pair


def _active(session: Session, pair: Pair) -> PairExclusion | None:
    return session.exec(
        select(PairExclusion).where(
            PairExclusion.pair_id == stored_id(pair), col(PairExclusion.reversed_at).is_(None)
        )
    ).first()


def exclude_pair(session: Session, study: Study, record_id: str, reason: str, by: str) -> None:
    """Leave a pair out of the analysis, with the reason (Conflict if it is already out)."""
    reason = reason.strip()
    if not reason:
        raise FlagError("excluding a pair needs a reason")
    if len(reason) > MAX_NOTE_CHARS:
        raise FlagError(f"the reason is {len(reason)} characters; at most {MAX_NOTE_CHARS}")
    pair = _pair(session, study, record_id)
    if (current := _active(session, pair)) is not None:
        raise Conflict(f"pair {record_id!r} is already excluded: {current.reason}")
    session.add(PairExclusion(pair_id=stored_id(pair), reason=reason, by=by))
    session.flush()


def restore_pair(session: Session, study: Study, record_id: str, by: str) -> str:
    """Take a pair back into the analysis; the exclusion is kept, marked reversed. Returns the
    reason it had been excluded for."""
    pair = _pair(session, study, record_id)
    current = _active(session, pair)
    if current is None:
        raise Conflict(f"pair {record_id!r} is not excluded")
    current.reversed_at, current.reversed_by = utcnow(), by
    session.add(current)
    session.flush()
    return current.reason


def exclusions(session: Session, study_id: int) -> list[Exclusion]:
    """The study's pairs excluded from the analysis now (reversed exclusions left out)."""
    rows = session.exec(
        select(Pair.record_id, PairExclusion.reason, PairExclusion.by, PairExclusion.at)
        .join(Pair, col(Pair.id) == col(PairExclusion.pair_id))
        .where(Pair.study_id == study_id, col(PairExclusion.reversed_at).is_(None))
        .order_by(col(Pair.record_id))
    ).all()
    return [Exclusion(*row) for row in rows]
