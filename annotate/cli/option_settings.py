"""The study options of `prb-annotate studies create|edit` read into settings: files read
(guidelines, consent, survey, checks, questionnaire, `--settings`), `--sequential`,
`--internal-pilot` and `--smallest-effect` parsed, with located errors
(:mod:`annotate.cli.study_options` declares the options)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from annotate.cli.common import (
    fail,
    refusals,
)
from annotate.domain.study.plan import PLAN_SETTINGS
from annotate.domain.study.questionnaire import (
    QuestionnaireError,
    read_questionnaire,
)
from annotate.domain.study.study_settings import read_settings
from annotate.questionnaire import TEMPLATES
from annotate.vocabulary import check_internal_pilot, check_sequential_plan


def settings_from_file(path: Path | None) -> dict[str, Any]:
    """The settings a `--settings` file gives (all of its problems, located, if any)."""
    if path is None:
        return {}
    try:
        data = path.read_bytes()
    except OSError as error:
        raise fail(f"{path}: cannot read it ({error})") from None
    with refusals():
        return read_settings(str(path), data)


def design_settings(
    consent_file: Path | None,
    no_consent: bool,
    survey_file: Path | None,
    screenout_code: str | None,
    completion_url: str | None,
    preference: bool | None,
    rationale: str | None,
    aspect_checklist: bool | None = None,
    adjudication_threshold: float | None = None,
    checks_file: Path | None = None,
) -> dict[str, Any]:
    """The study design options given on the command line (issue 14)."""
    settings: dict[str, Any] = {
        "screenout_code": screenout_code,
        "completion_url": completion_url,
        "ask_preference": preference,
        "rationale": rationale,
        "aspect_checklist": aspect_checklist,
        "adjudication_threshold": adjudication_threshold,
    }
    if consent_file is not None:
        settings["consent_text"] = _read(consent_file)
    if no_consent:
        settings["consent_text"] = ""
    for key, path in (("survey_questions", survey_file), ("instructed_checks", checks_file)):
        if path is not None:
            settings[key] = _json_list(path)
    return {k: v for k, v in settings.items() if v is not None}


def platform_settings(
    platform: str | None,
    platform_study_id: str | None,
    reward: int | None,
    currency: str | None,
    platform_fee: float | None,
    bonus_rule: str | None,
) -> dict[str, Any]:
    """The crowd platform and the study's money (issue 34.3); '' clears the platform."""
    given: dict[str, Any] = {
        "reward": reward,
        "currency": currency.strip().upper() if currency is not None else None,
        "platform_fee_percent": platform_fee,
        "bonus_rule": bonus_rule,
    }
    settings = {k: v for k, v in given.items() if v is not None}
    if platform is not None:
        settings["platform"] = platform.strip() or None
    if platform_study_id is not None:
        settings["platform_study_id"] = platform_study_id.strip() or None
    return settings


PLATFORM_OPTIONS = platform_settings.__code__.co_varnames[: platform_settings.__code__.co_argcount]

DESIGN_SETTINGS = frozenset({"overlap", "count_simulated", *PLAN_SETTINGS, "exclusion_rules"})
"""Settings whose change alters a study's design after the fact: confirmed first (--yes)."""


def _json_list(path: Path) -> Any:
    try:
        return json.loads(_read(path))
    except json.JSONDecodeError as error:
        raise fail(f"{path}, line {error.lineno}: not JSON ({error.msg})") from None


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise fail(f"{path}: cannot read it ({error})") from None


def _questionnaire(value: str) -> dict[str, Any]:
    """`--questionnaire rmbench` or `--questionnaire FILE.yaml`, as the study stores it."""
    if value.strip() in TEMPLATES:
        return TEMPLATES[value.strip()].stored()
    path = Path(value)
    if not path.is_file():
        raise fail(
            f"--questionnaire {value!r}: expected a template ({', '.join(TEMPLATES)}) or a "
            "YAML or JSON file"
        )
    try:
        return read_questionnaire(str(path), _read(path)).stored()
    except QuestionnaireError as error:
        raise fail(str(error)) from None


