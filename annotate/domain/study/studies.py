"""Studies: the unit that owns pairs, assignments and settings.

`create_study` and `update_study` are the one way settings change (CLI, admin page, tests); both
check the whole study afterwards and raise `StudyError` listing every problem. Two settings are
frozen once work exists, because changing them would make recorded work inconsistent: the seed
(blinding and queue order are drawn from it) once any pair is assigned, and the scale once any
score is given.
"""

from __future__ import annotations

import secrets
from typing import Any

from sqlmodel import Session, col, func, select

from annotate.db.tables import Assignment, Pair, Rating, Study
from annotate.domain.study import plan
from annotate.domain.study.crowd_settings import completion_url_problems, survey_problems
from annotate.domain.study.training_rules import training_problems
from annotate.errors import Invalid, NotFound
from annotate.vocabulary import DIMENSIONS, MARGIN_UNITS, POOL_ORDERS, RATIONALE_MODES

DEFAULT_STUDY = "default"
MAX_NAME_CHARS = 200
MAX_STOPPING_RULE_CHARS = 2000

EDITABLE = (
    "seed",
    "scale_min",
    "scale_max",
    "anchors",
    "dimension_labels",
    "dimension_definitions",
    "guidelines",
    "equivalence_margin",
    "margin_unit",
    "smallest_effect",
    "alpha",
    "planned_pairs",
    "stopping_rule",
    "count_simulated",
    "completion_code",
    "overlap",
    "reservation_minutes",
    "gold_rate",
    "pool_open",
    "pool_quota",
    "pool_order",
    "enrolment_open",
    "consent_text",
    "survey_questions",
    "screenout_code",
    "completion_url",
    "ask_preference",
    "rationale",
    "aspect_checklist",
    "practice_pairs",
    "comprehension_questions",
    "comprehension_attempts",
    "adjudication_threshold",
    "retention_days",
)
"""Settings an admin may change; the dict-valued ones are merged key by key."""

_MERGED = ("anchors", "dimension_labels", "dimension_definitions")


class StudyNotFound(NotFound):
    pass


class StudyError(Invalid):
    """Settings that cannot be saved; the message lists every problem."""


def get_study(session: Session, name: str) -> Study:
    study = session.exec(select(Study).where(Study.name == name)).first()
    if study is None:
        raise StudyNotFound(f"no study named {name!r}")
    return study


def pair_count(session: Session, study: Study) -> int:
    return session.exec(
        select(func.count()).select_from(Pair).where(col(Pair.study_id) == study.id)
    ).one()


def list_studies(session: Session) -> list[Study]:
    return list(session.exec(select(Study).order_by(col(Study.id))).all())


def _check_name(name: str) -> None:
    if len(name) > MAX_NAME_CHARS:
        raise StudyError(
            f"a study's name has at most {MAX_NAME_CHARS} characters, not {len(name):,}"
        )


def get_or_create_study(session: Session, name: str, *, seed: int | None = None) -> Study:
    """Return the study called `name`, creating it (with a fresh random seed) if needed."""
    study = session.exec(select(Study).where(Study.name == name)).first()
    if study is None:
        _check_name(name)
        study = Study(name=name, seed=secrets.randbelow(2**31) if seed is None else seed)
        session.add(study)
        session.flush()
    return study


def create_study(session: Session, name: str, **settings: Any) -> Study:
    """A new study with default settings overridden by `settings` (see EDITABLE)."""
    name = name.strip()
    if not name:
        raise StudyError("a study needs a non-empty name")
    _check_name(name)
    if session.exec(select(Study.id).where(Study.name == name)).first() is not None:
        raise StudyError(f"a study named {name!r} already exists")
    seed = settings.pop("seed", None)
    study = Study(name=name, seed=secrets.randbelow(2**31) if seed is None else int(seed))
    _apply(study, settings)
    _check(study)
    _ensure_enrolment_key(study)
    session.add(study)
    session.flush()
    return study


def update_study(session: Session, name: str, *, force: bool = False, **changes: Any) -> Study:
    """Change some settings of a study; dict settings are merged into the current ones. A
    change of the analysis plan (margin, unit, smallest effect, alpha, planned size, stopping
    rule) once the study has ratings needs `force` (`annotate.domain.study.plan`)."""
    study = get_study(session, name)
    frozen = _frozen_changes(session, study, changes)
    if frozen:
        raise StudyError("; ".join(frozen))
    before, set_at = plan.plan_values(study), study.margin_set_at
    _apply(study, changes)
    _check(study)
    plan.lock_and_record(session, study, before, set_at, force)
    _ensure_enrolment_key(study)
    session.add(study)
    session.flush()
    return study


def settings_of(study: Study) -> dict[str, Any]:
    """The study's editable settings (what the audit log records before and after a change)."""
    return {key: getattr(study, key) for key in EDITABLE}


