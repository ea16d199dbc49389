"""The pre-registered analysis plan a report is read against (issue 23 item 3).

A plan is the JSON document prb-annotate writes (`studies export-plan`, `plan.json` beside a
ratings export and in a published folder; made by `annotate.domain.study.plan.plan_document`):
the margin and its unit, the smallest effect of interest, alpha, the planned pairs or a stopping
rule, when it was set and every change since. :func:`analysis_plan` checks it and says

* what changed, from what and when, and whether after the first rating (the ratings' own first
  time counts too, so a plan exported before the data is still checked);
* which of the report's own options differ from the plan (`deviations`): a report computed at
  another margin or alpha is not the pre-registered analysis;
* whether the verdict is interim: fewer pairs analysed than planned;
* the internal pilot, if one was pre-registered (:func:`internal_pilot_of`): the report then
  reads each tie question's TOST at its ``tie_alpha``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from analysis.inference.sequential import read_look
from analysis.schema.plan_words import change_words
from analysis.schema.report_types import AnalysisPlan, PlanChange, SequentialLook
from annotate.vocabulary import check_internal_pilot, check_sequential_plan

PLAN_KEY = "prb_annotate_plan"
PLAN_FILE = "plan.json"


def read_plan(path: Path) -> dict[str, Any]:
    """A plan file, checked to be one (ValueError naming the file otherwise)."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"{path}: cannot read the plan ({error})") from None
    except json.JSONDecodeError as error:
        raise ValueError(
            f"{path}, line {error.lineno}, column {error.colno}: not JSON ({error.msg})"
        ) from None
    check_plan(document, str(path))
    return dict(document)


def sidecar_plan(ratings_file: Path) -> Path | None:
    """The plan carried beside a ratings export: `<name>.plan.json`, else `plan.json` in the
    same folder (a published folder); None when there is none."""
    for candidate in (
        ratings_file.with_name(ratings_file.stem + ".plan.json"),
        ratings_file.with_name(PLAN_FILE),
    ):
        if candidate.is_file():
            return candidate
    return None


def check_plan(document: object, where: str = "plan") -> None:
    if not isinstance(document, Mapping) or document.get(PLAN_KEY) != 1:
        raise ValueError(f"{where}: not a prb-annotate analysis plan (no '{PLAN_KEY}': 1)")
    plan = document.get("plan")
    if not isinstance(plan, Mapping):
        raise ValueError(f"{where}: field 'plan': expected an object of settings")
    for key, kind in (("margin", (int, float)), ("unit", str), ("alpha", (int, float))):
        if not isinstance(plan.get(key), kind) or isinstance(plan.get(key), bool):
            raise ValueError(f"{where}: field 'plan.{key}': missing or of the wrong type")


def analysis_plan(
    document: Mapping[str, Any],
    created_at: Sequence[str] | pd.Series,
    n_pairs_analysed: int,
    used: Mapping[str, Any],
    collected: Mapping[str, int] | None = None,
    p_values: Mapping[str, float | None] | None = None,
) -> AnalysisPlan:
    """The plan with its changes checked against the ratings' first time, this report's
    deviations from it (`used`: margin, margin_unit, smallest_effect, alpha) and whether the
    verdict is interim: fewer pairs collected than planned (`collected`: pairs and ratings,
    excluded pairs included, so excluding pairs never makes a finished study interim; default
    the pairs analysed). With a group-sequential plan the tests' one-sided ``p_values`` are read
    against the current look's boundary (:func:`analysis.inference.sequential.read_look`)."""
    check_plan(document)
    plan = document["plan"]
    first = _first_time(document.get("first_rating_at"), created_at)
    changes = [_change(c, first) for c in document.get("changes") or [] if isinstance(c, Mapping)]
    late = [c for c in changes if c["after_data"]]
    counts = dict(collected or {"pairs": n_pairs_analysed})
    planned = plan.get("planned_pairs")
    look = _look(plan, counts, p_values or {})
    if look is not None:
        interim = not look["final"]
    else:
        interim = planned is not None and counts["pairs"] < int(planned)
    deviations = _deviations(plan, used)
    rule = str(plan.get("stopping_rule") or "")
    # with a sequential plan the look's words say where the study stands (no planned pairs)
    note = plan_note(late, deviations, interim and look is None, counts["pairs"], planned)
    note = _sequential_note(note, look, rule)
    section: AnalysisPlan = {
        "study": document.get("study"),
        "exported_at": document.get("exported_at"),
        "margin": float(plan["margin"]),
        "margin_unit": str(plan["unit"]),
        "smallest_effect": _float_or_none(plan.get("smallest_effect")),
        "alpha": float(plan["alpha"]),
        "planned_pairs": None if planned is None else int(planned),
        "stopping_rule": rule,
        "set_at": document.get("set_at"),
        "first_rating_at": None if first is None else first.isoformat(),
        "changes": changes,
        "changed_after_data": bool(late),
        "deviations": deviations,
        "n_pairs_analysed": int(n_pairs_analysed),
        "interim": bool(interim),
        "note": note,
        "n_pairs_collected": int(counts["pairs"]),
        "sequential": look,
        "enrolment_closed": _closed(document.get("enrolment_closed")),
    }
    internal = internal_pilot_of(document)
    if internal is not None:  # only with one: a study without it reads as it did before it
        section["internal_pilot"] = internal
    return section


