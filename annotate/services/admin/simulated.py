"""Simulated annotators who rate a study's real pairs, for demos, tests and benchmarks.

Scores come from `analysis.simulate` (a latent-quality model with a chosen chosen-minus-rejected
effect per dimension); assignments, sides and storage are the real ones, so the export, the
statistics and the app see simulated work exactly as they would see human work. They answer
every question the study asks: the scores, the aspect checklist's marks, the direct preference
(from their own rubric-alignment scores) and its rationale.

Simulated data never mixes with real data silently (issue 24 item 6): the accounts are marked
`Annotator.simulated`; a study that already holds real ratings is refused unless forced; each
run is audited; `remove_simulated` takes every made-up rating of a study out again; and the
verdict and the card leave simulated ratings out unless the study counts them
(`Study.count_simulated`, which `count=True` sets: the demo does), labelled when they count.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

import numpy as np
import pandas as pd
from sqlalchemy import delete, func, insert
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from analysis.simulate import simulate_ratings
from annotate.db.tables import (
    Annotator,
    AspectMark,
    AspectMarkRevision,
    Assignment,
    FlagResolution,
    Pair,
    Participation,
    Rating,
    RatingRevision,
    Span,
    Study,
    Training,
    stored_id,
    utcnow,
)
from annotate.domain.assignment import assign_pairs, study_pairs
from annotate.domain.study import accounts
from annotate.domain.study.accounts import SIMULATED_PREFIX
from annotate.domain.study.permissions import SYSTEM, Actor
from annotate.domain.study.questionnaire import questionnaire_of
from annotate.errors import Conflict
from annotate.services.audited import admin_change
from annotate.vocabulary import AssignmentStatus, Side

VALIDATING_EFFECT = 1.5
"""The chosen - rejected effect (scale points) on each `diverge` question of a benchmark that
should validate: every other question ties."""


def simulated_names(n_annotators: int) -> list[str]:
    return [f"{SIMULATED_PREFIX}{i + 1:02d}" for i in range(n_annotators)]


class RealRatingsPresent(Conflict):
    """Simulated ratings asked for in a study that holds real ratings, without force."""


def store_simulated_ratings(
    engine: Engine,
    study_name: str,
    *,
    n_annotators: int = 5,
    effects: Mapping[str, float] | None = None,
    seed: int = 0,
    force: bool = False,
    count: bool = False,
    actor: Actor = SYSTEM,
) -> int:
    """Give every pair of the study to `n_annotators` simulated annotators and rate them all.

    Pairs a simulated annotator has already rated are left alone. Returns the scores stored.
    A study with real ratings is refused unless `force`; `count` makes the study count
    simulated ratings in its verdict and card. Audited (who, how many, whether forced).
    """
    with admin_change(engine, actor, "synth.ratings", study_name) as change:
        session, study = change.session, change.study
        assert study is not None  # admin_change found the named study
        real = real_scores(session, stored_id(study))
        if real and not force:
            raise RealRatingsPresent(
                f"study {study.name!r} holds {real:,} real scores: simulated ratings would mix "
                "with them; pass the force flag to add them anyway (audited; they stay out of "
                "the verdict and the card unless the study counts simulated ratings)"
            )
        change.before = {"count_simulated": study.count_simulated}
        if count:
            study.count_simulated = True
            session.add(study)
        stored = _simulate(session, study, n_annotators, effects, seed)
        change.after = {
            "simulated_annotators": n_annotators,
            "scores": stored,
            "count_simulated": study.count_simulated,
            "real_scores_in_study": real,
            "forced": bool(real),
        }
        change.changed = bool(stored) or change.before != {"count_simulated": study.count_simulated}
        return stored


def _simulate(
    session: Session,
    study: Study,
    n_annotators: int,
    effects: Mapping[str, float] | None,
    seed: int,
) -> int:
    """Rate every pair of the study by the simulated annotators (see `store_simulated_ratings`):
    they answer the study's questions (a choice question by a choice)."""
    study_name = study.name
    asked = questionnaire_of(study)
    effects = dict.fromkeys(asked.diverge_keys, VALIDATING_EFFECT) if effects is None else effects
    pairs = study_pairs(session, study)
    names = simulated_names(n_annotators)
    for name in names:
        assign_pairs(session, study, _simulated_account(session, name), pairs)
    frame = simulate_ratings(
        len(pairs),
        n_annotators,
        effects,
        seed=seed,
        study=study_name,
        scale_min=asked.scale[0],
        scale_max=asked.scale[1],
        questionnaire=asked,
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
    preferences = _preferences(frame, name_of, record_of) if study.ask_preference else {}
    if rows:
        session.execute(insert(Rating), rows)
        for (name, record), assignment_id in open_assignments.items():
            assignment = session.get(Assignment, assignment_id)
            assert assignment is not None
            assignment.status, assignment.completed_at = AssignmentStatus.DONE, now
            if study.ask_preference:
                answer = _by_side(preferences.get((name, record), 0), assignment.chosen_side)
                assignment.side_preference = answer
                assignment.rationale = _rationale(study.rationale, answer, assignment_id)
            session.add(assignment)
    return len(rows)


def _simulated_account(session: Session, name: str) -> Annotator:
    """The simulated account `name`, created and marked simulated if new; a person's account
    of that name is refused (made-up ratings never go under a person's name)."""
    account = accounts.account_named(session, name)
    if account is None:
        account, _ = accounts.create_account(session, name)
        account.simulated = True
        session.add(account)
    elif not account.simulated:
        raise Conflict(
            f"the account {name!r} is a person's (not simulated): simulated ratings are never "
            "stored under it; rename that account first"
        )
    return account


def _preferences(
    frame: pd.DataFrame, name_of: dict[str, str], record_of: dict[str, str]
) -> dict[tuple[str, str], int]:
    """Each simulated annotator's direct preference for the chosen response (-2..+2), from
    their own rubric-alignment scores: chosen minus rejected, rounded, at most 2 either way."""
    rubric = frame[frame["dimension"] == "rubric_alignment"]
    scores = rubric.pivot_table(
        index=["annotator", "pair_id"], columns="response", values="score", aggfunc="first"
    )
    diff = (scores["chosen"] - scores["rejected"]).clip(-2, 2).round().astype(int)
    return {
        (name_of[annotator], record_of[pair]): int(value)
        for (annotator, pair), value in diff.items()
    }


def _by_side(chosen_preference: int, chosen_side: str) -> int:
    """A preference for the chosen response as answered by side (-2 A much better .. +2 B)."""
    return chosen_preference if chosen_side == Side.B else -chosen_preference


def _rationale(mode: str, by_side: int, assignment_id: int) -> str | None:
    """A made-up rationale: always when required, on every other pair when optional."""
    if mode == "off" or (mode == "optional" and assignment_id % 2):
        return None
    side = "A" if by_side < 0 else "B"
    if by_side == 0:
        return "Simulated rationale: both responses fit this user about equally."
    return f"Simulated rationale: response {side} fits this user's profile better."


def real_scores(session: Session, study_id: int) -> int:
    """How many scores of the study were given by people (not simulated accounts)."""
    return session.exec(
        select(func.count())
        .select_from(Rating)
        .join(Assignment, col(Rating.assignment_id) == col(Assignment.id))
        .join(Annotator, col(Assignment.annotator_id) == col(Annotator.id))
        .where(col(Assignment.study_id) == study_id, col(Annotator.simulated).is_(False))
    ).one()


def remove_simulated(engine: Engine, study_name: str, *, actor: Actor = SYSTEM) -> dict[str, int]:
    """Take every simulated rating out of a study, in one audited transaction: the simulated
    annotators' scores and revisions, aspect marks, preferences and assignments there, and the
    simulated accounts left with no work in any study. Real ratings are not touched."""
    with admin_change(engine, actor, "synth.remove", study_name) as change:
        session, study = change.session, change.study
        assert study is not None
        assignments = list(
            session.exec(
                select(Assignment.id)
                .join(Annotator, col(Assignment.annotator_id) == col(Annotator.id))
                .where(col(Assignment.study_id) == study.id, col(Annotator.simulated).is_(True))
            ).all()
        )
        removed = _remove_assignments(session, [a for a in assignments if a is not None])
        removed["accounts"] = _remove_idle_simulated_accounts(session)
        change.after = {"removed": removed}
        change.changed = any(removed.values())
        return removed


def _remove_assignments(session: Session, ids: list[int]) -> dict[str, int]:
    ratings = select(Rating.id).where(col(Rating.assignment_id).in_(ids))
    marks = select(AspectMark.id).where(col(AspectMark.assignment_id).in_(ids))
    counts = {
        "scores": session.exec(
            select(func.count()).select_from(Rating).where(col(Rating.assignment_id).in_(ids))
        ).one(),
        "assignments": len(ids),
    }
    session.execute(delete(RatingRevision).where(col(RatingRevision.rating_id).in_(ratings)))
    session.execute(delete(AspectMarkRevision).where(col(AspectMarkRevision.mark_id).in_(marks)))
    session.execute(delete(Rating).where(col(Rating.assignment_id).in_(ids)))
    session.execute(delete(AspectMark).where(col(AspectMark.assignment_id).in_(ids)))
    session.execute(delete(Span).where(col(Span.assignment_id).in_(ids)))
    session.execute(delete(FlagResolution).where(col(FlagResolution.assignment_id).in_(ids)))
    session.execute(delete(Assignment).where(col(Assignment.id).in_(ids)))
    return counts


def _remove_idle_simulated_accounts(session: Session) -> int:
    working = select(Assignment.annotator_id)
    idle = list(
        session.exec(
            select(Annotator.id).where(
                col(Annotator.simulated).is_(True), col(Annotator.id).not_in(working)
            )
        ).all()
    )
    if idle:
        session.execute(delete(Participation).where(col(Participation.annotator_id).in_(idle)))
        session.execute(delete(Training).where(col(Training.annotator_id).in_(idle)))
        session.execute(delete(Annotator).where(col(Annotator.id).in_(idle)))
    return len(idle)


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
