"""Simulated annotators who rate a study's real pairs, for demos, tests and benchmarks.

Scores come from `analysis.simulate` (a latent-quality model with a chosen chosen-minus-rejected
effect per dimension); assignments, sides and storage are the real ones, so the export, the
statistics and the app see simulated work exactly as they would see human work.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

import numpy as np
from sqlalchemy import insert
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from analysis.simulate import simulate_ratings
from annotate.db import write_session
from annotate.db.tables import (
    Annotator,
    AspectMark,
    Assignment,
    Pair,
    Rating,
    stored_id,
    utcnow,
)
from annotate.domain.assignment import assign_pairs, study_pairs
from annotate.domain.study import accounts
from annotate.domain.study.accounts import SIMULATED_PREFIX
from annotate.domain.study.studies import get_study
from annotate.vocabulary import AssignmentStatus

VALIDATING_EFFECTS: dict[str, float] = {"rubric_alignment": 1.5}
"""Effects of a benchmark that should validate: ties on general quality, rubric diverges."""


def simulated_names(n_annotators: int) -> list[str]:
    return [f"{SIMULATED_PREFIX}{i + 1:02d}" for i in range(n_annotators)]


def store_simulated_ratings(
    engine: Engine,
    study_name: str,
    *,
    n_annotators: int = 5,
    effects: Mapping[str, float] | None = None,
    seed: int = 0,
) -> int:
    """Give every pair of the study to `n_annotators` simulated annotators and rate them all.

    Pairs a simulated annotator has already rated are left alone. Returns the scores stored.
    """
    effects = VALIDATING_EFFECTS if effects is None else effects
    with write_session(engine) as session:
        study = get_study(session, study_name)
        pairs = study_pairs(session, study)
        names = simulated_names(n_annotators)
        for name in names:
            account = accounts.account_named(session, name)
            if account is None:
                account, _ = accounts.create_account(session, name)
            assign_pairs(session, study, account, pairs)
        frame = simulate_ratings(
            len(pairs),
            n_annotators,
            effects,
            seed=seed,
            study=study_name,
            scale_min=study.scale_min,
            scale_max=study.scale_max,
        )
        open_assignments = _open_assignments(session, stored_id(study), names)
        record_of = {f"p{i:06d}": pair.record_id for i, pair in enumerate(pairs)}
        name_of = {f"annotator_{j:04d}": name for j, name in enumerate(names)}
        now = utcnow()
        rows = []
        for row in frame.itertuples(index=False):
            assignment_id = open_assignments.get((name_of[row.annotator], record_of[row.pair_id]))
            if assignment_id is not None:
                rows.append(
                    {
                        "assignment_id": assignment_id,
                        "response": row.response,
                        "dimension": row.dimension,
                        "score": int(row.score),
                        "seconds": float(row.seconds),
                        "created_at": now,
                        "updated_at": now,
                    }
                )
        if rows and study.aspect_checklist:
            _simulate_marks(session, pairs, open_assignments, seed, now)
        if rows:
            session.execute(insert(Rating), rows)
            for assignment_id in set(open_assignments.values()):
                assignment = session.get(Assignment, assignment_id)
                assignment.status, assignment.completed_at = AssignmentStatus.DONE, now  # type: ignore[union-attr]
        return len(rows)


COVERAGE_CHANCES = {"chosen": (0.1, 0.3, 0.6), "rejected": (0.6, 0.3, 0.1)}
"""Simulated aspect marks: how likely 0, 1, 2 are for each response (chosen covers more)."""


def _simulate_marks(
    session: Session,
    pairs: list[Pair],
    open_assignments: dict[tuple[str, str], int],
    seed: int,
    now: datetime,
) -> None:
    """Aspect-checklist marks for the simulated annotators' open pairs (study with the option)."""
    rng = np.random.default_rng(seed)
    n_aspects = {pair.record_id: len(pair.rubric_aspects) for pair in pairs}
    rows = [
        {"assignment_id": assignment_id, "response": response, "aspect_index": index,
         "coverage": int(rng.choice(3, p=chances)), "revision": 1, "created_at": now,
         "updated_at": now}
        for (_, record), assignment_id in sorted(open_assignments.items())
        for response, chances in COVERAGE_CHANCES.items()
        for index in range(n_aspects[record])
    ]  # fmt: skip
    if rows:
        session.execute(insert(AspectMark), rows)


def _open_assignments(
    session: Session, study_id: int, names: list[str]
) -> dict[tuple[str, str], int]:
    """(annotator name, record id) -> assignment id, for the simulated annotators' open pairs."""
    rows = session.exec(
        select(Annotator.name, Pair.record_id, Assignment.id)
        .join(Assignment, col(Assignment.annotator_id) == col(Annotator.id))
        .join(Pair, col(Assignment.pair_id) == col(Pair.id))
        .where(
            col(Assignment.study_id) == study_id,
            col(Annotator.name).in_(names),
            col(Assignment.status) == AssignmentStatus.PENDING,
        )
    ).all()
    return {(name, record): stored for name, record, stored in rows if stored is not None}
