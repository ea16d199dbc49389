"""Rendering a report dict as JSON, Markdown or HTML."""

from __future__ import annotations

import html
import json

from . import tables
from .html_report import render_html
from .tables import Table

FORMATS = ("json", "md", "html")


def render_report(report: dict, fmt: str) -> str:
    """Render ``report`` (from :func:`analysis.build_report`) as ``json``, ``md`` or ``html``."""
    if fmt == "json":
        return render_json(report)
    if fmt in ("md", "markdown"):
        return render_markdown(report)
    if fmt == "html":
        return render_html(report)
    raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")


def render_json(report: dict) -> str:
    """Indented JSON; fails rather than writing NaN (the report holds None instead)."""
    return json.dumps(report, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def markdown_cell(text: str) -> str:
    """Escape a table cell: HTML specials (Markdown renders raw HTML) and pipes."""
    return html.escape(text, quote=False).replace("|", "\\|").replace("\n", " ")


def markdown_table(table: Table) -> str:
    numeric = table.numeric or [False] * len(table.headers)
    lines = [
        "| " + " | ".join(markdown_cell(h) for h in table.headers) + " |",
        "|" + "|".join("---:" if right else "---" for right in numeric) + "|",
    ]
    lines += ["| " + " | ".join(markdown_cell(c) for c in row) + " |" for row in table.rows]
    if table.note:
        lines += ["", markdown_cell(table.note)]
    return "\n".join(lines)


def render_markdown(report: dict) -> str:
    checks = report["checks"]
    verdict = "VALIDATED" if checks["validated"] else "NOT VALIDATED"
    sections = [
        "# Validation report",
        markdown_cell(tables.summary_line(report)),
        "## Chosen vs rejected by dimension",
        markdown_table(tables.dimension_table(report)),
        f"## Study verdict: {verdict}",
        markdown_table(tables.verdict_table(report)),
        "## Human accuracy",
        markdown_table(tables.accuracy_table(report)),
        "## By domain",
        markdown_table(tables.domain_table(report)),
        "## Inter-annotator agreement (Krippendorff's alpha)",
        markdown_table(tables.agreement_table(report)),
        "## Position bias (side A vs side B)",
        markdown_table(tables.position_table(report)),
        "## Annotators",
        markdown_table(tables.annotator_table(report)),
        "## Exclusions",
        markdown_table(tables.exclusion_table(report)),
    ]
    return "\n\n".join(sections) + "\n"
