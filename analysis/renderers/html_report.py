"""One self-contained HTML file: tables plus plotly charts, plotly.js inlined once.

All text from the data (annotator names, domains, pair ids, study names) is HTML-escaped in the
tables; inside the charts plotly's JSON encoder escapes ``<`` as ``\\u003c``.
"""

from __future__ import annotations

import html

from analysis.methods import CAVEAT_WORDS
from analysis.renderers.charts import all_figures
from analysis.renderers.sections import drawn_sections
from analysis.schema import tables
from analysis.schema.report_types import Report
from analysis.schema.tables import Table

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
.caveat { background: #fff4d6; color: #6b4a00; margin-left: .6rem; }
.scroll { max-height: 28rem; overflow: auto; }
"""


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


def _chart_divs(report: Report) -> dict[str, str]:
    """Each chart's div by name; the first one carries the inlined plotly.js."""
    return {
        name: fig.to_html(
            full_html=False,
            include_plotlyjs=(i == 0),
            div_id=f"chart-{name}",
            config={"displaylogo": False, "responsive": True},
        )
        for i, (name, fig) in enumerate(all_figures(report).items())
    }


def render_html(report: Report) -> str:
    charts = _chart_divs(report)
    validated = report["checks"]["validated"]
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>Validation report – {esc(', '.join(report['studies']))}</title>",
        f"<style>{STYLE}</style></head><body>",
        "<h1>Validation report</h1>",
        f'<p class="summary">{esc(tables.summary_line(report))}</p>',
        f'<div class="verdict {"ok" if validated else "fail"}">'
        f"{'Validated' if validated else 'Not validated'}</div>",
        *(
            [f'<div class="verdict caveat">{esc(CAVEAT_WORDS)}</div>']
            if report["checks"]["reliability_caveat"]
            else []
        ),
    ]
    for _, section, heading, table in drawn_sections(report):
        parts.append(f"<h2>{esc(heading)}</h2>")
        parts.append(html_table(table, scroll=section.scroll))
        parts += [charts[name] for name in section.charts]
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
