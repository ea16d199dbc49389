"""Studies: the unit that owns pairs, assignments and settings.

`create_study` and `update_study` are the one way settings change (CLI, admin page, tests); both
check the whole study afterwards and raise `StudyError` listing every problem. Two settings are
frozen once work exists, because changing them would make recorded work inconsistent: the seed
(blinding and queue order are drawn from it) once any pair is assigned, and the questionnaire
(`annotate.questionnaire`: the questions, their scales and roles) once any rating is given.
"""

from __future__ import annotations

import math
import re
import secrets
from typing import Any

from sqlmodel import Session, col, func, select

from annotate.db.tables import Assignment, Pair, Study, stored_id
from annotate.domain.study import plan
from annotate.domain.study.crowd_settings import completion_url_problems, survey_problems
from annotate.domain.study.instructed_checks import check_problems
from annotate.domain.study.questionnaire import questionnaire_of
from annotate.domain.study.settings_model import EDITABLE, setting
from annotate.domain.study.training_rules import training_problems
from annotate.domain.untrusted.values import text_problem, value_problem
from annotate.errors import Conflict, Invalid, NotFound
from annotate.questionnaire import Questionnaire, parse_questionnaire
from annotate.vocabulary import (
    MARGIN_UNITS,
    PLATFORM_NAMES,
    POOL_ORDERS,
    RATIONALE_MODES,
    check_internal_pilot,
    check_sequential_plan,
    parse_bonus_rule,
)

DEFAULT_STUDY = "default"
DEFAULT_CROWD_QUOTA = 10
"""Pairs per person a study open to crowd enrolment gets when none is set: a participant
always has a way to finish (issue 22.4)."""
MAX_NAME_CHARS = 200
MAX_STOPPING_RULE_CHARS = 2000


LIMITS: dict[str, tuple[int | None, int]] = {
    name: limits for name in EDITABLE if (limits := setting(name).limits) is not None
}
"""Whole-number settings: (lowest or None where `study_problems` says it, highest) allowed (a
32-bit column holds them all), from the settings model."""
MAX_MARGIN = 1e6


class StudyNotFound(NotFound):
    pass


class StudyError(Invalid):
    """Settings that cannot be saved; the message lists every problem."""


class QuestionnaireLocked(Conflict):
    """The questionnaire of a study that has ratings cannot change."""


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
    problem = text_problem(name)
    if problem:
        raise StudyError(f"the study's name: {problem}")
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
    _lock_questionnaire(session, study, changes)
    before, set_at = plan.plan_values(study), study.margin_set_at
    kept = study.smallest_effect
    _apply(study, changes)
    _check(study, kept_sesoi=kept)
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
    _check(copy, kept_sesoi=study.smallest_effect)
    now, after = settings_of(study), settings_of(copy)
    return {key: (now[key], after[key]) for key in EDITABLE if now[key] != after[key]}


def _apply(study: Study, changes: dict[str, Any]) -> None:
    was_open = study.enrolment_open
    unknown = sorted(set(changes) - set(EDITABLE))
    if unknown:
        raise StudyError(f"unknown setting(s): {', '.join(unknown)}")
    for key, value in changes.items():
        setattr(study, key, stored_questionnaire(value) if key == "questionnaire" else value)
    for optional in ("completion_code", "screenout_code", "completion_url"):
        value = getattr(study, optional)
        if value is not None:
            setattr(study, optional, str(value).strip() or None)
    if study.enrolment_open and not was_open and study.pool_quota is None:
        # shown in the confirmation as a change; only when enrolment opens: a crowd study's
        # limit set to none later is kept (issue 34.5: 0 said "Nothing to change", kept 10)
        study.pool_quota = DEFAULT_CROWD_QUOTA


def stored_questionnaire(value: object) -> dict[str, Any]:
    """What a person gave as the questionnaire (a template's name, a mapping, or a
    Questionnaire) as the study keeps it; StudyError with the field and what was expected."""
    if isinstance(value, Questionnaire):
        return value.stored()
    try:
        return parse_questionnaire(value).stored()
    except ValueError as error:
        raise StudyError(str(error)) from None


