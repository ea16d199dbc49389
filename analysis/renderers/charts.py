"""Plotly figures built from a report dict (reused by the HTML report and the results page)."""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from analysis.models.model_report import model_accuracy_figure
from analysis.schema.questions import question_keys
from analysis.schema.report_types import DimensionResult, Interval, Report
from analysis.schema.style import (
    CHOSEN_COLOUR,
    LEVEL_COLOURS,
    OKABE_ITO,
    REJECTED_COLOUR,
    VERDICT_COLOURS,
    short_labels,
)

ALPHA_THRESHOLDS = (0.667, 0.8)


def _errors(values: list[float | None], cis: list[Interval | None]) -> dict[str, object]:
    """error_x/error_y spec for asymmetric CIs; missing CIs draw no bar."""
    plus = [
        None if ci is None or v is None else ci[1] - v for v, ci in zip(values, cis, strict=True)
    ]
    minus = [
        None if ci is None or v is None else v - ci[0] for v, ci in zip(values, cis, strict=True)
    ]
    return {"type": "data", "array": plus, "arrayminus": minus, "symmetric": False}


def _layout(fig: go.Figure, title: str, **kwargs: object) -> go.Figure:
    fig.update_layout(title=title, template="plotly_white", height=380, **kwargs)
    return fig


def _response_mean(result: DimensionResult, response: str) -> float | None:
    return result["mean_chosen"] if response == "chosen" else result["mean_rejected"]


def _response_ci(result: DimensionResult, response: str) -> Interval | None:
    return result["ci95_chosen"] if response == "chosen" else result["ci95_rejected"]


def means_figure(report: Report) -> go.Figure:
    """Mean score of chosen and rejected per dimension with 95% CIs of the per-pair means."""
    dims = report["dimensions"]
    fig = go.Figure()
    for offset, response, colour in (
        (-0.1, "chosen", CHOSEN_COLOUR),
        (0.1, "rejected", REJECTED_COLOUR),
    ):
        values = [_response_mean(dims[d], response) for d in dims]
        cis = [_response_ci(dims[d], response) for d in dims]
        fig.add_trace(
            go.Scatter(
                x=[i + offset for i in range(len(question_keys(report)))],
                y=values,
                name=response,
                mode="markers",
                marker={"size": 11, "color": colour},
                error_y=_errors(values, cis),
                customdata=list(question_keys(report)),
                hovertemplate="%{customdata}: %{y:.2f}<extra>" + response + "</extra>",
            )
        )
    s = report["settings"]
    return _layout(
        fig,
        "Mean score, chosen vs rejected (95% CI)",
        xaxis={
            "tickvals": list(range(len(report["dimensions"]))),
            "ticktext": short_labels(report),
        },
        yaxis={"title": "mean score", "range": [s["scale_min"] - 0.2, s["scale_max"] + 0.2]},
    )


def difference_figure(report: Report) -> go.Figure:
    """Mean paired difference with 95% CI per dimension against the equivalence margin."""
    dims = report["dimensions"]
    values = [dims[d]["mean_diff"] for d in dims]
    verdicts = [dims[d]["verdict"] for d in dims]
    fig = go.Figure(
        go.Scatter(
            x=values,
            y=short_labels(report),
            mode="markers",
            marker={"size": 12, "color": [VERDICT_COLOURS[v] for v in verdicts]},
            error_x=_errors(values, [dims[d]["ci95"] for d in dims]),
            text=verdicts,
            hovertemplate="%{y}: %{x:.3f} (%{text})<extra></extra>",
            showlegend=False,
        )
    )
    margin = report["settings"]["margin"]
    fig.add_vrect(x0=-margin, x1=margin, fillcolor=OKABE_ITO["green"], opacity=0.1, line_width=0)
    fig.add_vline(x=0, line_dash="dot", line_color="#555")
    return _layout(
        fig,
        f"Chosen − rejected (95% CI); shaded: equivalence margin ±{margin:g}",
        xaxis={"title": "mean paired difference (scale points)"},
        yaxis={"autorange": "reversed"},
    )


def distribution_figure(report: Report) -> go.Figure:
    """Histogram of per-pair differences (chosen − rejected) per dimension."""
    fig = make_subplots(
        rows=1,
        cols=len(question_keys(report)),
        subplot_titles=short_labels(report),
        shared_yaxes=True,
    )
    for i, dim in enumerate(question_keys(report), start=1):
        hist = report["dimensions"][dim]["diff_histogram"]
        colour = VERDICT_COLOURS[report["dimensions"][dim]["verdict"]]
        fig.add_trace(
            go.Bar(
                x=hist["centres"], y=hist["counts"], marker_color=colour, showlegend=False, name=dim
            ),
            row=1,
            col=i,
        )
        fig.update_xaxes(title_text="chosen − rejected", row=1, col=i)
    fig.update_yaxes(title_text="pairs", row=1, col=1)
    return _layout(fig, "Distribution of per-pair differences", bargap=0.05)


