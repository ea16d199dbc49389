"""One study's validation report, built from one snapshot of its ratings and one settings object.

The service reads a study once (one database snapshot) and hands over a :class:`StudyData`: its
:class:`StudySnapshot` (what the annotators gave and what was decided about it) and its
:class:`StudySettings` (what was planned, the margin as a :class:`Margin` whose unit and record
travel with its value). :func:`report_of` builds the whole report from them: the ratings the
primary analysis uses (without the annotators a pre-registered exclusion rule excludes), the
headline (:func:`analysis.report.build_report`), then the figures of the design options the study
uses and the exclusion rules' sensitivity table. Nothing here reads a database.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, cast

import pandas as pd

from analysis.designs.adjudication import attach_adjudication
from analysis.designs.aspects import attach_aspects
from analysis.designs.attributes import attach_attributes
from analysis.designs.erasures import attach_erasures
from analysis.designs.exclusion_rules import (
    attach_exclusion_rules,
    check_rules,
    excluded_by,
    primary_ratings,
    without,
)
from analysis.designs.preference import attach_preference
from analysis.designs.spans import attach_spans
from analysis.report import build_report
from analysis.schema.exclusion_types import AnnotatorFacts
from analysis.schema.report_types import ExcludedPair, Report, SimulatedRatings
from annotate.errors import Invalid
from annotate.questionnaire import DEFAULT_QUESTIONNAIRE, Questionnaire
from annotate.vocabulary import DEFAULT_HOLM


@dataclass(frozen=True)
class Margin:
    """An equivalence margin with its unit (``points`` or ``sd``) and, for the study's own
    margin, its record (``{set_at, history}``, what ``analysis.inference.margins`` checks); a
    margin given for one report has no record (the report says it departs from the plan)."""

    value: float
    unit: str = "points"
    record: dict[str, object] | None = None

    def same_as(self, other: Margin) -> bool:
        """Whether the two are the same margin (value and unit; the record aside)."""
        return self.value == other.value and self.unit == other.unit


@dataclass(frozen=True)
class StudySettings:
    """What a study planned for its analysis (from its settings, not its ratings)."""

    margin: Margin
    scale_min: int
    scale_max: int
    alpha: float = 0.05  # the pre-registered alpha
    smallest_effect: float | None = None  # the pre-registered smallest effect (None: margin)
    plan: dict[str, Any] | None = None  # the plan document (annotate.domain.study.plan)
    questionnaire: Questionnaire = DEFAULT_QUESTIONNAIRE  # the questions the study asks

    def margin_for(self, override: Margin | None = None) -> Margin:
        """The report's margin: the study's own (with its record), or `override` (no record)
        when it is another margin."""
        if override is None or override.same_as(self.margin):
            return self.margin
        return replace(override, record=None)


@dataclass(frozen=True)
class StudySnapshot:
    """One study's ratings and everything decided about them, read at one moment."""

    study: str
    ratings: pd.DataFrame  # export format, annotators by pseudonym, exclusions marked
    excluded: list[ExcludedPair] = field(default_factory=list)  # left out by an admin
    aspects: pd.DataFrame | None = None  # the aspect table, for a study with the checklist
    spans: pd.DataFrame | None = None  # the spans table, for a study with span labels
    span_texts: Mapping[tuple[str, str], str] = field(default_factory=dict)  # their responses
    judges: pd.DataFrame | None = None  # LLM judges' aspect scores imported for it
    rules: dict[str, object] | None = None  # pre-registered exclusion rules and their record
    annotator_facts: list[AnnotatorFacts] = field(default_factory=list)  # what the rules read
    free_text: dict[str, str] = field(default_factory=dict)  # free-text column -> what it holds
    erasures: list[dict[str, object]] = field(default_factory=list)  # participants erased
    simulated: SimulatedRatings | None = None  # a study holding simulated ratings

    def rule_values(self) -> Mapping[str, object]:
        """The study's exclusion rules, name -> threshold (empty without rules)."""
        return cast(Mapping[str, object], (self.rules or {}).get("rules") or {})

    def primary(self) -> pd.DataFrame:
        """The ratings the primary analysis uses: without the annotators a pre-registered
        exclusion rule excludes (all of them without rules)."""
        try:
            return primary_ratings(self.ratings, self.rule_values(), self.annotator_facts)
        except ValueError as error:
            raise Invalid(f"study {self.study!r}: {error}") from None

    def excluded_annotators(self) -> set[str]:
        """The annotators a pre-registered exclusion rule excludes."""
        return set(excluded_by(check_rules(self.rule_values()), self.annotator_facts))

    def primary_spans(self) -> pd.DataFrame | None:
        """The spans of the annotators the primary analysis uses (as `primary`)."""
        return None if self.spans is None else without(self.spans, self.excluded_annotators())

    def primary_aspects(self) -> pd.DataFrame | None:
        """The aspect marks of the annotators the primary analysis uses (as `primary`)."""
        if self.aspects is None:
            return None
        return without(self.aspects, self.excluded_annotators())


