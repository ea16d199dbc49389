"""The preference export of a study (admin; `prb-annotate export --kind preference` and the
card): its pairs in TRL's preference format with the human majority's verdict on each
(`annotate.domain.exports.preference`).

The verdicts are the analysis' own (`analysis.core.human_verdicts`), on the ratings the primary
analysis uses (a pre-registered exclusion rule's annotators left out, simulated annotators
only when the study counts them), on the study's target question. Pairs an admin excluded from
the analysis and gold pairs are left out.
"""

from __future__ import annotations

import pandas as pd
from sqlalchemy.engine import Engine
from sqlmodel import Session

from analysis.core.human_verdicts import annotator_votes, human_verdicts
from analysis.study_report import StudyData
from annotate.db import read_session
from annotate.db.tables import Study
from annotate.domain.assignment.listings import study_pairs
from annotate.domain.exports.preference import PreferencePair, agreeing, pair_of, preference_frame
from annotate.domain.study import studies
from annotate.domain.study.permissions import Actor, require_admin
from annotate.domain.study.questionnaire import questionnaire_of
from annotate.errors import Invalid
from annotate.services.results.reporting import study_ratings


def export_preference(
    engine: Engine, actor: Actor, study: str, *, agreeing_only: bool = False
) -> pd.DataFrame:
    """The preference export of `study`; only the pairs whose human majority agrees with the
    label when `agreeing_only`."""
    with read_session(engine) as session:
        require_admin(session, actor)
        target = studies.get_study(session, study)
        question = questionnaire_of(target).target
        pairs = preference_pairs(session, target)
    if question is None:
        raise Invalid(
            f"study {study!r} has no question with the role 'diverge': no target question "
            "to judge its labels by"
        )
    frame = preference_table(study_ratings(engine, study), pairs)
    return agreeing(frame) if agreeing_only else frame


def preference_pairs(session: Session, study: Study) -> list[PreferencePair]:
    """The study's pairs as the preference export reads them, gold pairs left out."""
    return [
        pair_of(
            {
                "pair_id": p.record_id,
                "domain": p.domain,
                "question": p.question,
                "chosen": p.chosen,
                "rejected": p.rejected,
                "conversation": p.conversation,
            }
        )
        for p in study_pairs(session, study)
        if p.gold_preference is None
    ]


def preference_table(data: StudyData, pairs: list[PreferencePair]) -> pd.DataFrame:
    """The preference export of `pairs` with the verdicts of `data`'s primary ratings on the
    target question of the study's questionnaire, the pairs an admin excluded left out."""
    left_out = {str(e["pair_id"]) for e in data.snapshot.excluded}
    ratings, asked = data.snapshot.primary(), data.settings.questionnaire
    votes = annotator_votes(ratings, asked) if not ratings.empty else None
    have_votes = votes is not None and not votes.empty
    verdicts = human_verdicts(votes, asked) if have_votes else _no_verdicts()
    return preference_frame([p for p in pairs if p.pair_id not in left_out], verdicts)


def _no_verdicts() -> pd.DataFrame:
    return pd.DataFrame(
        {"n_annotators": [], "n_chosen": [], "verdict": []}, index=pd.Index([], name="pair_id")
    )
