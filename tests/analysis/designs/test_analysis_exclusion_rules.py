"""Pre-registered exclusion rules in the analysis: who each rule excludes and why, the primary
analysis without them, and the sensitivity table (no rule, each rule alone, all rules).

The frame is small and made by hand so every expected figure is worked out in the comments:
three annotators rate pairs p1..p4, the same scores on every dimension,
  a: chosen 4, rejected 2 everywhere            (difference +2)
  b: chosen 3, rejected 3 on p1, p2; 3 / 2 on p3, p4   (0, 0, +1, +1)
  c: chosen 1, rejected 5 everywhere            (difference -4)
so a pair's mean difference (chosen mean - rejected mean) is the mean of the annotators'.
"""

from __future__ import annotations

import json
from functools import cache, partial

import pandas as pd
import pytest

from analysis.designs.exclusion_rules import (
    RULES,
    attach_exclusion_rules,
    check_rules,
    excluded_by,
    primary_ratings,
    reason,
    rules_record,
)
from analysis.designs.exclusion_tables import (
    annotators_under_rules_table,
    rules_sensitivity_table,
    rules_table,
)
from analysis.methods import methods_paragraph
from analysis.renderers.render import render_report
from analysis.report import build_report
from annotate.domain.operations.exclusion_rules import RULE_NAMES
from annotate.vocabulary import DIMENSIONS, PERSONAL_DIMENSION

SCORES = {  # annotator -> pair -> (chosen, rejected)
    "a": dict.fromkeys(("p1", "p2", "p3", "p4"), (4, 2)),
    "b": {"p1": (3, 3), "p2": (3, 3), "p3": (3, 2), "p4": (3, 2)},
    "c": dict.fromkeys(("p1", "p2", "p3", "p4"), (1, 5)),
}
FACTS = [  # what the database would say (gold pairs are not in the ratings)
    {
        "annotator": "a",
        "pairs_rated": 7,
        "gold_answered": 3,
        "gold_failed": 0,
        "gold_accuracy": 1.0,
        "straightlining_share": 0.0,
        "median_seconds": 2.0,
    },
    {
        "annotator": "b",
        "pairs_rated": 7,
        "gold_answered": 3,
        "gold_failed": 1,
        "gold_accuracy": 2 / 3,
        "straightlining_share": 0.5,
        "median_seconds": 30.0,
    },
    {
        "annotator": "c",
        "pairs_rated": 7,
        "gold_answered": 3,
        "gold_failed": 2,
        "gold_accuracy": 1 / 3,
        "straightlining_share": 1.0,
        "median_seconds": 20.0,
    },
    {  # only gold pairs done: no ratings in the analysis
        "annotator": "d",
        "pairs_rated": 2,
        "gold_answered": 2,
        "gold_failed": 2,
        "gold_accuracy": 0.0,
        "straightlining_share": 0.0,
        "median_seconds": 9.0,
    },
    {  # no gold pair answered: the gold rules cannot apply
        "annotator": "e",
        "pairs_rated": 1,
        "gold_answered": 0,
        "gold_failed": 0,
        "gold_accuracy": None,
        "straightlining_share": 0.0,
        "median_seconds": 15.0,
    },
]
RULES_SET = {
    "min_gold_accuracy": 0.5,  # c (1/3), d (0); b's 2/3 passes, e has no figure
    "max_gold_failures": 1,  # "fail 2 of 3 -> excluded": c, d
    "max_straightlining_share": 0.5,  # c (1.0); b's 0.5 equals the threshold and passes
    "min_median_seconds": 5,  # a (2 s)
}
RECORD = {
    "rules": RULES_SET,
    "set_at": "2026-12-01T09:00:00+00:00",
    "history": [],
    "first_rating_at": "2026-12-02T10:00:00+00:00",
}


def ratings() -> pd.DataFrame:
    rows = []
    for annotator, pairs in SCORES.items():
        for pair, (chosen, rejected) in pairs.items():
            for response, score in (("chosen", chosen), ("rejected", rejected)):
                for dim in DIMENSIONS:
                    rows.append(
                        {
                            "study": "s",
                            "pair_id": pair,
                            "domain": "Art",
                            "annotator": annotator,
                            "response": response,
                            "side": "A" if response == "chosen" else "B",
                            "dimension": dim,
                            "score": score,
                            "seconds": 10.0,
                            "created_at": "2026-12-02T10:00:00+00:00",
                        }
                    )
    return pd.DataFrame(rows)


BUILD = partial(build_report, n_boot=0, scale_min=1, scale_max=5)