def preview_changes(study: Study, changes: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    """What `update_study` would change: setting -> (now, after), nothing written. The values
    are checked like an update (StudyError for an impossible setting)."""
    copy = Study.model_validate(study.model_dump())
    _apply(copy, dict(changes))
    _check(copy)
    now, after = settings_of(study), settings_of(copy)
    return {key: (now[key], after[key]) for key in EDITABLE if now[key] != after[key]}


def _apply(study: Study, changes: dict[str, Any]) -> None:
    unknown = sorted(set(changes) - set(EDITABLE))
    if unknown:
        raise StudyError(f"unknown setting(s): {', '.join(unknown)}")
    for key, value in changes.items():
        if key in _MERGED:
            merged = dict(getattr(study, key))
            merged.update({str(k): str(v) for k, v in dict(value).items()})
            value = merged
        setattr(study, key, value)
    for optional in ("completion_code", "screenout_code", "completion_url"):
        value = getattr(study, optional)
        if value is not None:
            setattr(study, optional, str(value).strip() or None)
    study.anchors = {
        k: v for k, v in study.anchors.items() if study.scale_min <= _as_int(k) <= study.scale_max
    }


def _ensure_enrolment_key(study: Study) -> None:
    """An open crowd link needs its secret (kept when enrolment closes and opens again)."""
    if study.enrolment_open and not study.enrolment_key:
        study.enrolment_key = new_enrolment_key()


def new_enrolment_key() -> str:
    return secrets.token_urlsafe(16)  # 128 bits


def _as_int(value: object) -> int:
    try:
        return int(str(value))
    except ValueError:
        return -(2**31)


def _frozen_changes(session: Session, study: Study, changes: dict[str, Any]) -> list[str]:
    problems = []
    if "seed" in changes and int(changes["seed"]) != study.seed:
        assigned = session.exec(select(Assignment.id).where(Assignment.study_id == study.id))
        if assigned.first() is not None:
            problems.append("the seed cannot change once pairs are assigned")
    scale = {k: changes[k] for k in ("scale_min", "scale_max") if k in changes}
    if any(int(v) != getattr(study, k) for k, v in scale.items()):
        rated = session.exec(
            select(Rating.id)
            .join(Assignment, col(Rating.assignment_id) == col(Assignment.id))
            .where(Assignment.study_id == study.id)
        )
        if rated.first() is not None:
            problems.append("the scale cannot change once scores are given")
    return problems


def study_problems(study: Study) -> list[str]:
    """Everything wrong with a study's settings (empty when it can be saved)."""
    problems = []
    if study.scale_min >= study.scale_max:
        problems.append(f"scale: minimum {study.scale_min} must be below maximum {study.scale_max}")
    if study.scale_max - study.scale_min > 20:
        problems.append("scale: at most 21 points")
    for kind in ("dimension_labels", "dimension_definitions"):
        missing = [d for d in DIMENSIONS if not str(getattr(study, kind).get(d, "")).strip()]
        if missing:
            problems.append(f"{kind.replace('_', ' ')}: missing for {', '.join(missing)}")
    if not study.equivalence_margin > 0:
        problems.append("equivalence margin must be above 0")
    if study.margin_unit not in MARGIN_UNITS:
        problems.append(f"margin unit must be one of {', '.join(MARGIN_UNITS)}")
    problems += _plan_problems(study)
    if study.overlap < 1:
        problems.append("overlap (annotators per pair) must be at least 1")
    if study.reservation_minutes < 1:
        problems.append("reservation must last at least 1 minute")
    if not 0 <= study.gold_rate < 1:
        problems.append("gold rate must be at least 0 and below 1")
    if study.pool_quota is not None and study.pool_quota < 1:
        problems.append("pool quota must be at least 1 (or empty for no limit)")
    if study.pool_order not in POOL_ORDERS:
        problems.append(f"pool order must be one of {', '.join(POOL_ORDERS)}")
    if study.enrolment_open and not study.pool_open:
        problems.append("crowd enrolment needs the open pool (enrolled people pull their pairs)")
    if study.rationale not in RATIONALE_MODES:
        problems.append(f"rationale must be one of {', '.join(RATIONALE_MODES)}")
    threshold = study.adjudication_threshold
    if threshold is not None and not threshold >= 0:
        problems.append("adjudication threshold must be 0 or more (or empty: flags only)")
    if study.retention_days is not None and not 1 <= study.retention_days <= 36_500:
        problems.append("retention must be 1 to 36,500 days (or empty: kept until erased)")
    problems += survey_problems(study.survey_questions)
    problems += completion_url_problems(study.completion_url)
    problems += training_problems(
        study.practice_pairs,
        study.comprehension_questions,
        study.comprehension_attempts,
        (study.scale_min, study.scale_max),
    )
    return problems


def _plan_problems(study: Study) -> list[str]:
    problems = []
    sesoi = study.smallest_effect
    if sesoi is not None and not (0 <= sesoi < float("inf")):
        problems.append("smallest effect of interest must be 0 or more (or empty: the margin)")
    if not 0 < study.alpha < 0.5:
        problems.append("alpha must be above 0 and below 0.5")
    if study.planned_pairs is not None and study.planned_pairs < 1:
        problems.append("planned pairs must be at least 1 (or empty: no planned size)")
    if len(study.stopping_rule) > MAX_STOPPING_RULE_CHARS:
        problems.append(f"stopping rule: at most {MAX_STOPPING_RULE_CHARS} characters")
    return problems


def _check(study: Study) -> None:
    problems = study_problems(study)
    if problems:
        raise StudyError("; ".join(problems))
