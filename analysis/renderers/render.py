"""Rendering a report as JSON, Markdown or HTML."""

from __future__ import annotations

import json

from analysis.methods import methods_paragraph
from analysis.renderers.html_report import render_html
from analysis.renderers.latex import render_latex
from analysis.renderers.sections import drawn_sections
from analysis.schema import tables
from analysis.schema.report_types import Report
from analysis.schema.tables import Table
from annotate.markup import markdown_cell, markdown_line

FORMATS = ("json", "md", "html", "latex")


def render_report(report: Report, fmt: str) -> str:
    """Render ``report`` (from :func:`analysis.build_report`) as ``json``, ``md`` or ``html``."""
    if fmt == "json":
        return render_json(report)
    if fmt in ("md", "markdown"):
        return render_markdown(report)
    if fmt == "html":
        return render_html(report)
    if fmt in ("latex", "tex"):
        return render_latex(report)
    raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")


def render_json(report: Report) -> str:
    """Indented JSON; fails rather than writing NaN (the report holds None instead)."""
    return json.dumps(report, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def markdown_table(table: Table) -> str:
    numeric = table.numeric or [False] * len(table.headers)
    lines = [
        "| " + " | ".join(markdown_cell(h) for h in table.headers) + " |",
        "|" + "|".join("---:" if right else "---" for right in numeric) + "|",
    ]
    lines += ["| " + " | ".join(markdown_cell(c) for c in row) + " |" for row in table.rows]
    if table.note:
        lines += ["", markdown_line(table.note)]
    return "\n".join(lines)


def render_markdown(report: Report) -> str:
    parts = ["# Validation report", markdown_cell(tables.summary_line(report))]
    for _, _, heading, table in drawn_sections(report):
        parts += [f"## {heading}", markdown_table(table)]
    parts += ["## Methods paragraph", markdown_cell(methods_paragraph(report))]
    return "\n\n".join(parts) + "\n"
