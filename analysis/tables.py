"""The report's tables as plain text cells, shared by the Markdown and HTML renderers.

Cells are unescaped strings; each renderer escapes them for its own format.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from annotate.vocabulary import DIMENSIONS, GENERAL_DIMENSIONS

from .report_types import DimensionResult, Interval, Report

DASH = "–"


@dataclass(frozen=True)
class Table:
    headers: list[str]
    rows: list[list[str]]
    numeric: list[bool] = field(default_factory=list)  # right-align these columns
    note: str = ""


def num(value: float | None, digits: int = 2, signed: bool = False) -> str:
    if value is None:
        return DASH
    return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"


def p_value(value: float | None) -> str:
    if value is None:
        return DASH
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def interval(ci: Interval | None, digits: int = 2) -> str:
    return DASH if ci is None else f"[{num(ci[0], digits)}, {num(ci[1], digits)}]"


def pct(value: float | None, digits: int = 1) -> str:
    return DASH if value is None else f"{100 * value:.{digits}f}%"


def pct_interval(ci: Interval | None) -> str:
    return DASH if ci is None else f"[{pct(ci[0])}, {pct(ci[1])}]"


def yes_no(flag: bool) -> str:
    return "yes" if flag else "no"


def _p_for_verdict(result: DimensionResult, key: str, holm: bool) -> str:
    if key == "tost_p":
        return p_value(result["tost_p_adjusted"] if holm else result["tost_p"])
    return p_value(result["wilcoxon_p_adjusted"] if holm else result["wilcoxon_p"])


def dimension_table(report: Report) -> Table:
    """The paper table: one row per dimension."""
    holm = report["settings"]["holm"]
    rows = []
    for dim in DIMENSIONS:
        r = report["dimensions"][dim]
        rows.append(
            [
                dim,
                num(r["mean_chosen"]),
                num(r["mean_rejected"]),
                f"{num(r['mean_diff'], signed=True)} {interval(r['ci95'])}",
                _p_for_verdict(r, "tost_p", holm),
                _p_for_verdict(r, "wilcoxon_p", holm),
                num(r["d_z"]),
                num(r["alpha_ordinal"], 3),
                num(r["alpha_interval"], 3),
                r["verdict"],
            ]
        )
    settings = report["settings"]
    note = (
        f"Per-pair means (annotators averaged), {report['n_pairs']} pairs. TOST margin "
        f"±{settings['margin']:g}, alpha {settings['alpha']:g}."
    )
    if holm:
        note += " p-values are Holm-adjusted across the four dimensions (raw values in JSON)."
    return Table(
        headers=[
            "Dimension",
            "Mean chosen",
            "Mean rejected",
            "Diff [95% CI]",
            "TOST p",
            "Wilcoxon p",
            "d_z",
            "α ord",
            "α int",
            "Verdict",
        ],
        rows=rows,
        numeric=[False, True, True, True, True, True, True, True, True, False],
        note=note,
    )


def verdict_table(report: Report) -> Table:
    checks = report["checks"]
    return Table(
        headers=["Check", "Result"],
        rows=[
            [
                f"General quality ties ({', '.join(GENERAL_DIMENSIONS)})",
                yes_no(checks["general_quality_tie"]),
            ],
            ["Rubric alignment diverges", yes_no(checks["rubric_alignment_diverges"])],
            ["Validated", yes_no(checks["validated"])],
        ],
    )


def accuracy_table(report: Report) -> Table:
    acc = report["human_accuracy"]
    return Table(
        headers=["Measure", "Value"],
        rows=[
            ["Human accuracy (ties count as 0.5)", pct(acc["accuracy"])],
            ["Strict accuracy (chosen higher)", pct(acc["strict_accuracy"])],
            ["95% Wilson CI (strict)", pct_interval(acc["ci95"])],
            [
                "Pairs: chosen higher / tie / rejected higher",
                f"{acc['n_chosen_higher']} / {acc['n_ties']} / {acc['n_rejected_higher']}",
            ],
            *_reference_row(report),
        ],
    )


def _reference_row(report: Report) -> list[list[str]]:
    """The published reward-model figure, only while no model's results are in the report."""
    if report.get("reward_models"):
        return []
    return [
        [
            "Reward-model reference (published)",
            pct(report["human_accuracy"]["reward_model_reference"], 2),
        ]
    ]