def _ensure_enrolment_key(study: Study) -> None:
    """An open crowd link needs its secret (kept when enrolment closes and opens again)."""
    if study.enrolment_open and not study.enrolment_key:
        study.enrolment_key = new_enrolment_key()


def new_enrolment_key() -> str:
    return secrets.token_urlsafe(16)  # 128 bits


def _frozen_changes(session: Session, study: Study, changes: dict[str, Any]) -> list[str]:
    problems = []
    if "seed" in changes and int(changes["seed"]) != study.seed:
        assigned = session.exec(select(Assignment.id).where(Assignment.study_id == study.id))
        if assigned.first() is not None:
            problems.append("the seed cannot change once pairs are assigned")
    return problems


def _lock_questionnaire(session: Session, study: Study, changes: dict[str, Any]) -> None:
    """The questionnaire is locked once the study has a rating, as the analysis plan is, but
    no force opens it: the stored answers are answers to these questions on these scales."""
    if "questionnaire" not in changes:
        return
    if stored_questionnaire(changes["questionnaire"]) == questionnaire_of(study).stored():
        return
    first = plan.first_rating_at(session, stored_id(study))
    if first is not None:
        raise QuestionnaireLocked(
            f"study {study.name!r} has ratings since {first.isoformat(timespec='seconds')}: its "
            "questionnaire cannot change (the ratings answer these questions on these scales); "
            "make a new study for other questions"
        )


def study_problems(study: Study, *, kept_sesoi: float | None = None) -> list[str]:
    """Everything wrong with a study's settings (empty when it can be saved). `kept_sesoi`: the
    smallest effect of interest the study held before this change, accepted unchanged even at
    0 (studies migrated from before 0015 keep theirs: a pre-registered value is not rewritten,
    and their other settings stay editable)."""
    problems = _range_problems(study)
    if problems:
        return problems  # the checks below assume numbers a column can hold
    try:
        questionnaire = parse_questionnaire(study.questionnaire)
    except ValueError as error:
        return [str(error)]
    if not 0 < study.equivalence_margin <= MAX_MARGIN:
        problems.append(f"equivalence margin must be above 0 and at most {MAX_MARGIN:g}")
    if study.margin_unit not in MARGIN_UNITS:
        problems.append(f"margin unit must be one of {', '.join(MARGIN_UNITS)}")
    problems += _plan_problems(study, kept_sesoi)
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
    minimum = study.finish_minimum
    if minimum is not None and minimum < 1:
        problems.append("the minimum before Finish must be at least 1 pair (or empty: the quota)")
    if minimum is not None and study.pool_quota is not None and minimum > study.pool_quota:
        problems.append(
            f"the minimum before Finish ({minimum}) cannot exceed the pairs per person "
            f"({study.pool_quota})"
        )
    if study.close_at_stop and not study.sequential:
        problems.append(
            "closing enrolment at a stop needs a group-sequential plan (its looks say stop)"
        )
    if study.skip_limit is not None and study.skip_limit < 0:
        problems.append("the skip-and-flag limit must be 0 or more (empty: the pairs per person)")
    if study.enrolment_open and not study.pool_open:
        problems.append("crowd enrolment needs the open pool (enrolled people pull their pairs)")
    if study.rationale not in RATIONALE_MODES:
        problems.append(f"rationale must be one of {', '.join(RATIONALE_MODES)}")
    threshold = study.adjudication_threshold
    if threshold is not None and not 0 <= threshold < math.inf:
        problems.append("adjudication threshold must be 0 or more (or empty: flags only)")
    if study.retention_days is not None and not 1 <= study.retention_days <= 36_500:
        problems.append("retention must be 1 to 36,500 days (or empty: kept until erased)")
    problems += _platform_problems(study)
    problems += survey_problems(study.survey_questions)
    problems += completion_url_problems(study.completion_url)
    problems += check_problems(study.instructed_checks, study.pool_quota)
    problems += training_problems(
        study.practice_pairs,
        study.comprehension_questions,
        study.comprehension_attempts,
        questionnaire,
    )
    return problems


