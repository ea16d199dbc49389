"""Pre-registered exclusion rules: which annotators the analysis leaves out, fixed per study
before the data arrive (issue 15 item 4; the attention checks of issue 14 item 3).

A study's rules (`Study.exclusion_rules`, `{}` = none) are any of:

* ``min_gold_accuracy`` (0..1): excluded when the share of gold pairs answered correctly is
  below it;
* ``max_gold_failures`` (a count): excluded when more gold pairs were answered wrongly ("fail 2
  of 3 gold pairs -> excluded" is ``max_gold_failures = 1``);
* ``max_straightlining_share`` (0..1): excluded when the share of pairs with all 8 scores
  equal is above it;
* ``min_median_seconds``: excluded when the median time per pair is below it.

The gold pairs are the attention checks: pairs with a known answer mixed into the queues at the
study's gold rate (`annotate.domain.rating.quality`). Rules are recorded like the equivalence
margin: when they were set (`rules_set_at`) and their earlier values (`rules_history`). Setting or
changing them once the study has a rating needs ``force`` (the service audits it, the report
says the rules changed after data arrived). The rules are applied in the analysis
(`analysis.designs.exclusion_rules`), from the per-annotator figures of
`annotate.domain.rating.quality`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from sqlmodel import Session

from annotate.db.tables import Study, stored_id, utcnow
from annotate.domain.study.plan import PlanAfterData, as_utc, first_rating_at, require_before_data
from annotate.errors import Invalid

__all__ = ["as_utc", "first_rating_at"]  # kept here for the callers of the rules


class RulesError(Invalid):
    """Rules that cannot be saved; the message names each field and what it expects."""


RulesAfterData = PlanAfterData
"""Rules set or changed once ratings exist, without the force flag (the plan's one lock)."""


class ExclusionRules(BaseModel):
    """A study's pre-registered exclusion rules; a rule left empty does not apply."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    min_gold_accuracy: float | None = Field(default=None, ge=0, le=1)
    max_gold_failures: int | None = Field(default=None, ge=0, strict=True)
    max_straightlining_share: float | None = Field(default=None, ge=0, le=1)
    min_median_seconds: float | None = Field(default=None, ge=0)

    def as_dict(self) -> dict[str, float | int]:
        """The rules that apply, as stored on the study."""
        return {k: v for k, v in self.model_dump().items() if v is not None}


RULE_NAMES = tuple(ExclusionRules.model_fields)


def parse_rules(values: Mapping[str, Any]) -> ExclusionRules:
    """The rules in `values`, checked; `RulesError` lists every field that is wrong."""
    try:
        return ExclusionRules.model_validate(dict(values))
    except ValidationError as error:
        problems = [
            f"{'.'.join(str(p) for p in e['loc']) or 'rules'}: {_expected(e)}, "
            f"got {e.get('input')!r}"
            for e in error.errors()
        ]
        raise RulesError("exclusion rules: " + "; ".join(problems)) from None


def _expected(error: Any) -> str:
    if error["type"] == "extra_forbidden":
        return f"not a rule (the rules are {', '.join(RULE_NAMES)})"
    return str(error["msg"]).lower()


def set_rules(
    session: Session, study: Study, values: Mapping[str, Any], *, force: bool = False
) -> bool:
    """Replace the study's exclusion rules with `values` (`{}` clears them); return False when
    they are already those. Once the study has a rating this needs `force`, since the rules
    are then no longer pre-registered; the earlier rules and when they were set are kept."""
    rules = parse_rules(values).as_dict()
    if rules == dict(study.exclusion_rules):
        return False
    first = require_before_data(session, study, "the exclusion rules", force=force)
    now = utcnow()
    if study.rules_set_at is not None or study.exclusion_rules:
        set_at = None if study.rules_set_at is None else as_utc(study.rules_set_at).isoformat()
        earlier: dict[str, Any] = {"rules": dict(study.exclusion_rules), "set_at": set_at}
        after = first is not None
        earlier |= {"changed_at": now.isoformat(), "forced": after, "after_data": after}
        study.rules_history = [*study.rules_history, earlier]
    study.exclusion_rules = rules
    study.rules_set_at = now
    session.add(study)
    session.flush()
    return True


def rules_record(session: Session, study: Study) -> dict[str, Any]:
    """The study's rules with their record, as plain data for the analysis: ``rules``,
    ``set_at``, ``history`` and ``first_rating_at`` (ISO times or None)."""
    first = first_rating_at(session, stored_id(study))
    return {
        "rules": dict(study.exclusion_rules),
        "set_at": None if study.rules_set_at is None else as_utc(study.rules_set_at).isoformat(),
        "history": [dict(h) for h in study.rules_history],
        "first_rating_at": None if first is None else first.isoformat(),
    }
