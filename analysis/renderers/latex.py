"""LaTeX rendering: every report table as a booktabs table, and the methods paragraph.

The output is a fragment to ``\\input`` into a paper; it needs ``\\usepackage{booktabs}``.
All text from the data (domains, annotator names, study names) is escaped.
"""

from __future__ import annotations

import re

from analysis.methods import methods_paragraph
from analysis.renderers.sections import drawn_sections
from analysis.schema.report_types import Report
from analysis.schema.tables import Table, summary_line

SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
    "−": "--",
    "–": "--",
    "±": r"$\pm$",
    "α": r"$\alpha$",
    "…": r"\ldots{}",
    "·": r"\textperiodcentered{}",
}
SPECIAL_RE = re.compile("|".join(re.escape(k) for k in SPECIAL))


def latex_escape(text: str) -> str:
    """Escape LaTeX specials and the few non-ASCII symbols the tables use."""
    return SPECIAL_RE.sub(lambda m: SPECIAL[m.group(0)], text)


def latex_table(table: Table, caption: str, label: str) -> str:
    """One booktabs table (numeric columns right-aligned) with its note under it."""
    numeric = table.numeric or [False] * len(table.headers)
    spec = "".join("r" if right else "l" for right in numeric)
    lines = [
        r"\begin{table}[htbp]",
        r"\centering\small",
        rf"\begin{{tabular}}{{{spec}}}",
        r"\toprule",
        " & ".join(latex_escape(h) for h in table.headers) + r" \\",
        r"\midrule",
        *(" & ".join(latex_escape(c) for c in row) + r" \\" for row in table.rows),
        r"\bottomrule",
        r"\end{tabular}",
        rf"\caption{{{latex_escape(caption)}{_note(table)}}}",
        rf"\label{{tab:{label}}}",
        r"\end{table}",
    ]
    return "\n".join(lines)


def _note(table: Table) -> str:
    return f" {latex_escape(table.note)}" if table.note else ""


def render_latex(report: Report) -> str:
    """All sections as booktabs tables, then the methods paragraph."""
    parts = [
        "% Validation report (prb-annotate); needs \\usepackage{booktabs}",
        f"% {latex_escape(summary_line(report))}",
    ]
    for number, _, heading, table in drawn_sections(report):
        parts.append(latex_table(table, heading, f"prb-{number}"))
    parts += [r"\paragraph{Methods.}", latex_escape(methods_paragraph(report))]
    return "\n\n".join(parts) + "\n"
