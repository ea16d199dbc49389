"""A study's annotators as its analysis names them: by pseudonym, with the figures its
exclusion rules read. Kept apart from `annotate.services.results.reporting` (the statistics: scipy,
statsmodels, 3 s to import) so that pages that only list people, such as Participants' payments,
do not load them."""

from __future__ import annotations

from collections.abc import Mapping

from sqlmodel import Session, col, select

from analysis.schema.exclusion_types import AnnotatorFacts
from annotate.db.tables import Annotator
from annotate.domain.exports.pseudonyms import pseudonyms
from annotate.domain.rating.quality import annotator_quality


def study_pseudonyms(session: Session, study_id: int) -> dict[str, str]:
    """Account name -> the annotator's pseudonym in the study (simulated accounts keep their
    names: they are not people, and the card labels them)."""
    made_up = session.exec(select(Annotator.name).where(col(Annotator.simulated).is_(True)))
    return pseudonyms(session, study_id, keep=set(made_up).__contains__)


def annotator_facts(
    session: Session, study_id: int, names: Mapping[str, str] | None = None
) -> list[AnnotatorFacts]:
    """Per annotator, the figures the exclusion rules read (gold pairs included), named by
    `names` (account name -> pseudonym) when given."""
    return [
        {
            "annotator": (names or {}).get(q.annotator, q.annotator),
            "pairs_rated": q.rated,
            "gold_answered": q.gold_rated,
            "gold_failed": q.gold_rated - q.gold_correct,
            "gold_accuracy": q.gold_accuracy,
            "straightlining_share": q.straight_lining,
            "median_seconds": q.median_seconds,
        }
        for q in annotator_quality(session, study_id)
    ]
