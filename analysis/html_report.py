"""One self-contained HTML file: tables plus plotly charts, plotly.js inlined once.

All text from the data (annotator names, domains, pair ids, study names) is HTML-escaped in the
tables; inside the charts plotly's JSON encoder escapes ``<`` as ``\\u003c``.
"""

from __future__ import annotations

import html

from . import tables
from .charts import all_figures
from .tables import Table

STYLE = """
body { font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; margin: 2rem auto;
       max-width: 1200px; padding: 0 1rem; color: #222; }
h1 { margin-bottom: .2rem; } h2 { margin-top: 2.2rem; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: .6rem 0; font-size: .92rem; }
th, td { border: 1px solid #ddd; padding: .3rem .55rem; vertical-align: top; }
th { background: #f4f4f4; text-align: left; } td.num { text-align: right;
       font-variant-numeric: tabular-nums; }
.note { color: #555; font-size: .88rem; } .summary { color: #444; }
.verdict { display: inline-block; padding: .4rem .9rem; border-radius: 4px; font-weight: 600;
           margin: .8rem 0; } .ok { background: #e3f4e1; color: #1b5e20; }
.fail { background: #fde8e6; color: #8e1c12; }
.scroll { max-height: 28rem; overflow: auto; }
"""

CHART_SECTIONS = {
    "means": "Chosen vs rejected",
    "differences": "Chosen vs rejected",
    "distribution": "Chosen vs rejected",
    "alpha": "Inter-annotator agreement",
    "domain_accuracy": "By domain",
    "domain_verdicts": "By domain",
    "position": "Position bias",
    "annotators": "Annotators",
}


def esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def html_table(table: Table, scroll: bool = False) -> str:
    numeric = table.numeric or [False] * len(table.headers)
    head = "".join(f"<th>{esc(h)}</th>" for h in table.headers)
    body = []
    for row in table.rows:
        cells = "".join(
            f'<td class="num">{esc(c)}</td>' if right else f"<td>{esc(c)}</td>"
            for c, right in zip(row, numeric, strict=True)
        )
        body.append(f"<tr>{cells}</tr>")
    out = f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    if scroll:
        out = f'<div class="scroll">{out}</div>'
    if table.note:
        out += f'<p class="note">{esc(table.note)}</p>'
    return out


def _charts_html(report: dict) -> dict[str, list[str]]:
    """Chart divs grouped by section; the first one carries the inlined plotly.js."""
    grouped: dict[str, list[str]] = {}
    for i, (name, fig) in enumerate(all_figures(report).items()):
        div = fig.to_html(
            full_html=False,
            include_plotlyjs=(i == 0),
            div_id=f"chart-{name}",
            config={"displaylogo": False, "responsive": True},
        )
        grouped.setdefault(CHART_SECTIONS[name], []).append(div)
    return grouped


def render_html(report: dict) -> str:
    charts = _charts_html(report)
    checks = report["checks"]
    verdict_class = "ok" if checks["validated"] else "fail"
    verdict_text = "Validated" if checks["validated"] else "Not validated"
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>Validation report – {esc(', '.join(report['studies']))}</title>",
        f"<style>{STYLE}</style></head><body>",
        "<h1>Validation report</h1>",
        f'<p class="summary">{esc(tables.summary_line(report))}</p>',
        f'<div class="verdict {verdict_class}">{esc(verdict_text)}</div>',
        html_table(tables.verdict_table(report)),
        "<h2>Chosen vs rejected</h2>",
        html_table(tables.dimension_table(report)),
        *charts.get("Chosen vs rejected", []),
        "<h2>Human accuracy</h2>",
        html_table(tables.accuracy_table(report)),
        "<h2>By domain</h2>",
        html_table(tables.domain_table(report)),
        *charts.get("By domain", []),
        "<h2>Inter-annotator agreement</h2>",
        html_table(tables.agreement_table(report)),
        *charts.get("Inter-annotator agreement", []),
        "<h2>Position bias</h2>",
        html_table(tables.position_table(report)),
        *charts.get("Position bias", []),
        "<h2>Annotators</h2>",
        html_table(tables.annotator_table(report), scroll=True),
        *charts.get("Annotators", []),
        "<h2>Exclusions</h2>",
        html_table(tables.exclusion_table(report)),
        "<h2>Methods</h2>",
        "<dl>",
        *(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in report.get("methods", {}).items()),
        "</dl>",
        "</body></html>",
    ]
    return "\n".join(parts) + "\n"
