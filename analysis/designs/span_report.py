"""The spans section as a table (`analysis.designs.spans`), for the results page, the Markdown
and HTML reports and the card; None for a study without span labels."""

from __future__ import annotations

from analysis.schema.report_types import Report
from analysis.schema.tables import DASH, Table, interval, num, p_value, pct

HEADERS = [
    "Span label",
    "Spans",
    "Chosen with a span",
    "Rejected with a span",
    "Difference",
    "95% CI",
    "McNemar p",
    "Token F1",
    "Annotator pairs",
]


def span_rows(report: Report) -> list[list[str]]:
    """One row of plain cells per span label (none without the section)."""
    return [
        [
            s["words"],
            str(s["n_spans"]),
            pct(s["chosen_share"]),
            pct(s["rejected_share"]),
            num(s["difference"], signed=True),
            interval(s["difference_ci"]),
            p_value(s["mcnemar_p"]),
            num(s["agreement"]["f1"]),
            str(s["agreement"]["n_compared"]) if s["agreement"]["n_compared"] else DASH,
        ]
        for s in report.get("spans") or []
    ]


NOTE = (
    "Share of ratings (a pair as one annotator rated it) whose chosen or rejected response "
    "carries at least one span of the label. Difference: chosen minus rejected, a pair's "
    "annotators averaged, with the t interval over pairs; McNemar's test (continuity-corrected) "
    "over the ratings. Token F1: agreement on where, between every two annotators of a pair "
    "(tokens: runs of non-space characters a span overlaps), pooled over responses."
)


def span_table(report: Report) -> Table | None:
    rows = span_rows(report)
    if not rows:
        return None
    return Table(HEADERS, rows, [False] + [True] * (len(HEADERS) - 1), NOTE)
