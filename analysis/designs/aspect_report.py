"""The report's aspect-checklist tables (analysis/designs/aspects.py), for every renderer: chosen
against rejected over all aspects and by place in the rubric, the aspects where chosen does not
cover more, and the human-versus-judge agreement. Present only when the report has `aspects`."""

from __future__ import annotations

from analysis.schema.aspect_types import AspectComparison, AspectSummary
from analysis.schema.report_types import Report
from analysis.schema.tables import DASH, Table, num, p_value, pct

HEADERS = [
    "Aspects",
    "Pairs",
    "Chosen",
    "Rejected",
    "Difference [95% CI]",
    "Wilcoxon p",
    "Chosen covers more",
    "Ties",
    "rho with rubric diff.",
    "Alpha (ordinal)",
]


def has_aspects(report: Report) -> bool:
    return "aspects" in report


def _summary(report: Report) -> AspectSummary:
    return report["aspects"]


def _row(c: AspectComparison) -> list[str]:
    ci = c["ci95"]
    interval = f" [{num(ci[0], 2, True)}, {num(ci[1], 2, True)}]" if ci else ""
    return [
        c["label"],
        str(c["n_pairs"]),
        num(c["mean_chosen"]),
        num(c["mean_rejected"]),
        num(c["mean_diff"], 2, True) + interval,
        p_value(c["wilcoxon_p"]),
        pct(c["share_chosen_higher"]),
        pct(c["share_tied"]),
        num(c["with_rubric"]["spearman_rho"], 2, True),
        num(c["alpha_ordinal"], 3),
    ]


def aspect_table(report: Report) -> Table | None:
    """All aspects, then each place of the rubric ranked by its difference (None without)."""
    if not has_aspects(report):
        return None
    summary = _summary(report)
    rows = [_row(summary["overall"])] + [_row(c) for c in summary["by_aspect"]]
    note = (
        "Coverage 0 = not covered, 1 = partly, 2 = well (the benchmark judge's scale), "
        "annotators averaged per pair; 'Aspect k' is each pair's k-th rubric aspect, ranked by "
        "chosen - rejected. 'Chosen covers more': share of (pair, aspect) units. rho: Spearman "
        "correlation of the per-pair difference with the rubric-alignment score difference. "
        f"{summary['n_marks']} marks by {summary['n_annotators']} annotators on "
        f"{summary['n_pairs']} pairs."
    )
    return Table(HEADERS, rows, [False] + [True] * (len(HEADERS) - 1), note)


def weak_aspect_table(report: Report) -> Table | None:
    """The (pair, aspect) units where chosen does not cover the aspect more, worst first."""
    if not has_aspects(report):
        return None
    summary = _summary(report)
    rows = [
        [w["pair_id"], str(w["aspect_index"] + 1), w["aspect"], num(w["mean_chosen"]),
         num(w["mean_rejected"]), str(w["n_annotators"])]
        for w in summary["weakest"]
    ]  # fmt: skip
    shown = len(rows)
    note = f"{summary['n_weak']} such aspects" + (
        f"; the {shown} largest gaps shown." if shown < summary["n_weak"] else "."
    )
    if not rows:
        rows = [[DASH, DASH, "none: chosen covers every aspect more", DASH, DASH, DASH]]
    headers = ["Pair", "Aspect", "Aspect text", "Chosen", "Rejected", "Annotators"]
    return Table(headers, rows, [False, True, False, True, True, True], note)


def judge_table(report: Report) -> Table | None:
    """Each imported judge against the annotators' median, all aspects and by place."""
    if not has_aspects(report):
        return None
    judges = _summary(report)["judges"]
    rows = [
        [name, a["label"], str(a["n"]), pct(a["exact_agreement"]), num(a["kappa_quadratic"], 3)]
        for name, lines in judges.items()
        for a in lines
    ]
    if not rows:
        rows = [["no judge imported (prb-annotate judge import)", DASH, DASH, DASH, DASH]]
    note = (
        "Human consensus: the annotators' median coverage per pair, response and aspect (a half "
        "rounded toward 1). Kappa: Cohen's, quadratic weights."
    )
    headers = ["Judge", "Aspects", "n", "Exact agreement", "Weighted kappa"]
    return Table(headers, rows, [False, False, True, True, True], note)


def aspect_tables(report: Report) -> list[tuple[str, Table]]:
    """(title, table) of each aspect-checklist table, for the results page; none without it."""
    titled = (
        ("Aspect checklist: chosen vs rejected coverage", aspect_table(report)),
        ("Aspect checklist: aspects chosen does not cover more", weak_aspect_table(report)),
        ("Aspect checklist: annotators vs LLM judge", judge_table(report)),
    )
    return [(title, table) for title, table in titled if table is not None]