def internal_pilot_of(document: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The plan's pre-registered internal pilot, checked (`check_internal_pilot`):
    {first_stage_pairs, tie_alpha}; None without a plan or an internal pilot. Each tie
    question's TOST is then read at tie_alpha (:mod:`analysis.inference.reestimate`)."""
    found = None if document is None else document.get("plan", {}).get("internal_pilot")
    if not found:
        return None
    try:
        return check_internal_pilot(dict(found))
    except (TypeError, ValueError) as error:
        raise ValueError(f"plan: field 'plan.internal_pilot': {error}") from None


def _closed(record: object) -> dict[str, Any] | None:
    """When and why the plan closed the study's enrolment (`annotate.services.admin.monitor`)."""
    return dict(record) if isinstance(record, Mapping) else None


def _look(
    plan: Mapping[str, Any], counts: Mapping[str, int], p_values: Mapping[str, float | None]
) -> SequentialLook | None:
    sequential = plan.get("sequential")
    if not sequential:
        return None
    try:
        unit = check_sequential_plan(sequential)["unit"]
    except ValueError as error:
        raise ValueError(f"plan: field 'plan.{error}") from None
    n = counts.get(unit, counts["pairs"])
    return read_look(sequential, float(plan["alpha"]), n, p_values)


def _sequential_note(note: str, look: SequentialLook | None, rule: str) -> str:
    """The note with the plan's look said; a stopping rule in words with no group-sequential
    plan is never called pre-registered (its error rate is not controlled)."""
    if look is not None:
        words = f"group-sequential plan, {look['words']}"
        return words if note == "as pre-registered" else f"{words}; {note}"
    if rule.strip():
        caveat = (
            "the stopping rule is words, not a group-sequential plan: a verdict reached by "
            "stopping early is not the pre-registered analysis"
        )
        return caveat if note == "as pre-registered" else f"{note}; {caveat}"
    return note


def plan_note(
    late: Sequence[PlanChange],
    deviations: Sequence[str],
    interim: bool,
    n_pairs: int,
    planned: object,
) -> str:
    """The plan's standing in one sentence or a few, for the headline, the methods and the card."""
    parts = []
    if interim:
        parts.append(f"INTERIM: {n_pairs} of {planned} planned pairs analysed")
    parts += [f"changed after data: {change_words(c)}" for c in late]
    if deviations:
        parts.append("not the pre-registered analysis: " + "; ".join(deviations))
    if not parts:
        return "as pre-registered"
    return "; ".join(parts)


def _deviations(plan: Mapping[str, Any], used: Mapping[str, Any]) -> list[str]:
    found = []
    margin, unit = float(plan["margin"]), str(plan["unit"])
    if "margin" in used and (
        float(used["margin"]) != margin or used.get("margin_unit", unit) != unit
    ):
        found.append(
            f"margin {used['margin']:g} {used.get('margin_unit', unit)} (plan: {margin:g} {unit})"
        )
    if "alpha" in used and float(used["alpha"]) != float(plan["alpha"]):
        found.append(f"alpha {used['alpha']:g} (plan: {float(plan['alpha']):g})")
    if "smallest_effect" in used:
        planned = _float_or_none(plan.get("smallest_effect"))
        planned = margin if planned is None else planned
        given = _float_or_none(used["smallest_effect"])
        given = float(used.get("margin", margin)) if given is None else given
        if given != planned:
            found.append(f"smallest effect of interest {given:g} (plan: {planned:g})")
    return found


def _change(change: Mapping[str, Any], first: pd.Timestamp | None) -> PlanChange:
    at = change.get("at")
    stamp = _time(at)
    after_data = bool(change.get("after_data")) or (
        first is not None and (stamp is None or stamp > first)
    )
    return {
        "setting": str(change.get("setting")),
        "before": change.get("before"),
        "after": change.get("after"),
        "at": None if at is None else str(at),
        "after_data": after_data,
    }


def _first_time(recorded: object, created_at: Sequence[str] | pd.Series) -> pd.Timestamp | None:
    """The earlier of the plan's first rating and the ratings' own first time."""
    stamps = pd.to_datetime(pd.Series(list(created_at)), utc=True, errors="coerce").dropna()
    times = [t for t in (_time(recorded), stamps.min() if len(stamps) else None) if t is not None]
    return min(times) if times else None


def _time(value: object) -> pd.Timestamp | None:
    if value is None or value == "":
        return None
    stamp = pd.to_datetime(str(value), utc=True, errors="coerce")
    return None if pd.isna(stamp) else pd.Timestamp(stamp)


def _float_or_none(value: object) -> float | None:
    return None if value is None else float(str(value))