def general_settings(
    seed: int | None,
    questionnaire: str | None,
    guidelines: str | None,
    guidelines_file: Path | None,
    margin: float | None,
    margin_unit: str | None,
    smallest_effect: str | None,
    alpha: float | None,
    planned_pairs: int | None,
    stopping_rule: str | None,
    sequential: str | None,
    internal_pilot: str | None,
    count_simulated: bool | None,
    completion_code: str | None,
    overlap: int | None,
    reservation_minutes: int | None,
    gold_rate: float | None,
    pool: bool | None,
    pool_quota: int | None,
    finish_minimum: int | None,
    finish_counts_flags: bool | None,
    finish_counts_skips: bool | None,
    skip_limit: int | None,
    pool_order: str | None,
    enrolment: bool | None,
    close_at_stop: bool | None,
) -> dict[str, Any]:
    if guidelines_file is not None:
        guidelines = guidelines_file.read_text(encoding="utf-8")
    settings: dict[str, Any] = {
        "seed": seed,
        "questionnaire": None if questionnaire is None else _questionnaire(questionnaire),
        "guidelines": guidelines,
        "equivalence_margin": margin,
        "margin_unit": margin_unit,
        "alpha": alpha,
        "stopping_rule": stopping_rule,
        "count_simulated": count_simulated,
        "completion_code": completion_code,
        "overlap": overlap,
        "reservation_minutes": reservation_minutes,
        "gold_rate": gold_rate,
        "pool_open": pool,
        "pool_order": pool_order,
        "enrolment_open": enrolment,
        "close_at_stop": close_at_stop,
        "finish_counts_flags": finish_counts_flags,
        "finish_counts_skips": finish_counts_skips,
    }
    settings = {k: v for k, v in settings.items() if v is not None}
    if pool_quota is not None:
        settings["pool_quota"] = pool_quota or None
    if finish_minimum is not None:
        settings["finish_minimum"] = finish_minimum or None
    if skip_limit is not None:
        settings["skip_limit"] = None if skip_limit < 0 else skip_limit
    if planned_pairs is not None:
        settings["planned_pairs"] = planned_pairs or None
    if smallest_effect is not None:
        settings["smallest_effect"] = _smallest_effect(smallest_effect)
    if sequential is not None:
        settings["sequential"] = sequential_plan(sequential)
    if internal_pilot is not None:
        settings["internal_pilot"] = internal_pilot_plan(internal_pilot)
    return settings


SEQUENTIAL_WORDS = {"looks": "looks", "unit": "unit", "alpha": "alpha_spending",
                    "futility": "futility", "beta": "beta", "binding": "binding"}  # fmt: skip


def sequential_plan(text: str) -> dict[str, Any] | None:
    """`--sequential 'looks=30,60,90,120 alpha=pocock futility=pocock'` as the plan's mapping
    (checked by `check_sequential_plan`); 'none' or '': no plan."""
    if text.strip().lower() in ("", "none"):
        return None
    plan: dict[str, Any] = {}
    for word in text.split():
        key, sep, value = word.partition("=")
        if not sep or key not in SEQUENTIAL_WORDS:
            raise fail(f"--sequential {word!r}: expected one of {', '.join(SEQUENTIAL_WORDS)}=...")
        plan[SEQUENTIAL_WORDS[key]] = _sequential_value(key, value)
    try:
        return check_sequential_plan(plan)
    except ValueError as error:
        raise fail(f"--sequential: {error}") from None


def _sequential_value(key: str, value: str) -> Any:
    try:
        if key == "looks":
            return [int(n) for n in value.split(",")]
        if key == "beta":
            return float(value)
    except ValueError:
        raise fail(f"--sequential {key}={value!r}: expected numbers") from None
    if key == "binding":
        return value.lower() in ("yes", "true", "1")
    return None if key == "futility" and value.lower() == "none" else value


def internal_pilot_plan(text: str) -> dict[str, Any] | None:
    """`--internal-pilot 'first=40 tie_alpha=0.04'` as the plan's mapping (checked by
    `check_internal_pilot`); 'none' or '': no internal pilot."""
    if text.strip().lower() in ("", "none"):
        return None
    words = {"first": "first_stage_pairs", "tie_alpha": "tie_alpha"}
    plan: dict[str, Any] = {}
    for word in text.split():
        key, sep, value = word.partition("=")
        if not sep or key not in words:
            raise fail(f"--internal-pilot {word!r}: expected first=N or tie_alpha=0.04")
        try:
            plan[words[key]] = int(value) if key == "first" else float(value)
        except ValueError:
            raise fail(f"--internal-pilot {key}={value!r}: expected a number") from None
    try:
        return check_internal_pilot(plan)
    except ValueError as error:
        raise fail(f"--internal-pilot: {error}") from None


def _smallest_effect(value: str) -> float | None:
    if value.strip().lower() == "margin":
        return None
    try:
        number = float(value)
    except ValueError:
        raise fail(f"--smallest-effect {value!r}: expected a number or 'margin'") from None
    if not 0 < number < float("inf"):
        raise fail(
            f"--smallest-effect {value!r}: expected a number above 0 or 'margin' (at 0 any "
            "positive difference would diverge)"
        )
    return number


GENERAL_OPTIONS = general_settings.__code__.co_varnames[: general_settings.__code__.co_argcount]