def _platform_problems(study: Study) -> list[str]:
    """The crowd platform and the study's money (issue 34.3)."""
    problems = []
    if study.platform is not None and study.platform not in PLATFORM_NAMES:
        problems.append(f"platform must be one of {', '.join(PLATFORM_NAMES)} (or empty: none)")
    if study.platform_study_id is not None and not re.fullmatch(
        r"[A-Za-z0-9_-]{1,64}", study.platform_study_id
    ):
        problems.append("the platform's study id: 1 to 64 letters, digits, '-' or '_'")
    if study.reward is not None and not 0 <= study.reward <= 10**7:
        problems.append("reward must be 0 to 10,000,000 minor units (pence, cents)")
    if not re.fullmatch(r"[A-Z]{3}", study.currency or ""):
        problems.append("currency must be a three-letter code such as GBP or USD")
    if not 0 <= study.platform_fee_percent <= 100:
        problems.append("the platform's fee must be 0 to 100 percent")
    try:
        parse_bonus_rule(study.bonus_rule or "")
    except ValueError as error:
        problems.append(str(error))
    return problems


SESOI_PROBLEM = (
    "smallest effect of interest must be above 0 (or empty: the margin): at 0 any positive "
    "difference would count as rubric alignment diverging"
)


def _plan_problems(study: Study, kept_sesoi: float | None) -> list[str]:
    problems = []
    sesoi = study.smallest_effect
    grandfathered = sesoi == 0 and kept_sesoi == 0
    if sesoi is not None and not grandfathered and not (0 < sesoi < float("inf")):
        problems.append(SESOI_PROBLEM)
    if not 0 < study.alpha < 0.5:
        problems.append("alpha must be above 0 and below 0.5")
    if study.planned_pairs is not None and study.planned_pairs < 1:
        problems.append("planned pairs must be at least 1 (or empty: no planned size)")
    if len(study.stopping_rule) > MAX_STOPPING_RULE_CHARS:
        problems.append(f"stopping rule: at most {MAX_STOPPING_RULE_CHARS} characters")
    if study.sequential is not None:
        try:
            study.sequential = check_sequential_plan(study.sequential)
        except ValueError as error:
            problems.append(str(error))
    if study.internal_pilot is not None:
        try:
            study.internal_pilot = check_internal_pilot(study.internal_pilot)
        except ValueError as error:
            problems.append(str(error))
        else:
            if study.internal_pilot["tie_alpha"] > study.alpha:
                problems.append("internal_pilot.tie_alpha: at most alpha (the TOSTs' own level)")
    return problems


def _range_problems(study: Study) -> list[str]:
    """Numbers out of any sensible range and texts no database stores (NUL, lone surrogates),
    each naming its setting."""
    problems = []
    for name, (low, high) in LIMITS.items():
        value = getattr(study, name)
        floor = -math.inf if low is None else low
        if value is None or (isinstance(value, int) and floor <= value <= high):
            continue
        expected = f"at most {high:,}" if low is None else f"from {low:,} to {high:,}"
        problems.append(f"{name.replace('_', ' ')}: expected {expected}, not {_shown(value)}")
    for name in ("equivalence_margin", "gold_rate", "adjudication_threshold"):
        value = getattr(study, name)
        if value is not None and not math.isfinite(value):
            problems.append(f"{name.replace('_', ' ')}: expected a finite number, not {value}")
    found = value_problem({key: getattr(study, key) for key in EDITABLE}, max_depth=64)
    if found is not None:
        problems.append(f"field '{found[0]}': {found[1]}")
    return problems


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 24 else f"{text[:20]}... ({len(text):,} characters)"


def _check(study: Study, *, kept_sesoi: float | None = None) -> None:
    problems = study_problems(study, kept_sesoi=kept_sesoi)
    if problems:
        raise StudyError("; ".join(problems))
