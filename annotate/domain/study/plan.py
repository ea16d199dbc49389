"""A study's pre-registered analysis plan, and its one lock (issue 23 item 3).

The plan is the equivalence margin and its unit, the smallest effect of interest (SESOI, in the
margin's unit; empty: the margin), the alpha level, the planned sample size (pairs to analyse)
or a stopping rule in words, and the exclusion rules (`annotate.domain.operations.exclusion_rules`).

One mechanism locks and records all of it, the one the margin and the exclusion rules had:

* the lock (`require_before_data`): once the study has a rating, a change is refused unless
  forced; the service that forces it audits the change with its before and after;
* the record: when the plan was last set (`Study.margin_set_at`, the exclusion rules'
  `rules_set_at`) and its earlier values with when each was set, when it was replaced and whether
  that was forced after data (`Study.margin_history`, `rules_history`), oldest first.

`plan_document` gives the whole plan with its record and every change as plain data: exported
as the pre-registration to deposit (`studies export-plan`, JSON and Markdown), carried next to
the ratings export and in the published folder (`plan.json`), and read by the analysis
(`analysis.inference.plan`), which says what changed, from what and when, and whether its own
options differ from the plan.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from itertools import pairwise
from typing import Any

from sqlmodel import Session, col, func, select

from annotate.db.tables import Assignment, Rating, Study, stored_id, utcnow
from annotate.domain.study.questionnaire import questionnaire_of
from annotate.domain.study.settings_model import PLAN_SETTINGS, setting, words
from annotate.errors import Conflict

PLAN_FORMAT = 1
PLAN_KEY = "prb_annotate_plan"
RECORD_KEYS = {name: setting(name).plan for name in PLAN_SETTINGS}
"""Each plan setting's key in the plan record (`margin` and `unit` as the margin record had)."""
LABELS = {key: words(name) for name, key in RECORD_KEYS.items()} | {
    "exclusion_rules": words("exclusion_rules")
}


class PlanAfterData(Conflict):
    """A plan setting changed once ratings exist, without the force flag."""


def as_utc(moment: datetime) -> datetime:
    """A time read from the database in UTC (SQLite hands back naive UTC times)."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


def iso(moment: datetime | None) -> str | None:
    return None if moment is None else as_utc(moment).isoformat()


def first_rating_at(session: Session, study_id: int) -> datetime | None:
    """When the study's first score was given (gold pairs included); None before any."""
    first = session.exec(
        select(func.min(Rating.created_at))
        .join(Assignment, col(Rating.assignment_id) == col(Assignment.id))
        .where(Assignment.study_id == study_id)
    ).one()
    return None if first is None else as_utc(first)


def require_before_data(
    session: Session, study: Study, what: str, *, force: bool = False
) -> datetime | None:
    """The lock: refuse to change `what` (e.g. "the margin") once the study has a rating,
    unless forced; return the first rating's time (None before any)."""
    first = first_rating_at(session, stored_id(study))
    if first is not None and not force:
        raise PlanAfterData(
            f"study {study.name!r} has ratings since {first.isoformat(timespec='seconds')}: "
            f"{what} set now is not pre-registered; pass the force flag to set it anyway "
            "(audited, and the report and the card will say it changed after data arrived)"
        )
    return first


RECORDED_WHEN_SET = frozenset(n for n in PLAN_SETTINGS if setting(n).recorded_when_set)
"""Plan settings in the record only when set (`Setting.recorded_when_set`): a study without them
writes the plan (and report) it wrote before (tests/fixtures/before_questionnaire)."""


def plan_values(study: Study) -> dict[str, Any]:
    """The plan's settings as the record keeps them (margin, unit, smallest_effect, ...)."""
    return {
        RECORD_KEYS[name]: getattr(study, name)
        for name in PLAN_SETTINGS
        if name not in RECORDED_WHEN_SET or getattr(study, name) is not None
    }


def changed_settings(study: Study, before: dict[str, Any]) -> list[str]:
    """The plan settings (record keys) whose value differs from `before`."""
    now = plan_values(study)
    keys = [*now, *(key for key in before if key not in now)]  # a setting cleared: gone from now
    return [key for key in keys if before.get(key) != now.get(key)]