def with_rules(record=RECORD, calls: list | None = None):
    def build(frame: pd.DataFrame):
        if calls is not None:
            calls.append(sorted(frame["annotator"].unique()))
        return BUILD(frame)

    primary = BUILD(primary_ratings(ratings(), record["rules"], FACTS))
    return attach_exclusion_rules(primary, ratings(), record, FACTS, build)


@cache
def default_report():
    """The report with RECORD's rules (built once; tests only read it)."""
    return with_rules()


def test_the_rules_are_the_study_settings_fields():
    assert tuple(RULES) == RULE_NAMES


def test_each_rule_excludes_by_its_figure_and_says_why():
    hits = excluded_by(check_rules(RULES_SET), FACTS)
    assert hits == {
        "a": ["min_median_seconds"],
        "c": ["min_gold_accuracy", "max_gold_failures", "max_straightlining_share"],
        "d": ["min_gold_accuracy", "max_gold_failures"],
    }
    c = FACTS[2]
    assert reason("min_gold_accuracy", 0.5, c) == "min_gold_accuracy: 33.3% < 50.0%"
    assert reason("max_gold_failures", 1, c) == "max_gold_failures: 2 failed > 1 failed"
    assert reason("min_median_seconds", 5, FACTS[0]) == "min_median_seconds: 2 s < 5 s"
    assert reason("max_straightlining_share", 0.5, FACTS[1]) is None  # equal passes
    assert reason("min_gold_accuracy", 0.5, FACTS[4]) is None  # no gold answered


def test_unknown_rules_and_non_numbers_are_refused():
    with pytest.raises(ValueError, match="unknown rule 'max_speed'"):
        check_rules({"max_speed": 3})
    with pytest.raises(ValueError, match="min_gold_accuracy must be a number, got 'high'"):
        check_rules({"min_gold_accuracy": "high"})


def test_the_primary_analysis_leaves_out_the_excluded_annotators():
    report = default_report()
    # a and c excluded: b alone, rubric differences 0, 0, +1, +1 -> mean 0.5; accuracy: two
    # ties are not wins, two wins of four -> 50%.
    assert report["n_annotators"] == 1
    assert report["n_pair_ratings"] == 4
    assert report["dimensions"][PERSONAL_DIMENSION]["mean_diff"] == pytest.approx(0.5)
    assert report["human_accuracy"]["strict"]["value"] == pytest.approx(0.5)
    found = report["exclusion_rules"]
    assert found["excluded"] == ["a", "c", "d"]
    assert [r["excluded"] for r in found["rules"]] == [["c", "d"], ["c", "d"], ["c"], ["a"]]
    assert [r["description"] for r in found["rules"]] == [
        "gold accuracy below 50.0%",
        "more gold pairs failed than 1",
        "share of straight-lined pairs above 50.0%",
        "median seconds per pair below 5 s",
    ]
    assert "leaves out the annotators any pre-registered rule excludes" in methods_paragraph(report)
    assert report["methods"]["exclusion_rules"] == found["note"]


def test_the_sensitivity_table_against_hand_computed_figures():
    calls: list = []
    rows = {r["variant"]: r for r in with_rules(calls=calls)["exclusion_rules"]["sensitivity"]}
    assert list(rows) == [
        "no rule",
        "min_gold_accuracy only",
        "max_gold_failures only",
        "max_straightlining_share only",
        "min_median_seconds only",
        "all rules",
    ]
    # (annotators, pair-ratings, mean difference = rubric and every dimension, accuracy)
    # accuracy: a single annotator's credit, 1 chosen higher / 0.5 tie / 0 rejected higher,
    # averaged (a balanced design): a scores +2 (4 wins), b 0, 0, 1, 1 (3), c -4 (0)
    expected = {
        # a, b, c: pairs p1, p2: (2 + 0 - 4) / 3 = -2/3; p3, p4: (2 + 1 - 4) / 3 = -1/3;
        # mean -0.5; accuracy (4 + 3 + 0) / 12
        "no rule": (3, 12, -0.5, 7 / 12, []),
        # without c: p1, p2: (2 + 0) / 2 = 1; p3, p4: (2 + 1) / 2 = 1.5; mean 1.25; 7 / 8
        "min_gold_accuracy only": (2, 8, 1.25, 7 / 8, ["c"]),
        "max_gold_failures only": (2, 8, 1.25, 7 / 8, ["c"]),
        "max_straightlining_share only": (2, 8, 1.25, 7 / 8, ["c"]),
        # without a: p1, p2: (0 - 4) / 2 = -2; p3, p4: (1 - 4) / 2 = -1.5; mean -1.75; 3 / 8
        "min_median_seconds only": (2, 8, -1.75, 3 / 8, ["a"]),
        # b alone: 0, 0, 1, 1: mean 0.5; 3 / 4
        "all rules": (1, 4, 0.5, 0.75, ["a", "c"]),
    }
    for variant, (n_annotators, n_ratings, diff, accuracy, excluded) in expected.items():
        row = rows[variant]
        assert (row["n_annotators"], row["n_pair_ratings"], row["excluded"]) == (
            n_annotators,
            n_ratings,
            excluded,
        ), variant
        for dim in DIMENSIONS:
            assert row["dimensions"][dim]["mean_diff"] == pytest.approx(diff), (variant, dim)
        assert row["human_accuracy"] == pytest.approx(accuracy), variant
    # 4 pairs < 10: no verdict on any dimension, never a tie
    assert {rows["no rule"]["dimensions"][d]["verdict"] for d in DIMENSIONS} == {
        "insufficient_data"
    }
    # one build per distinct set of excluded annotators; "all rules" is the primary report
    assert calls == [["a", "b", "c"], ["a", "b"], ["b", "c"]]
    # the rubric alpha of a variant is the full report's on that frame
    alone = BUILD(ratings()[ratings()["annotator"] != "a"])
    assert rows["min_median_seconds only"]["rubric_alpha"] == pytest.approx(
        alone["dimensions"][PERSONAL_DIMENSION]["alpha_ordinal"]
    )


