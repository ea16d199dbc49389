"""Static, paper-ready figures (matplotlib): SVG, PDF or PNG.

Short human labels, the Okabe-Ito colour-blind-safe palette, and layouts that leave room for
every label (constrained layout, horizontal dimension axes). matplotlib is imported here only,
with the non-interactive Agg backend, so the report itself never needs it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from analysis.schema.questions import question_keys
from analysis.schema.report_types import Interval, Report
from analysis.schema.style import (
    CHOSEN_COLOUR,
    HUMAN_COLOUR,
    LEVEL_COLOURS,
    MODEL_COLOUR,
    OKABE_ITO,
    REJECTED_COLOUR,
    VERDICT_COLOURS,
    short_labels,
)

STATIC_FORMATS = ("svg", "pdf", "png")
VERDICT_WORDS = {
    "tie": "tie",
    "diverges": "diverges",
    "inconclusive": "inconclusive",
    "insufficient_data": "insufficient data",
}


def _half_widths(
    values: Sequence[float | None], cis: Sequence[Interval | None]
) -> list[list[float]]:
    lower = [0.0 if v is None or c is None else v - c[0] for v, c in zip(values, cis, strict=True)]
    upper = [0.0 if v is None or c is None else c[1] - v for v, c in zip(values, cis, strict=True)]
    return [lower, upper]


def _numbers(values: Sequence[float | None]) -> list[float]:
    return [float("nan") if v is None else v for v in values]


def differences_figure(report: Report) -> Figure:
    """Chosen − rejected per dimension: 95% CI (thin), TOST interval (thick), margin band."""
    dims = report["dimensions"]
    fig, ax = plt.subplots(figsize=(6.0, 2.8), layout="constrained")
    y = list(range(len(question_keys(report))))[::-1]
    margins = [dims[d]["margin"] for d in question_keys(report)]
    margin = max(margins)
    ax.axvspan(-margin, margin, color=OKABE_ITO["green"], alpha=0.12, lw=0, label="margin")
    ax.axvline(0, color=OKABE_ITO["black"], lw=0.8, ls=":")
    for i, dim in enumerate(question_keys(report)):
        r = dims[dim]
        colour = VERDICT_COLOURS[r["verdict"]]
        ax.errorbar(
            _numbers([r["mean_diff"]]),
            [y[i]],
            xerr=_half_widths([r["mean_diff"]], [r["ci95"]]),
            fmt="o",
            color=colour,
            capsize=3,
            lw=1,
        )
        ax.errorbar(
            _numbers([r["mean_diff"]]),
            [y[i]],
            xerr=_half_widths([r["mean_diff"]], [r["ci_tost"]]),
            fmt="none",
            color=colour,
            lw=3,
        )
        ax.annotate(
            VERDICT_WORDS[r["verdict"]],
            (1.01, y[i]),
            xycoords=("axes fraction", "data"),
            va="center",
            fontsize=8,
            color=colour,
        )
    ax.set_yticks(y, short_labels(report))
    ax.set_xlabel("Mean chosen − rejected (scale points)")
    ax.set_title(f"Paired differences (n = {report['n_pairs']} pairs)", fontsize=10)
    ax.spines[["top", "right"]].set_visible(False)
    return fig


def means_figure(report: Report) -> Figure:
    """Mean score of chosen and rejected per dimension with 95% CIs."""
    dims = report["dimensions"]
    fig, ax = plt.subplots(figsize=(6.0, 3.0), layout="constrained")
    x = range(len(question_keys(report)))
    for offset, key, ci_key, label, colour in (
        (-0.12, "mean_chosen", "ci95_chosen", "chosen", CHOSEN_COLOUR),
        (0.12, "mean_rejected", "ci95_rejected", "rejected", REJECTED_COLOUR),
    ):
        values = [dims[d][key] for d in question_keys(report)]  # type: ignore[literal-required]
        cis = [dims[d][ci_key] for d in question_keys(report)]  # type: ignore[literal-required]
        ax.errorbar(
            [i + offset for i in x],
            _numbers(values),
            yerr=_half_widths(values, cis),
            fmt="o",
            color=colour,
            capsize=3,
            label=label,
        )
    s = report["settings"]
    ax.set_xticks(list(x), short_labels(report))
    ax.set_ylim(s["scale_min"] - 0.2, s["scale_max"] + 0.2)
    ax.set_ylabel("Mean score")
    ax.legend(frameon=False, ncols=2, loc="upper center", bbox_to_anchor=(0.5, 1.15))
    ax.spines[["top", "right"]].set_visible(False)
    return fig


def alpha_figure(report: Report) -> Figure:
    """Krippendorff's alpha per dimension (ordinal, interval, on the difference) with CIs and
    the 0.667 / 0.8 thresholds."""
    dims = report["dimensions"]
    fig, ax = plt.subplots(figsize=(6.0, 3.0), layout="constrained")
    width = 0.26
    series = (
        ("ordinal", "alpha_ordinal", "alpha_ordinal_ci95"),
        ("interval", "alpha_interval", "alpha_interval_ci95"),
        ("difference", "alpha_difference", "alpha_difference_ci95"),
    )
    for k, (level, key, ci_key) in enumerate(series):
        values = [dims[d][key] for d in question_keys(report)]  # type: ignore[literal-required]
        cis = [dims[d][ci_key] for d in question_keys(report)]  # type: ignore[literal-required]
        ax.bar(
            [i + (k - 1) * width for i in range(len(question_keys(report)))],
            _numbers(values),
            width,
            yerr=_half_widths(values, cis),
            color=LEVEL_COLOURS[level],
            capsize=2,
            label=level,
        )
    for threshold, text in ((0.667, "0.667 tentative"), (0.8, "0.8 reliable")):
        ax.axhline(threshold, color=OKABE_ITO["grey"], ls="--", lw=0.8)
        ax.annotate(text, (1.0, threshold), xycoords=("axes fraction", "data"), fontsize=7)
    ax.set_xticks(range(len(question_keys(report))), short_labels(report))
    ax.set_ylabel("Krippendorff's α")
    ax.set_ylim(min(0.0, ax.get_ylim()[0]), 1.0)
    ax.legend(frameon=False, ncols=3, loc="upper center", bbox_to_anchor=(0.5, 1.15))
    ax.spines[["top", "right"]].set_visible(False)
    return fig


def position_figure(report: Report) -> Figure:
    """Chosen − rejected per dimension by the side chosen was shown on (equal bars: no bias)."""
    bias = report["position_bias"]
    fig, ax = plt.subplots(figsize=(6.0, 3.0), layout="constrained")
    width = 0.36
    for k, (key, label, colour) in enumerate(
        (
            ("diff_chosen_on_a", "chosen shown on A", OKABE_ITO["sky_blue"]),
            ("diff_chosen_on_b", "chosen shown on B", OKABE_ITO["vermillion"]),
        )
    ):
        values = [bias[d][key] for d in question_keys(report)]  # type: ignore[literal-required]
        ax.bar(
            [i + (k - 0.5) * width for i in range(len(question_keys(report)))],
            _numbers(values),
            width,
            color=colour,
            label=label,
        )
    ax.axhline(0, color=OKABE_ITO["black"], lw=0.8)
    ax.set_xticks(range(len(question_keys(report))), short_labels(report))
    ax.set_ylabel("Mean chosen − rejected")
    ax.legend(frameon=False, ncols=2, loc="upper center", bbox_to_anchor=(0.5, 1.15))
    ax.spines[["top", "right"]].set_visible(False)
    return fig


def domain_accuracy_figure(report: Report) -> Figure:
    """Strict human accuracy overall and per domain (95% Wilson CIs), with the reward-model
    reference line."""
    names = ["all", *report["by_domain"]]
    figures = [report["human_accuracy"]["strict"]] + [
        d["human_accuracy"]["strict"] for d in report["by_domain"].values()
    ]
    values = [f["value"] for f in figures]
    fig, ax = plt.subplots(figsize=(6.0, 3.0), layout="constrained")
    ax.bar(
        range(len(names)),
        _numbers(values),
        0.6,
        yerr=_half_widths(values, [f["ci95"] for f in figures]),
        color=[OKABE_ITO["grey"]] + [CHOSEN_COLOUR] * (len(names) - 1),
        capsize=3,
    )
    reference = report["human_accuracy"]["reward_model_reference"]
    ax.axhline(
        reference,
        color=OKABE_ITO["vermillion"],
        ls="--",
        lw=0.8,
        label=f"best reward model {reference:.1%} (published)",
    )
    ax.legend(frameon=False, loc="upper center", bbox_to_anchor=(0.5, 1.15))
    ax.set_xticks(range(len(names)), [n.replace("_", " ") for n in names], rotation=20, ha="right")
    ax.set_ylim(0, 1.05)
    ax.yaxis.set_major_formatter(lambda v, _: f"{v:.0%}")
    ax.set_ylabel("Strict human accuracy")
    ax.spines[["top", "right"]].set_visible(False)
    return fig


def model_accuracy_figure(report: Report) -> Figure:
    """Each imported reward model's accuracy on the rated pairs beside the humans' on the same
    pairs (95% CIs); without models, the published reference only."""
    models = report.get("reward_models") or {}
    names = list(models)
    fig, ax = plt.subplots(figsize=(6.0, 3.0), layout="constrained")
    width = 0.36
    series = (
        ("model", "accuracy_rated", "accuracy_rated_ci95", MODEL_COLOUR),
        ("humans, same pairs", "human_accuracy_same_pairs", "human_accuracy_same_pairs_ci95",
         HUMAN_COLOUR),
    )  # fmt: skip
    for k, (label, key, ci_key, colour) in enumerate(series):
        values = [models[n][key] for n in names]  # type: ignore[literal-required]
        cis = [models[n][ci_key] for n in names]  # type: ignore[literal-required]
        ax.bar(
            [i + (k - 0.5) * width for i in range(len(names))],
            _numbers(values),
            width,
            yerr=_half_widths(values, cis),
            color=colour,
            capsize=3,
            label=label,
        )
    if not names:
        reference = report["human_accuracy"]["reward_model_reference"]
        ax.axhline(reference, color=OKABE_ITO["vermillion"], ls="--", lw=0.8)
        ax.set_title(f"No model imported; published best {reference:.2%}", fontsize=9)
    ax.set_xticks(range(len(names)), names, rotation=20, ha="right")
    ax.set_ylim(0, 1.05)
    ax.yaxis.set_major_formatter(lambda v, _: f"{v:.0%}")
    ax.set_ylabel("Accuracy on rated pairs")
    if names:
        ax.legend(frameon=False, ncols=2, loc="upper center", bbox_to_anchor=(0.5, 1.15))
    ax.spines[["top", "right"]].set_visible(False)
    return fig


STATIC_FIGURES: dict[str, Callable[[Report], Figure]] = {
    "differences": differences_figure,
    "means": means_figure,
    "alpha": alpha_figure,
    "position": position_figure,
    "accuracy_by_domain": domain_accuracy_figure,
    "reward_models": model_accuracy_figure,
}


def export_figures(report: Report, folder: Path, formats: Sequence[str] = ("svg",)) -> list[Path]:
    """Write every static figure in each format to ``folder``; returns the files written."""
    unknown = [f for f in formats if f not in STATIC_FORMATS]
    if unknown:
        raise ValueError(f"unknown figure format {unknown[0]!r}; expected svg, pdf or png")
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, build in STATIC_FIGURES.items():
        fig = build(report)
        try:
            for fmt in formats:
                path = folder / f"{name}.{fmt}"
                fig.savefig(path, format=fmt, dpi=300 if fmt == "png" else None)
                written.append(path)
        finally:
            plt.close(fig)
    return written