def lock_and_record(
    session: Session, study: Study, before: dict[str, Any], set_at: datetime | None, force: bool
) -> list[str]:
    """After settings were applied to `study`: when a plan setting changed, check the lock and
    keep the earlier plan in the record; return the changed settings (record keys)."""
    changed = changed_settings(study, before)
    if not changed:
        return []
    words = ", ".join(LABELS[key] for key in changed)
    first = require_before_data(session, study, f"the analysis plan ({words})", force=force)
    now = utcnow()
    earlier = {**before, "set_at": iso(set_at), "changed_at": now.isoformat()}
    earlier["forced"] = earlier["after_data"] = first is not None
    study.margin_history = [*study.margin_history, earlier]
    study.margin_set_at = now
    return changed


def plan_document(session: Session, study: Study) -> dict[str, Any]:
    """The study's analysis plan with its record and its changes, as plain JSON data (the
    pre-registration to deposit; `plan.json` beside an export and in the published folder)."""
    first = first_rating_at(session, stored_id(study))
    changes = plan_changes(study, first)
    return {
        PLAN_KEY: PLAN_FORMAT,
        "study": study.name,
        "exported_at": utcnow().isoformat(),
        "plan": {
            **plan_values(study),
            "exclusion_rules": dict(study.exclusion_rules),
            "overlap": study.overlap,
            "scale": list(questionnaire_of(study).scale),
        },
        "set_at": iso(study.margin_set_at),
        "rules_set_at": iso(study.rules_set_at),
        "first_rating_at": iso(first),
        "history": [dict(h) for h in study.margin_history],
        "rules_history": [dict(h) for h in study.rules_history],
        "changes": changes,
        "changed_after_data": any(c["after_data"] for c in changes),
        "enrolment_closed": None
        if study.enrolment_closed is None
        else dict(study.enrolment_closed),
    }


def plan_changes(study: Study, first: datetime | None) -> list[dict[str, Any]]:
    """Every change of a plan setting: {setting, before, after, at, after_data}, oldest first.
    An entry of the record from before the plan existed names only the margin and its unit."""
    snapshots = [*study.margin_history, {**plan_values(study), "set_at": iso(study.margin_set_at)}]
    changes = _changes(snapshots, RECORD_KEYS.values(), first)
    rules = [
        {"exclusion_rules": h.get("rules", {}), "set_at": h.get("set_at")}
        for h in study.rules_history
    ]
    rules.append(
        {"exclusion_rules": dict(study.exclusion_rules), "set_at": iso(study.rules_set_at)}
    )
    changes += _changes(rules, ("exclusion_rules",), first)
    return sorted(changes, key=lambda c: c["at"] or "")


def _changes(
    snapshots: list[dict[str, Any]], keys: Any, first: datetime | None
) -> list[dict[str, Any]]:
    found = []
    for old, new in pairwise(snapshots):
        at = old.get("changed_at") or new.get("set_at")
        after_data = _after_data(old, at, first)
        for key in keys:
            if key in old and key in new and old[key] != new[key]:
                found.append(
                    {
                        "setting": key,
                        "before": old[key],
                        "after": new[key],
                        "at": at,
                        "after_data": after_data,
                    }
                )
    return found


def _after_data(old: dict[str, Any], at: str | None, first: datetime | None) -> bool:
    """Whether a change came after data: as recorded with the change (`after_data`, or the
    lock's `forced` mark), never recomputed from ratings an erasure can remove; only an entry
    from before either mark is dated against the current first rating."""
    for mark in ("after_data", "forced"):
        if mark in old:
            return bool(old[mark])
    return first is not None and at is not None and _after(at, first)


def _after(at: str, first: datetime) -> bool:
    try:
        return as_utc(datetime.fromisoformat(at)) > first
    except ValueError:
        return True  # an unreadable time cannot show the change came first


def plan_json(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False, default=str) + "\n"


