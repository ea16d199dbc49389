"""The report's tables of the pre-registered exclusion rules (`analysis/renderers/sections.py` lists
them): the rules and their record, the sensitivity table, and the annotators under the rules
(the attention checks: gold pairs answered and failed)."""

from __future__ import annotations

from analysis.schema.questions import question_keys
from analysis.schema.report_types import Report
from analysis.schema.tables import DASH, VERDICT_LABELS, Table, minute, num, pct, yes_no

NOT_APPLIED = (
    "No exclusion rules in this report (built from a ratings file, without a study's rules "
    "and gold pairs)."
)


def rules_table(report: Report) -> Table:
    """One row per rule: threshold and the annotators it excludes; the record in the note."""
    found = report.get("exclusion_rules")
    headers = ["Rule", "Excludes an annotator when", "Annotators excluded", "Who"]
    if found is None:
        return Table(headers, [], [False, False, True, False], NOT_APPLIED)
    rows = [
        [r["rule"], r["description"], str(len(r["excluded"])), ", ".join(r["excluded"]) or DASH]
        for r in found["rules"]
    ]
    record = found["record"]
    when = f"Rules set at {minute(record['set_at'])}" if record["set_at"] else "Rules never set"
    first = minute(record["first_rating_at"], "none yet")
    earlier = f"; {len(record['history'])} earlier version(s)" if record["history"] else ""
    note = (
        f"{when}; first rating at {first}{earlier}: {record['note']}. "
        f"Excluded in the primary analysis: {', '.join(found['excluded']) or 'nobody'}. "
        f"{found['note']}"
    )
    if record["changed_after_data"]:
        note = "Changed after data arrived: the rules are not pre-registered. " + note
    return Table(headers, rows, [False, False, True, False], note)


def rules_sensitivity_table(report: Report) -> Table:
    """The headline figures with no rule, each rule alone, and all rules."""
    found = report.get("exclusion_rules")
    headers = [
        "Rules applied",
        "Excluded",
        "Annotators",
        "Pair-ratings",
        *question_keys(report),
        "Human accuracy",
        "Rubric α (ordinal)",
        "Validated",
    ]
    numeric = [False, False, True, True, *([False] * len(question_keys(report))), True, True, False]
    if found is None:
        return Table(headers, [], numeric, NOT_APPLIED)
    rows = []
    for row in found["sensitivity"]:
        dims = [
            f"{num(row['dimensions'][d]['mean_diff'], signed=True)} "
            f"{VERDICT_LABELS[row['dimensions'][d]['verdict']]}"
            for d in question_keys(report)
        ]
        rows.append(
            [
                row["variant"],
                ", ".join(row["excluded"]) or DASH,
                str(row["n_annotators"]),
                str(row["n_pair_ratings"]),
                *dims,
                pct(row["human_accuracy"]),
                num(row["rubric_alpha"], 3),
                yes_no(row["validated"]),
            ]
        )
    note = (
        "Per dimension: mean difference chosen − rejected and verdict. 'all rules' is the "
        "primary analysis. No bootstrap in this table."
    )
    return Table(headers, rows, numeric, note)


def annotators_under_rules_table(report: Report) -> Table:
    """Per annotator: the attention checks (gold pairs answered, failed), the other figures
    the rules read, and the rules that exclude them."""
    found = report.get("exclusion_rules")
    headers = [
        "Annotator",
        "Pairs rated",
        "Gold answered",
        "Gold failed",
        "Gold accuracy",
        "Straight-lined",
        "Median s/pair",
        "Excluded by",
    ]
    numeric = [False, True, True, True, True, True, True, False]
    if found is None:
        return Table(headers, [], numeric, NOT_APPLIED)
    rows = [
        [
            a["annotator"],
            str(a["pairs_rated"]),
            str(a["gold_answered"]),
            str(a["gold_failed"]),
            pct(a["gold_accuracy"]),
            pct(a["straightlining_share"]),
            num(a["median_seconds"], 1),
            "; ".join(a["reasons"]) or DASH,
        ]
        for a in found["annotators"]
    ]
    note = (
        "Gold pairs are the attention checks: pairs with a known answer mixed into the queues, "
        "answered by the rubric-alignment scores. Pairs rated, straight-lining and time include "
        "gold pairs."
    )
    return Table(headers, rows, numeric, note)