def agreement_table(report: Report) -> Table:
    rows = []
    for dim in DIMENSIONS:
        r = report["dimensions"][dim]
        rows.append(
            [
                dim,
                f"{num(r['alpha_ordinal'], 3)} {interval(r['alpha_ordinal_ci95'], 3)}",
                f"{num(r['alpha_interval'], 3)} {interval(r['alpha_interval_ci95'], 3)}",
                str(r["alpha_units"]),
            ]
        )
    pref = report["agreement"]["preference"]
    rows.append(
        [
            "rubric preference (nominal)",
            f"{num(pref['alpha_nominal'], 3)} {interval(pref['ci95'], 3)}",
            DASH,
            str(pref["n_pairs"]),
        ]
    )
    n_boot = report["settings"]["n_boot"]
    note = f"95% bootstrap CIs over units ({n_boot} resamples)." if n_boot else "No bootstrap."
    return Table(
        headers=["Dimension", "α ordinal [95% CI]", "α interval [95% CI]", "Units"],
        rows=rows,
        numeric=[False, True, True, True],
        note=note,
    )


def domain_table(report: Report) -> Table:
    rows = []
    for domain, d in report["by_domain"].items():
        cells = [domain, str(d["n_pairs"])]
        for dim in DIMENSIONS:
            r = d["dimensions"][dim]
            cells.append(f"{r['verdict']} ({num(r['mean_diff'], signed=True)})")
        acc = d["human_accuracy"]
        cells += [
            yes_no(d["checks"]["validated"]),
            f"{pct(acc['accuracy'])} {pct_interval(acc['ci95'])}",
        ]
        rows.append(cells)
    return Table(
        headers=["Domain", "Pairs", *DIMENSIONS, "Validated", "Human accuracy [95% CI strict]"],
        rows=rows,
        numeric=[False, True] + [False] * (len(DIMENSIONS) + 1) + [True],
        note="Cells: verdict (mean chosen − rejected).",
    )


def position_table(report: Report) -> Table:
    rows = []
    for dim in DIMENSIONS:
        r = report["position_bias"][dim]
        rows.append(
            [
                dim,
                str(r["n_ratings"]),
                num(r["mean_a"]),
                num(r["mean_b"]),
                num(r["mean_diff"], signed=True),
                p_value(r["wilcoxon_p"]),
            ]
        )
    return Table(
        headers=["Dimension", "Pair-ratings", "Mean A", "Mean B", "A − B", "Wilcoxon p"],
        rows=rows,
        numeric=[False, True, True, True, True, True],
    )


def annotator_table(report: Report) -> Table:
    rows = []
    for a in report["annotators"]:
        rows.append(
            [
                str(a["annotator"]),
                str(a["n_pairs"]),
                num(a["median_seconds"], 0),
                pct(a["straight_lining"]),
                f"{pct(a['modal_share'])} ({a['modal_value']})",
                pct(a["exact"]),
                pct(a["within_one"]),
                num(a["mean_abs_diff_from_others"]),
            ]
        )
    return Table(
        headers=[
            "Annotator",
            "Pairs",
            "Median s/pair",
            "Straight-lining",
            "Modal share (value)",
            "Exact agr.",
            "Within-one agr.",
            "|score − others|",
        ],
        rows=rows,
        numeric=[False] + [True] * 7,
        note="Agreement pooled over each annotator's shared units with all others.",
    )


def exclusion_table(report: Report) -> Table:
    rows = []
    for dim, e in report["exclusions"]["dimensions"].items():
        listed = ", ".join(e["pairs"]) + (" …" if e["pairs_truncated"] else "")
        rows.append(
            [
                dim,
                str(e["n_excluded"]),
                str(e["no_chosen_scores"]),
                str(e["no_rejected_scores"]),
                str(e["no_scores"]),
                listed or DASH,
            ]
        )
    return Table(
        headers=["Dimension", "Excluded pairs", "No chosen", "No rejected", "No scores", "Pairs"],
        rows=rows,
        numeric=[False, True, True, True, True, False],
        note=f"{report['exclusions']['incomplete_pair_ratings']} incomplete pair-ratings kept."
        + _admin_exclusions(report),
    )


def _admin_exclusions(report: Report) -> str:
    listed = report["exclusions"].get("excluded_pairs", [])
    if not listed:
        return ""
    pairs = "; ".join(f"{e['pair_id']} ({e['reason']}, by {e['by']})" for e in listed)
    return f" Left out of every figure by an admin: {pairs}."


def summary_line(report: Report) -> str:
    s = report["settings"]
    studies = ", ".join(report["studies"]) or "(unnamed)"
    return (
        f"Study: {studies} · {report['n_pairs']} pairs · {report['n_annotators']} annotators · "
        f"{report['n_scores']} scores · scale {s['scale_min']}–{s['scale_max']} · margin "
        f"±{s['margin']:g} · alpha {s['alpha']:g} · Holm: {yes_no(s['holm'])} · "
        f"bootstrap: {s['n_boot']}"
    )


def methods_table(report: Report) -> Table:
    """How each figure is computed, as the report states it."""
    return Table(
        headers=["Figure", "Method"],
        rows=[[name, text] for name, text in report["methods"].items()],
    )
