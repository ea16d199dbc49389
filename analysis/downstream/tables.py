"""The downstream section's tables as text cells (`analysis.schema.tables.Table`), from the
report's `downstream` key (`analysis.downstream.summary.downstream_summary`, JSON-ready); None
when the report has no downstream section. The renderers list them (`analysis.renderers.sections`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from analysis.schema.report_types import Report
from analysis.schema.tables import DASH, Table, interval, num, p_value, pct


def downstream_of(report: Report | Mapping[str, Any]) -> dict[str, Any] | None:
    found = cast(Mapping[str, Any], report).get("downstream")
    return cast(dict[str, Any], found) if found else None


def comparison_table(report: Report | Mapping[str, Any]) -> Table | None:
    """Each comparison: human gain (rubric alignment, points) and the judge's (0-2 mean)."""
    found = downstream_of(report)
    if found is None or not found["comparisons"]:
        return None
    rows = []
    for c in found["comparisons"]:
        human, judge = c["human"], c["judge"]
        rows.append(
            [
                str(c["expected"]),
                str(c["baseline"]),
                str(human["n_questions"]),
                pct(human["share_identical"]),
                num(human["gain"]["estimate"], signed=True),
                interval(human["gain"]["ci"]),
                pct(human["share_expected_higher"]),
                num(judge["gain"]["estimate"], signed=True),
                interval(judge["gain"]["ci"]),
            ]
        )
    return Table(
        ["expected", "baseline", "questions", "identical", "human gain", "human 95% CI",
         "annotators preferring expected", "judge gain", "judge 95% CI"],
        rows,
        [False, False, True, True, True, False, True, True, False],
        note="Human gain: mean rubric-alignment difference (expected minus baseline, scale "
        "points) over the questions, identical outputs counted as zero; interval from "
        + _method(found)
        + ". Judge gain: the LLM judge's mean score (0-2) difference on the questions it "
        "answered properly for both.",
    )  # fmt: skip


def _method(found: Mapping[str, Any]) -> str:
    methods = {c["human"]["gain"]["method"] for c in found["comparisons"]}
    return ", ".join(sorted(str(m) for m in methods)) or DASH


def scaling_table(report: Report | Mapping[str, Any]) -> Table | None:
    found = downstream_of(report)
    if found is None or not found["scaling"]:
        return None
    rows = [
        [str(p["model"]), str(p["k"]), num(p["human_mean"]), interval(p["human_ci"]),
         str(p["n_human"]), num(p["judge_mean"]), interval(p["judge_ci"]), str(p["n_judge"]),
         str(p["n_unusable"])]
        for p in found["scaling"]
    ]  # fmt: skip
    return Table(
        ["reward model", "k", "human coverage", "human 95% CI", "human questions",
         "judge mean", "judge 95% CI", "judge questions", "judge answers not usable"],
        rows,
        [False, True, True, False, True, True, False, True, True],
        note="Mean coverage of the rubric aspects on the 0/1/2 scale: the annotators' aspect "
        "checklist, and the benchmark's LLM judge (its eval files), by best-of-k.",
    )  # fmt: skip


def judge_table(report: Report | Mapping[str, Any]) -> Table | None:
    found = downstream_of(report)
    if found is None:
        return None
    a, c = found["judge_agreement"], found["judge_average_vs_humans"]
    rows = [
        ["units (response x aspect)", str(a["n_units"])],
        ["exact agreement", pct(a["exact_agreement"])],
        ["quadratic-weighted kappa", num(a["kappa_quadratic"])],
        ["ordinal alpha, judge as one more coder", num(a["alpha_ordinal_with_judge"])],
        ["Spearman: judge average vs human mean coverage", num(c.get("spearman_rho"))],
        ["  its p", p_value(c.get("p"))],
        ["  responses", str(c.get("n", 0))],
    ]
    unusable = ", ".join(f"{k}: {v}" for k, v in sorted(found["judge_unusable"].items()))
    return Table(
        ["judge against the humans", "value"],
        rows,
        [False, True],
        note="Judge answers not usable (kept, not scored): " + (unusable or "none") + ".",
    )


def claim_table(report: Report | Mapping[str, Any]) -> Table | None:
    found = downstream_of(report)
    claim = None if found is None else found["claim"]
    if claim is None:
        return None
    rows = []
    for label in ("human", "judge"):
        part = claim[label]
        rows.append(
            [
                f"{label} gain",
                num(part["kendall_tau"]),
                interval(part["kendall_tau_ci"]),
                p_value(part["p_tau"]),
                num(part["spearman_rho"]),
                interval(part["spearman_rho_ci"]),
                p_value(part["p_rho"]),
            ]
        )
    exact = "exact" if claim["human"]["exact"] else "estimated"
    return Table(
        [
            "accuracy vs",
            "Kendall tau",
            "tau 95% CI",
            "tau p",
            "Spearman rho",
            "rho 95% CI",
            "rho p",
        ],
        rows,
        [False, True, False, True, True, False, True],
        note=f"{claim['sentence']} Over the models {', '.join(claim['models'])}; {exact} "
        "permutation p-values; intervals from resampling questions and annotators, the "
        "models fixed.",
    )


SECTIONS = (
    ("Comparisons", comparison_table),
    ("Scaling curve", scaling_table),
    ("LLM judge against the humans", judge_table),
    ("The correlation claim", claim_table),
)


def markdown(summary: Mapping[str, Any]) -> str:
    """The downstream figures alone as Markdown (both command lines print it)."""
    report = {"downstream": summary}
    parts = []
    for title, build in SECTIONS:
        table = build(report)
        if table is None:
            continue
        lines = [f"## {title}", "", "| " + " | ".join(table.headers) + " |"]
        lines.append("|" + "---|" * len(table.headers))
        lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |"
                  for row in table.rows]  # fmt: skip
        parts.append("\n".join([*lines, "", table.note, ""]))
    return "\n".join(parts)