def alpha_figure(report: Report) -> go.Figure:
    """Krippendorff's alpha per dimension (ordinal, interval) with bootstrap CIs."""
    dims = report["dimensions"]
    fig = go.Figure()
    levels = (
        (
            "ordinal",
            LEVEL_COLOURS["ordinal"],
            [dims[d]["alpha_ordinal"] for d in dims],
        ),
        (
            "interval",
            LEVEL_COLOURS["interval"],
            [dims[d]["alpha_interval"] for d in dims],
        ),
    )
    intervals = {
        "ordinal": [dims[d]["alpha_ordinal_ci95"] for d in dims],
        "interval": [dims[d]["alpha_interval_ci95"] for d in dims],
    }
    for level, colour, values in levels:
        cis = intervals[level]
        fig.add_trace(
            go.Bar(
                x=short_labels(report),
                y=values,
                name=level,
                marker_color=colour,
                error_y=_errors(values, cis),
            )
        )
    pref = report["agreement"]["preference"]
    fig.add_trace(
        go.Bar(
            x=["rubric preference"],
            y=[pref["alpha_nominal"]],
            name="nominal (preference)",
            marker_color=LEVEL_COLOURS["difference"],
            error_y=_errors([pref["alpha_nominal"]], [pref["ci95"]]),
        )
    )
    for threshold in ALPHA_THRESHOLDS:
        fig.add_hline(y=threshold, line_dash="dash", line_color="#999")
    return _layout(
        fig, "Krippendorff's alpha (95% bootstrap CI)", barmode="group", yaxis={"title": "alpha"}
    )


def domain_accuracy_figure(report: Report) -> go.Figure:
    """Strict human accuracy per domain and overall, with the reward-model reference."""
    names = ["all", *report["by_domain"]]
    accs = [report["human_accuracy"]["strict"]] + [
        d["human_accuracy"]["strict"] for d in report["by_domain"].values()
    ]
    values = [a["value"] for a in accs]
    fig = go.Figure(
        go.Bar(
            x=names,
            y=values,
            marker_color=["#444"] + [CHOSEN_COLOUR] * (len(names) - 1),
            error_y=_errors(values, [a["ci95"] for a in accs]),  # the strict share's interval
            showlegend=False,
        )
    )
    reference = report["human_accuracy"]["reward_model_reference"]
    fig.add_hline(
        y=reference,
        line_dash="dash",
        line_color=OKABE_ITO["vermillion"],
        annotation_text=f"best reward model {reference:.2%}",
    )
    return _layout(
        fig,
        "Strict human accuracy by domain (95% Wilson CI)",
        yaxis={"range": [0, 1.05], "tickformat": ".0%"},
    )


def domain_verdict_figure(report: Report) -> go.Figure:
    """Mean difference per domain and dimension, coloured by size, labelled with the verdict."""
    domains = list(report["by_domain"])
    z: list[list[float | None]] = []
    text: list[list[str]] = []
    for domain in domains:
        dims = report["by_domain"][domain]["dimensions"]
        z.append([dims[d]["mean_diff"] for d in dims])
        text.append(
            [
                f"{dims[d]['verdict']}<br>{_signed(dims[d]['mean_diff'])}"
                for d in question_keys(report)
            ]
        )
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=short_labels(report),
            y=domains,
            text=text,
            texttemplate="%{text}",
            colorscale="RdBu",
            reversescale=True,
            zmid=0,
            colorbar={"title": "chosen − rejected"},
        )
    )
    return _layout(fig, "Verdict by domain and dimension", yaxis={"autorange": "reversed"})


def _signed(value: float | None) -> str:
    return "–" if value is None else f"{value:+.2f}"


def position_figure(report: Report) -> go.Figure:
    """Chosen − rejected per dimension by the side chosen was shown on (equal bars: no bias)."""
    bias = report["position_bias"]
    fig = go.Figure()
    sides = (
        (
            [bias[d]["diff_chosen_on_a"] for d in bias],
            "chosen shown on A",
            "sky_blue",
        ),
        (
            [bias[d]["diff_chosen_on_b"] for d in bias],
            "chosen shown on B",
            "vermillion",
        ),
    )
    for values, name, colour in sides:
        fig.add_trace(
            go.Bar(
                x=short_labels(report),
                y=values,
                name=name,
                marker_color=OKABE_ITO[colour],
            )
        )
    return _layout(
        fig,
        "Position bias: chosen − rejected by side shown",
        barmode="group",
        yaxis={"title": "mean chosen − rejected"},
    )


def annotator_figure(report: Report) -> go.Figure:
    """Each annotator: exact agreement with the others against median seconds per pair."""
    rows = report["annotators"]
    fig = go.Figure(
        go.Scatter(
            x=[a["median_seconds"] for a in rows],
            y=[a["exact"] for a in rows],
            mode="markers",
            text=[str(a["annotator"]) for a in rows],
            marker={
                "size": 10,
                "color": [a["straight_lining"] for a in rows],
                "colorscale": [[0, CHOSEN_COLOUR], [1, OKABE_ITO["vermillion"]]],
                "line": {"width": 1, "color": "#333"},
                "colorbar": {"title": "straight-lining"},
                "cmin": 0,
                "cmax": 1,
            },
            hovertemplate="%{text}<br>median %{x:.0f} s<br>exact agreement %{y:.1%}<extra></extra>",
        )
    )
    return _layout(
        fig,
        "Annotators: agreement with others vs time per pair",
        xaxis={"title": "median seconds per pair"},
        yaxis={"title": "exact agreement with others", "tickformat": ".0%"},
    )


FIGURES = {
    "means": means_figure,
    "differences": difference_figure,
    "distribution": distribution_figure,
    "alpha": alpha_figure,
    "domain_accuracy": domain_accuracy_figure,
    "domain_verdicts": domain_verdict_figure,
    "position": position_figure,
    "annotators": annotator_figure,
    "reward_models": model_accuracy_figure,
}


def all_figures(report: Report) -> dict[str, go.Figure]:
    """Every chart of the report, by name, in display order."""
    return {name: build(report) for name, build in FIGURES.items()}
