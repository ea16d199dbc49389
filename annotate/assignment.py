"""Assignment: giving pairs to annotators, each in a shuffled, blinded queue."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import func
from sqlmodel import Session, select

from annotate.blinding import chosen_side, shuffled
from annotate.models import Annotator, Assignment, Pair, Study


def assign_pairs(
    session: Session, study: Study, annotator: Annotator, pairs: Sequence[Pair]
) -> list[Assignment]:
    """Append the pairs the annotator does not have yet to the end of their queue.

    The new pairs are shuffled for this annotator and each gets its drawn side.
    """
    have = set(
        session.exec(
            select(Assignment.pair_id).where(
                Assignment.annotator_id == annotator.id, Assignment.study_id == study.id
            )
        ).all()
    )
    fresh = {p.record_id: p for p in pairs if p.id not in have}
    last = session.exec(
        select(func.max(Assignment.position)).where(
            Assignment.annotator_id == annotator.id, Assignment.study_id == study.id
        )
    ).one()
    start = -1 if last is None else last
    created = []
    for offset, record_id in enumerate(shuffled(study.seed, annotator.name, list(fresh)), 1):
        assignment = Assignment(
            study_id=study.id,
            annotator_id=annotator.id,
            pair_id=fresh[record_id].id,
            position=start + offset,
            chosen_side=chosen_side(study.seed, annotator.name, record_id),
        )
        session.add(assignment)
        created.append(assignment)
    session.flush()
    return created


def study_pairs(session: Session, study: Study, domain: str | None = None) -> list[Pair]:
    query = select(Pair).where(Pair.study_id == study.id)
    if domain:
        query = query.where(Pair.domain == domain)
    return list(session.exec(query.order_by(Pair.id)).all())
