"""The few study settings with a syntax of their own on the command line, read into the value
the study stores (`annotate.domain.study.settings_model` names each option's reader). Each
raises `OptionValueError` naming the option and what was expected; the CLI prints it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from annotate.domain.study.questionnaire import QuestionnaireError, read_questionnaire
from annotate.errors import Invalid
from annotate.questionnaire import TEMPLATES
from annotate.vocabulary import check_internal_pilot, check_sequential_plan


class OptionValueError(Invalid):
    """An option's value that cannot be read: the option, the value and what was expected."""


def zero_is_none(value: int) -> int | None:
    """'0: none' (--planned-pairs, --pool-quota, --finish-minimum)."""
    return value or None


def negative_is_none(value: int) -> int | None:
    """'-1: none' (--skip-limit: the pool quota)."""
    return None if value < 0 else value


def blank_is_none(value: str) -> str | None:
    """'': none (--platform, --platform-study-id)."""
    return value.strip() or None


def currency_code(value: str) -> str:
    return value.strip().upper()


def cleared(_flag: bool) -> str:
    """A flag that empties its setting (--no-consent)."""
    return ""


def questionnaire_option(value: str) -> dict[str, Any]:
    """`--questionnaire rmbench` or `--questionnaire FILE.yaml`, as the study stores it."""
    if value.strip() in TEMPLATES:
        return TEMPLATES[value.strip()].stored()
    path = Path(value)
    if not path.is_file():
        raise OptionValueError(
            f"--questionnaire {value!r}: expected a template ({', '.join(TEMPLATES)}) or a "
            "YAML or JSON file"
        )
    try:
        return read_questionnaire(str(path), read_text(path)).stored()
    except QuestionnaireError as error:
        raise OptionValueError(str(error)) from None


def read_text(path: Path) -> str:
    """A `*-file` option's text (UTF-8)."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise OptionValueError(f"{path}: cannot read it ({error})") from None


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
            raise OptionValueError(
                f"--sequential {word!r}: expected one of {', '.join(SEQUENTIAL_WORDS)}=..."
            )
        plan[SEQUENTIAL_WORDS[key]] = _sequential_value(key, value)
    try:
        return check_sequential_plan(plan)
    except ValueError as error:
        raise OptionValueError(f"--sequential: {error}") from None


INTERNAL_PILOT_WORDS = {"first": "first_stage_pairs", "tie_alpha": "tie_alpha"}


def internal_pilot_plan(text: str) -> dict[str, Any] | None:
    """`--internal-pilot 'first=40 tie_alpha=0.04'` as the plan's mapping (checked by
    `check_internal_pilot`); 'none' or '': no internal pilot."""
    if text.strip().lower() in ("", "none"):
        return None
    plan: dict[str, Any] = {}
    for word in text.split():
        key, sep, value = word.partition("=")
        if not sep or key not in INTERNAL_PILOT_WORDS:
            raise OptionValueError(f"--internal-pilot {word!r}: expected first=N or tie_alpha=0.04")
        try:
            plan[INTERNAL_PILOT_WORDS[key]] = int(value) if key == "first" else float(value)
        except ValueError:
            raise OptionValueError(f"--internal-pilot {key}={value!r}: expected a number") from None
    try:
        return check_internal_pilot(plan)
    except ValueError as error:
        raise OptionValueError(f"--internal-pilot: {error}") from None


def _sequential_value(key: str, value: str) -> Any:
    try:
        if key == "looks":
            return [int(n) for n in value.split(",")]
        if key == "beta":
            return float(value)
    except ValueError:
        raise OptionValueError(f"--sequential {key}={value!r}: expected numbers") from None
    if key == "binding":
        return value.lower() in ("yes", "true", "1")
    return None if key == "futility" and value.lower() == "none" else value


def smallest_effect(value: str) -> float | None:
    """`--smallest-effect 0.3`, or 'margin' (None: the margin)."""
    if value.strip().lower() == "margin":
        return None
    try:
        number = float(value)
    except ValueError:
        raise OptionValueError(
            f"--smallest-effect {value!r}: expected a number or 'margin'"
        ) from None
    if not 0 < number < float("inf"):
        raise OptionValueError(
            f"--smallest-effect {value!r}: expected a number above 0 or 'margin' (at 0 any "
            "positive difference would diverge)"
        )
    return number


def read_json(path: Path) -> Any:
    """A `*-file` option's JSON (the survey's questions, the instructed checks)."""
    try:
        return json.loads(read_text(path))
    except json.JSONDecodeError as error:
        raise OptionValueError(f"{path}, line {error.lineno}: not JSON ({error.msg})") from None
