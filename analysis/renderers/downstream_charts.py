"""The downstream section's plotly figures (results page): the scaling curve, human and judge
coverage by k per reward model, and the judge against the humans per response."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import plotly.graph_objects as go

from analysis.schema.style import OKABE_ITO

LEGEND_BELOW = {"orientation": "h", "y": -0.25, "x": 0}  # leaves the plot its width on a phone
PALETTE = [OKABE_ITO[c] for c in ("blue", "orange", "green", "vermillion", "purple", "sky_blue")]


def _bar(values: list[float | None], cis: list[Any]) -> dict[str, object]:
    plus = [None if c is None or v is None else c[1] - v for v, c in zip(values, cis, strict=True)]
    minus = [None if c is None or v is None else v - c[0] for v, c in zip(values, cis, strict=True)]
    return {"type": "data", "array": plus, "arrayminus": minus, "symmetric": False}


def scaling_figure(summary: Mapping[str, Any]) -> go.Figure:
    """Human mean coverage by k beside the judge's, per reward model, with 95% intervals."""
    fig = go.Figure()
    models = sorted({p["model"] for p in summary["scaling"]})
    ks_all = sorted({p["k"] for p in summary["scaling"]})
    for number, model in enumerate(models):
        points = [p for p in summary["scaling"] if p["model"] == model]
        ks = [p["k"] for p in points]
        colour = PALETTE[number % len(PALETTE)]
        for who, dash in (("human", "solid"), ("judge", "dot")):
            values = [p[f"{who}_mean"] for p in points]
            fig.add_trace(
                go.Scatter(
                    x=ks, y=values, name=f"{model} ({who})", mode="lines+markers",
                    line={"color": colour, "dash": dash},
                    error_y=_bar(values, [p[f"{who}_ci"] for p in points]),
                )
            )  # fmt: skip
    fig.update_layout(
        title="Scaling curve: rubric coverage by best-of-k",
        template="plotly_white",
        xaxis={"title": "k (log scale)", "type": "log", "tickvals": ks_all, "ticktext": ks_all},
        yaxis={"title": "mean coverage (0-2)", "range": [0, 2.1]},
        legend=LEGEND_BELOW,
        height=460,
    )
    return fig


def judge_human_figure(summary: Mapping[str, Any]) -> go.Figure:
    """The judge's average against the humans' mean coverage, one point per rated response,
    with the diagonal of agreement."""
    points = summary["judge_average_vs_humans"].get("points", [])
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(x=[0, 2], y=[0, 2], mode="lines", name="agreement",
                   line={"color": OKABE_ITO["grey"], "dash": "dash"})
    )  # fmt: skip
    fig.add_trace(
        go.Scatter(
            x=[p[0] for p in points],
            y=[p[1] for p in points],
            mode="markers",
            name="rated responses",
            marker={"color": OKABE_ITO["vermillion"], "opacity": 0.6},
        )
    )
    fig.update_layout(
        title="LLM judge against the humans, per response",
        template="plotly_white",
        height=380,
        xaxis={"title": "humans' mean coverage (0-2)", "range": [-0.05, 2.05]},
        yaxis={"title": "judge's average (0-2)", "range": [-0.05, 2.05]},
        legend=LEGEND_BELOW,
    )
    return fig