def plan_markdown(document: dict[str, Any]) -> str:
    """The plan as a short pre-registration document (Markdown)."""
    plan = document["plan"]
    margin = f"{plan['margin']:g} {'scale points' if plan['unit'] == 'points' else 'SD'}"
    sesoi = plan["smallest_effect"]
    rules = plan["exclusion_rules"]
    lines = [
        f"# Analysis plan: {_inert(document['study'])}",
        "",
        f"Exported {document['exported_at']} by prb-annotate (plan format {PLAN_FORMAT}).",
        "",
        f"- Equivalence margin: ±{margin} (TOST on factuality, relevance, helpfulness).",
        "- Smallest effect of interest (rubric alignment must exceed it): "
        + (f"{sesoi:g}" if sesoi is not None else f"the margin ({plan['margin']:g})"),
        f"- Alpha: {plan['alpha']:g}",
        "- Planned sample size: "
        + (f"{plan['planned_pairs']} pairs" if plan["planned_pairs"] else "not set"),
        f"- Stopping rule: {_inert(plan['stopping_rule']) or 'none'}",
        f"- Group-sequential plan: {sequential_words(plan.get('sequential'))}",
        f"- Internal pilot: {internal_pilot_words(plan.get('internal_pilot'), plan['alpha'])}",
        f"- Annotators per pair: {plan['overlap']}; scale {plan['scale'][0]}-{plan['scale'][1]}",
        "- Exclusion rules: "
        + ("; ".join(f"{k} = {v:g}" for k, v in rules.items()) if rules else "none"),
        f"- Plan set at: {document['set_at'] or 'unknown'}; exclusion rules set at: "
        f"{document['rules_set_at'] or 'never'}",
        f"- First rating: {document['first_rating_at'] or 'none yet'}",
        "",
    ]
    return "\n".join(lines + change_lines(document["changes"])) + "\n"


def sequential_words(plan: object) -> str:
    """A group-sequential plan in one line ('none' without one)."""
    if not isinstance(plan, dict) or not plan.get("looks"):
        return "none"
    looks = ", ".join(str(n) for n in plan["looks"])
    futility = plan.get("futility")
    words = (
        f"looks at {looks} {plan.get('unit', 'pairs')}; Lan-DeMets alpha spending, "
        f"{plan.get('alpha_spending')} type"
    )
    if futility:
        kind = "binding" if plan.get("binding") else "non-binding"
        words += f"; {kind} futility by {futility}-type beta spending (beta {plan.get('beta')})"
    return words


def internal_pilot_words(plan: object, alpha: float) -> str:
    """An internal pilot in one line ('none' without one)."""
    if not isinstance(plan, dict) or not plan.get("first_stage_pairs"):
        return "none"
    return (
        f"a first stage of {plan['first_stage_pairs']} pairs, then one sample-size "
        f"re-estimation look; each tie question's TOST at {plan['tie_alpha']:g} (the "
        f"superiority test at alpha {alpha:g}): re-estimating the size can raise an "
        "equivalence test's level (Friede & Kieser, 2003)"
    )


def change_lines(changes: list[dict[str, Any]]) -> list[str]:
    """The plan's changes in words, one line each (none: one line saying so)."""
    if not changes:
        return ["No change to the plan since it was set."]
    return ["Changes to the plan:", ""] + [
        f"- {LABELS.get(c['setting'], c['setting'])}: {_value(c['before'])} -> "
        f"{_value(c['after'])} at {c['at'] or 'unknown time'}"
        + (" (AFTER DATA ARRIVED)" if c["after_data"] else " (before any rating)")
        for c in changes
    ]


def _value(value: object) -> str:
    if value is None:
        return "not set"
    if isinstance(value, bool | int | float):
        return f"{value:g}" if isinstance(value, float) else str(value)
    if isinstance(value, dict):
        return "; ".join(f"{k} = {v}" for k, v in value.items()) or "none"
    return _inert(str(value))


def _inert(text: str) -> str:
    """Admin-typed text in a Markdown line: no markup, no HTML."""
    escaped = "".join("\\" + ch if ch in "\\`*_{}[]()#+-.!<>|~" else ch for ch in text)
    return " ".join(escaped.split())
