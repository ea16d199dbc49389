"""`analysis.study_report`: a study's report from one snapshot and one settings object, without
a database (issue 35, item 4): the primary analysis leaves out the annotators a pre-registered
rule excludes, the margin keeps its unit and record unless the report is given another."""

from __future__ import annotations

import json

import pytest

from analysis.report import build_report
from analysis.schema.exclusion_types import AnnotatorFacts
from analysis.simulate import simulate_ratings
from analysis.study_report import Margin, StudySettings, StudySnapshot, report_of
from annotate.errors import Invalid

RECORD: dict[str, object] = {"set_at": None, "history": []}
SETTINGS = StudySettings(Margin(0.5, "points", RECORD), 1, 5, alpha=0.05)


def facts(annotator: str, gold_failed: int) -> AnnotatorFacts:
    return AnnotatorFacts(
        annotator=annotator,
        pairs_rated=40,
        gold_answered=4,
        gold_failed=gold_failed,
        gold_accuracy=1 - gold_failed / 4,
        straightlining_share=0.0,
        median_seconds=90.0,
    )


def snapshot(rules: dict[str, object] | None = None) -> StudySnapshot:
    ratings = simulate_ratings(40, 4, {"rubric_alignment": 1.2}, seed=3)
    names = sorted(ratings["annotator"].unique())
    return StudySnapshot(
        "s",
        ratings,
        rules=None if rules is None else {"rules": rules, "set_at": None, "history": []},
        annotator_facts=[facts(name, 3 if name == names[0] else 0) for name in names],
    )


def test_without_rules_the_report_is_build_report_with_the_studys_settings() -> None:
    data = snapshot()
    built = build_report(
        data.ratings, margin=0.5, margin_unit="points", margin_history=RECORD, alpha=0.05,
        scale_min=1, scale_max=5, n_boot=0, mixed=False, domains=False,
    )  # fmt: skip
    ours = report_of(data, SETTINGS, mixed=False, domains=False, options=False)
    assert json.dumps(ours, sort_keys=True) == json.dumps(built, sort_keys=True)


def test_an_annotator_a_rule_excludes_is_left_out_of_the_primary_analysis() -> None:
    data = snapshot({"max_gold_failures": 1})
    left_out = sorted(data.ratings["annotator"].unique())[0]
    assert data.excluded_annotators() == {left_out}
    assert left_out not in set(data.primary()["annotator"])
    report = report_of(data, SETTINGS, mixed=False, domains=False)
    assert report["n_annotators"] == 3
    [rule] = report["exclusion_rules"]["rules"]
    assert (rule["rule"], rule["excluded"]) == ("max_gold_failures", [left_out])


def test_rules_that_exclude_everyone_are_refused_naming_the_study() -> None:
    data = snapshot({"min_median_seconds": 1000})
    with pytest.raises(Invalid, match="study 's': the exclusion rules exclude every annotator"):
        report_of(data, SETTINGS, mixed=False, domains=False)


def test_the_margin_keeps_its_unit_and_record_unless_another_is_given() -> None:
    data = snapshot()
    own = report_of(data, SETTINGS, mixed=False, domains=False, options=False)["settings"]
    assert (own["margin"], own["margin_unit"]) == (0.5, "points")
    assert SETTINGS.margin_for(Margin(0.5, "points")) is SETTINGS.margin  # the same margin
    given = report_of(data, SETTINGS, margin=Margin(0.2, "sd"), mixed=False, domains=False)
    assert (given["settings"]["margin"], given["settings"]["margin_unit"]) == (0.2, "sd")
    assert SETTINGS.margin_for(Margin(0.2, "sd", RECORD)).record is None  # no record of its own