def test_the_attention_checks_list_every_annotator_with_their_gold_pairs():
    annotators = {a["annotator"]: a for a in default_report()["exclusion_rules"]["annotators"]}
    assert (annotators["d"]["gold_answered"], annotators["d"]["gold_failed"]) == (2, 2)
    assert annotators["d"]["in_ratings"] is False
    assert annotators["e"]["excluded_by"] == []
    assert annotators["b"]["reasons"] == []
    table = annotators_under_rules_table(default_report())
    (c_row,) = [row for row in table.rows if row[0] == "c"]
    assert c_row[2:7] == ["3", "2", "33.3%", "100.0%", "20.0"]
    assert "max_gold_failures: 2 failed > 1 failed" in c_row[7]


def test_a_study_without_rules_analyses_everyone_and_builds_nothing_more():
    calls: list = []
    record = {**RECORD, "rules": {}, "set_at": None}
    report = with_rules(record, calls)
    assert calls == []
    assert report["n_annotators"] == 3
    found = report["exclusion_rules"]
    assert [r["variant"] for r in found["sensitivity"]] == ["no rule"]
    assert found["excluded"] == []
    assert found["record"]["note"] == "no exclusion rules were set"
    assert "exclusion_rules" not in methods_paragraph(report)
    assert found["note"] not in methods_paragraph(report)


def test_rules_set_after_the_first_rating_are_flagged():
    assert rules_record(RECORD)["changed_after_data"] is False
    assert rules_record(RECORD)["note"] == "rules set before data"
    late = {**RECORD, "set_at": "2026-12-03T08:00:00+00:00", "history": [{"rules": {}}]}
    checked = rules_record(late)
    assert checked["changed_after_data"] is True
    assert checked["note"] == "rules set or changed after data arrived"
    report = with_rules(late)
    assert rules_table(report).note.startswith("Changed after data arrived")


def test_rule_times_are_shown_to_the_minute_not_as_raw_iso():
    """Issue 22.9: the note showed '2026-12-03T08:00:12.345678+00:00'."""
    late = {**RECORD, "set_at": "2026-12-03T08:00:12.345678+00:00"}
    note = rules_table(with_rules(late)).note
    assert "Rules set at 2026-12-03 08:00 UTC; first rating at 2026-12-02 10:00 UTC" in note
    assert "T08:00" not in note
    assert ".345678" not in note


def test_rules_that_exclude_everyone_are_an_error():
    with pytest.raises(ValueError, match="exclude every annotator"):
        primary_ratings(ratings(), {"min_median_seconds": 100}, FACTS)


@pytest.mark.parametrize("fmt", ["md", "html", "latex", "json"])
def test_every_renderer_shows_the_sections(fmt):
    text = render_report(default_report(), fmt)
    if fmt == "json":
        assert json.loads(text)["exclusion_rules"]["excluded"] == ["a", "c", "d"]
        return
    assert "Pre-registered exclusion rules" in text
    assert "Exclusion rules: sensitivity" in text
    assert "Attention checks and annotators under the rules" in text
    variant = "min\\_median\\_seconds only" if fmt == "latex" else "min_median_seconds only"
    assert variant in text


def test_a_report_from_a_file_says_it_has_no_rules():
    report = BUILD(ratings())
    for table in (rules_table, rules_sensitivity_table, annotators_under_rules_table):
        assert table(report).rows == []
        assert "No exclusion rules in this report" in table(report).note
