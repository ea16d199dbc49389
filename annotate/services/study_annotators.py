"""A study's annotators as its analysis names them: by pseudonym, with the figures its
exclusion rules read. Kept apart from `annotate.services.reporting` (the statistics: scipy,
statsmodels, 3 s to import) so that pages that only list people, such as Participants' payments,
do not load them."""

from __future__ import annotations

from collections.abc import Mapping

from sqlmodel import Session

from analysis.schema.exclusion_types import AnnotatorFacts
from annotate.domain.exports.pseudonyms import pseudonyms
from annotate.domain.rating.quality import annotator_quality
from annotate.domain.study.accounts import is_simulated


def study_pseudonyms(session: Session, study_id: int) -> dict[str, str]:
    """Account name -> the annotator's pseudonym in the study (simulated accounts keep their
    names: they are not people, and the card labels them)."""
    return pseudonyms(session, study_id, keep=is_simulated)


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