@dataclass(frozen=True)
class StudyData:
    """One study as the report reads it: one snapshot of its ratings and its settings."""

    snapshot: StudySnapshot
    settings: StudySettings


def report_of(
    snapshot: StudySnapshot,
    settings: StudySettings,
    *,
    margin: Margin | None = None,
    alpha: float | None = None,
    holm: bool = DEFAULT_HOLM,
    n_boot: int = 0,
    seed: int = 0,
    mixed: bool = True,
    domains: bool = True,
    options: bool = True,
) -> Report:
    """The validation report of a study, without the annotators its exclusion rules exclude,
    with the figures of the design options it uses (`with_study_options`); the margin and alpha
    default to the study's plan (a `margin` given here, with its unit, has no record: the
    report says where it departs from the plan). `mixed` False skips the mixed model, `domains`
    False the by-domain figures, `options` False the design options' figures (the monitor reads
    only the headline, the agreement and the plan's look)."""
    chosen = settings.margin_for(margin)
    report = build_report(
        snapshot.primary(),
        margin=chosen.value,
        margin_unit=chosen.unit,
        margin_history=chosen.record,
        alpha=settings.alpha if alpha is None else alpha,
        smallest_effect=settings.smallest_effect,
        plan=settings.plan,
        n_boot=n_boot,
        holm=holm,
        seed=seed,
        scale_min=settings.scale_min,
        scale_max=settings.scale_max,
        excluded_pairs=snapshot.excluded,
        mixed=mixed,
        domains=domains,
        questionnaire=settings.questionnaire,
    )
    return with_study_options(report, snapshot, settings) if options else report


def with_study_options(report: Report, snapshot: StudySnapshot, settings: StudySettings) -> Report:
    """The report (built on `snapshot.primary()`) with the figures of what the study uses: the
    direct preference, the aspect checklist, a survey, adjudicated pairs, exclusion rules."""
    ratings = snapshot.primary()
    report = attach_preference(report, ratings)
    left_out = [e["pair_id"] for e in snapshot.excluded]
    report = attach_aspects(report, snapshot.primary_aspects(), ratings, snapshot.judges, left_out)
    labels = {s.key: s.label for s in settings.questionnaire.span_labels}
    report = attach_spans(report, snapshot.primary_spans(), ratings, snapshot.span_texts, labels)
    # free-text answers would make a group of one: never tables by them
    free_text = list(snapshot.free_text)
    report = attach_attributes(report, ratings.drop(columns=free_text, errors="ignore"))
    report = attach_adjudication(report, ratings)
    report = attach_erasures(report, snapshot.erasures)
    if snapshot.simulated is not None:
        report["simulated"] = snapshot.simulated
    return with_exclusion_rules(report, snapshot, settings.questionnaire)


def with_exclusion_rules(
    report: Report, snapshot: StudySnapshot, questionnaire: Questionnaire
) -> Report:
    """The report (built on `snapshot.primary()`) with the exclusion rules' section: each
    variant of its sensitivity table is built with the report's own settings, without
    bootstrap, the mixed model and the by-domain figures."""
    if snapshot.rules is None:
        return report
    s = report["settings"]
    variant = partial(
        build_report,
        margin=s["margin"],
        margin_unit=s["margin_unit"],
        alpha=s["alpha"],
        n_boot=0,
        holm=s["holm"],
        seed=s["seed"],
        scale_min=s["scale_min"],
        scale_max=s["scale_max"],
        excluded_pairs=report["exclusions"]["excluded_pairs"],
        mixed=False,  # the sensitivity table reads no mixed-model figure
        domains=False,  # nor any by-domain figure
        smallest_effect=s.get("smallest_effect"),
        questionnaire=questionnaire,
    )
    return attach_exclusion_rules(
        report, snapshot.ratings, snapshot.rules, snapshot.annotator_facts, variant
    )
