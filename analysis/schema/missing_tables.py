"""The missing-data section's tables (report key ``missing_data``, issue 33.2): the assumption,
skips and flags, the test of skipping against the pair and the sensitivity analysis, and the
skips and flags by pair and by annotator (pseudonyms, as everywhere in the report)."""

from __future__ import annotations

from analysis.schema.questions import question_keys
from analysis.schema.report_types import MissingData, Report, SlotRow
from analysis.schema.tables import Table, interval, num, p_value, pct

SHOWN_ROWS = 10
"""The summary table lists this many pairs and annotators with the most skips and flags."""


def missing_table(report: Report) -> Table | None:
    """Skips and flags, the test and the sensitivity analysis (None: a report without the
    section, e.g. one built before it existed)."""
    found = report.get("missing_data")
    if found is None:
        return None
    rows = [
        ["Assignments (rated or skipped)", str(found["n_assigned"])],
        ["Skipped", f"{found['n_skipped']} ({pct(found['skipped_share'])})"],
        ["Flagged", f"{found['n_flagged']} ({pct(found['flagged_share'])})"],
        ["Skipping related to the pair?", _test_cell(found)],
    ]
    sensitivity = found["sensitivity"]
    if sensitivity is not None:
        for dim in question_keys(report):
            result = sensitivity["dimensions"][dim]
            figures = f"{num(result['estimate'], signed=True)} {interval(result['ci95'])}"
            rows.append([f"{dim}, skipped ratings as ties", f"{figures}: {result['verdict']}"])
    rows += [["Most skipped pair: " + r["name"], _slot_cell(r)] for r in _top(found["by_pair"])]
    rows += [["Annotator " + r["name"], _slot_cell(r)] for r in _top(found["by_annotator"])]
    return Table(["", "value"], rows, note=found["words"])


def _test_cell(found: MissingData) -> str:
    test = found["skip_test"]
    if test["p"] is None:
        return "not tested"
    answer = "yes" if test["related"] else "no sign"
    return f"{answer} (Spearman rho {num(test['rho'])}, permutation p {p_value(test['p'])})"


def _top(rows: list[SlotRow]) -> list[SlotRow]:
    return [r for r in rows if r["n_skipped"] or r["n_flagged"]][:SHOWN_ROWS]


def _slot_cell(row: SlotRow) -> str:
    return (
        f"{row['n_skipped']} of {row['n_assigned']} skipped ({pct(row['skipped_share'])}), "
        f"{row['n_flagged']} flagged"
    )
