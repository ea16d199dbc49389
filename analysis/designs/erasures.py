"""Participants' data erased from a study (issue 24.2): the study's erasure log in the report.

The figures are computed from the ratings left, so they are without the erased people; this
section says how many people's data went, when and why, and whether other ratings were in by
then (a verdict computed before may have changed). Nothing about who they were is known here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from analysis.schema.report_types import ErasureEntry, Report
from analysis.schema.tables import Table


def attach_erasures(report: Report, log: Sequence[Mapping[str, object]]) -> Report:
    """The report with its `erasures` key, when the study's erasure log has entries."""
    if not log:
        return report
    entries: list[ErasureEntry] = [
        {
            "at": str(e["at"]),
            "reason": str(e["reason"]),
            "n_scores": int(str(e["n_scores"])),
            "after_ratings": bool(e["after_ratings"]),
        }
        for e in log
    ]
    return {**report, "erasures": entries}


def erasure_table(report: Report) -> Table | None:
    """One row per erasure; None for a study without any."""
    log = report.get("erasures")
    if not log:
        return None
    later = sum(1 for e in log if e["after_ratings"])
    rows = [
        [e["at"], e["reason"], str(e["n_scores"]), "yes" if e["after_ratings"] else "no"]
        for e in log
    ]
    note = (
        f"{len(log)} participant(s)' data were erased, {later} of them after other ratings "
        "had come in (a verdict computed before may differ); every figure here is computed "
        "without them. A card published before and backups made before are not recalled."
    )
    return Table(
        ["Date", "Why", "Scores removed", "After other ratings"],
        rows,
        [False, False, True, False],
        note,
    )
