"""The report's sections in reading order: one list that every renderer walks.

Each section has a heading, a table builder and the charts drawn under it. The Markdown, HTML
(and LaTeX) renderers iterate :data:`SECTIONS`, so a section added here appears in all of them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from analysis.designs import adjudication, aspect_report, exclusion_tables, span_report
from analysis.designs.attributes import attribute_table
from analysis.designs.erasures import erasure_table
from analysis.designs.preference import preference_table
from analysis.downstream import tables as downstream_tables
from analysis.models import model_report
from analysis.schema import tables
from analysis.schema.missing_tables import missing_table
from analysis.schema.plan_words import interim_words
from analysis.schema.report_types import Report
from analysis.schema.tables import Table


@dataclass(frozen=True)
class Section:
    heading: Callable[[Report], str]
    table: Callable[[Report], Table | None]  # None: the study has no such figures (a design option)
    charts: tuple[str, ...] = ()
    scroll: bool = False  # long tables scroll inside a box in HTML


def _fixed(text: str) -> Callable[[Report], str]:
    return lambda _report: text


def verdict_heading(report: Report) -> str:
    checks = report["checks"]
    verdict = "VALIDATED" if checks["validated"] else "NOT VALIDATED"
    if checks["reliability_caveat"]:
        verdict += (
            " (reliability caveat: annotators agree little on the size of the rubric "
            "difference, alpha below 0.667; the interval already includes it)"
        )
    elif checks["reliability_caveat"] is None:
        verdict += " (reliability not assessed)"
    simulated = report.get("simulated")
    if simulated is not None and simulated["counted"]:
        verdict += " (includes SIMULATED ratings: not people)"
    plan = report.get("plan")
    if plan is not None and plan["interim"]:
        verdict = f"INTERIM, {verdict} ({interim_words(plan)})"
    if plan is not None and (plan["changed_after_data"] or plan["deviations"]):
        verdict += " (not as pre-registered: see the analysis plan)"
    return f"Study verdict: {verdict}"


SECTIONS: tuple[Section, ...] = (
    Section(verdict_heading, tables.verdict_table),
    Section(_fixed("Analysis plan (pre-registered)"), tables.plan_table),
    Section(
        _fixed("Chosen vs rejected by dimension"),
        tables.dimension_table,
        ("means", "differences", "distribution"),
    ),
    Section(_fixed("Sensitivity to the equivalence margin"), tables.margin_table),
    Section(_fixed("Missing data: skips and flags"), missing_table),
    Section(_fixed("Mixed-effects model (annotators modelled)"), tables.mixed_table),
    Section(_fixed("Sensitivity analyses (rank-based)"), tables.sensitivity_table),
    Section(_fixed("Human accuracy"), tables.accuracy_table),
    Section(_fixed("Adjudication"), adjudication.adjudication_table),
    Section(_fixed("Direct preference"), preference_table),
    Section(_fixed("By annotator attribute (survey)"), attribute_table, scroll=True),
    Section(_fixed("Reward models"), model_report.reward_model_table, ("reward_models",)),
    Section(_fixed("Reward models: breakdown"), model_report.model_detail_table, scroll=True),
    Section(_fixed("Label audit"), model_report.label_audit_table, scroll=True),
    Section(_fixed("By domain"), tables.domain_table, ("domain_accuracy", "domain_verdicts")),
    Section(
        _fixed("Inter-annotator agreement (Krippendorff's alpha)"),
        tables.agreement_table,
        ("alpha",),
    ),
    Section(
        _fixed("Position bias (chosen − rejected by side shown)"),
        tables.position_table,
        ("position",),
    ),
    Section(_fixed("Annotators"), tables.annotator_table, ("annotators",), scroll=True),
    Section(
        _fixed("Aspect checklist: chosen vs rejected coverage"),
        aspect_report.aspect_table,
    ),
    Section(
        _fixed("Aspect checklist: aspects chosen does not cover more"),
        aspect_report.weak_aspect_table,
        scroll=True,
    ),
    Section(
        _fixed("Aspect checklist: annotators vs LLM judge"),
        aspect_report.judge_table,
    ),
    Section(_fixed("Spans: chosen vs rejected, and agreement"), span_report.span_table),
    Section(_fixed("Downstream: comparisons"), downstream_tables.comparison_table),
    Section(_fixed("Downstream: scaling curve"), downstream_tables.scaling_table),
    Section(_fixed("Downstream: LLM judge against the humans"), downstream_tables.judge_table),
    Section(_fixed("Downstream: the correlation claim"), downstream_tables.claim_table),
    Section(_fixed("Exclusions"), tables.exclusion_table),
    Section(_fixed("Participants' data erased"), erasure_table),
    Section(_fixed("Pre-registered exclusion rules"), exclusion_tables.rules_table),
    Section(_fixed("Exclusion rules: sensitivity"), exclusion_tables.rules_sensitivity_table),
    Section(
        _fixed("Attention checks and annotators under the rules"),
        exclusion_tables.annotators_under_rules_table,
        scroll=True,
    ),
    Section(_fixed("Methods"), tables.methods_table),
)


def drawn_sections(report: Report) -> Iterator[tuple[int, Section, str, Table]]:
    """The sections this report has, in order, numbered from 1 among them: (number, section,
    heading, table). A section whose table builder returns None is left out."""
    number = 0
    for section in SECTIONS:
        table = section.table(report)
        if table is not None:
            number += 1
            yield number, section, section.heading(report), table
