"""The report's tables as plain text cells, shared by the Markdown and HTML renderers.

Why 592 lines: one short function per report table: every table's layout is found here.

Cells are unescaped strings; each renderer escapes them for its own format.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from analysis.schema.plan_words import WORDS, time_words, value_words
from analysis.schema.questions import question_keys, target_key_of, tie_keys, verdict_claims
from analysis.schema.report_types import Interval, Report

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


def minute(iso: str | None, missing: str = DASH) -> str:
    """An ISO time as the tables show it: '2026-12-04 18:32 UTC' (`missing` for none)."""
    return time_words(iso, missing)


def yes_no(flag: bool) -> str:
    return "yes" if flag else "no"


def singular_words(factors: Sequence[str]) -> str:
    """A singular fit said in words ("" when not singular)."""
    if not factors:
        return ""
    which = " and ".join(f"{name} variance" for name in factors)
    verb = "are" if len(factors) > 1 else "is"
    return (
        f"singular fit: the {which} {verb} estimated at 0 (a boundary fit); its interval and "
        "tests use Kenward-Roger df, which keep that variance's uncertainty"
    )


VERDICT_LABELS = {
    "tie": "tie",
    "diverges": "diverges",
    "inconclusive": "inconclusive",
    "insufficient_data": "insufficient data",
}


PAGE_VERDICTS = {
    "tie": "ties",
    "diverges": "diverges",
    "inconclusive": "inconclusive",
}
NO_VERDICT_NOTES = ("fewer than the minimum", "zero variance", "margin undefined")


def verdict_words(report: Report, labels: dict[str, str]) -> str:
    """Each dimension's verdict in words ("factuality ties, ..."), the dimensions without
    enough data said once with the reason the report gives (issue 34.5: "insufficient data"
    four times and no reason)."""
    said: list[str] = []
    missing: dict[str, list[str]] = {}
    for dim, r in report["dimensions"].items():
        label = labels.get(dim, dim).lower()
        if r["verdict"] == "insufficient_data":
            missing.setdefault(insufficient_reason(r["notes"], r["n_pairs"]), []).append(label)
        else:
            said.append(f"{label} {PAGE_VERDICTS[r['verdict']]}")
    said += [f"no verdict for {_and(dims)}: {why}" for why, dims in missing.items()]
    return "; ".join(said)


def insufficient_reason(notes: Sequence[str], n_pairs: int) -> str:
    """Why a dimension has no verdict, from its notes (its complete pairs, no variance)."""
    for note in notes:
        if any(marker in note for marker in NO_VERDICT_NOTES):
            return note.removesuffix(": no verdict")
    return f"{n_pairs} complete pairs; the tests are undefined"


def _and(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def dimension_table(report: Report) -> Table:
    """The paper table: one row per dimension, the primary (mean-based) tests."""
    rows = []
    for dim in question_keys(report):
        r = report["dimensions"][dim]
        rows.append(
            [
                r["label"],
                num(r["mean_chosen"]),
                num(r["mean_rejected"]),
                f"{num(r['mean_diff'], signed=True)} {interval(r['ci95'])}",
                p_value(r["tost_p"]),
                num(r["equivalence_bound"]),
                p_value(r["superiority_p"]),
                f"{num(r['d_z'])} {interval(r['d_z_ci95'])}",
                str(r["n_pairs"]),
                VERDICT_LABELS[r["verdict"]],
            ]
        )
    s = report["settings"]
    unit = "SD" if s["margin_unit"] == "sd" else "points"
    sesoi = s.get("smallest_effect")
    sesoi_words = "the margin" if sesoi is None else f"{sesoi:g} points"
    note = (
        f"Model diff, its CI, TOST p and superiority p: one annotator's chosen - rejected on "
        "one pair, pairs and annotators random (crossed mixed model, REML, Satterthwaite df; "
        "Kenward-Roger df on a singular fit), "
        f"{report['n_pairs']} pairs. Means and d_z: per-pair means (annotators averaged), raw; "
        "the model weighs each pair and annotator by what their ratings tell, so Model diff "
        "need not equal Mean chosen - Mean rejected. TOST "
        f"margin ±{s['margin']:g} {unit}, alpha {s['alpha']:g}; equivalence bound = smallest "
        "margin (points) at which TOST holds; superiority p one-sided (chosen - rejected above "
        f"the smallest effect of interest, {sesoi_words}). General dimensions tie on TOST; "
        "rubric alignment diverges on superiority. No correction: 'validated' is an "
        "intersection-union test."
    )
    note += _singular_sentence(report)
    return Table(
        headers=[
            "Dimension",
            "Mean chosen",
            "Mean rejected",
            "Model diff [95% CI]",
            "TOST p",
            "Equiv. bound",
            "Superiority p",
            "d_z [95% CI]",
            "Pairs",
            "Verdict",
        ],
        rows=rows,
        numeric=[False, True, True, True, True, True, True, True, True, False],
        note=note,
    )


def _singular_sentence(report: Report) -> str:
    """Each dimension whose primary fit is singular, said in words ("" when none is)."""
    said = []
    for dim in question_keys(report):
        r = report["dimensions"][dim]
        factors = r.get("primary", {}).get("singular", [])
        if factors:
            said.append(f"{r['label']}: {singular_words(factors)}.")
    return (" " + " ".join(said)) if said else ""


def sensitivity_table(report: Report) -> Table:
    """Rank-based sensitivity analyses beside the mean-based verdict."""
    rows = []
    for dim in question_keys(report):
        r = report["dimensions"][dim]
        rows.append(
            [
                r["label"],
                f"{num(r['hodges_lehmann'], signed=True)} {interval(r['hodges_lehmann_ci95'])}",
                p_value(r["wilcoxon_p"]),
                r["wilcoxon_method"] or DASH,
                p_value(r["sign_p"]),
            ]
        )
    return Table(
        headers=["Dimension", "Hodges-Lehmann [95% CI]", "Wilcoxon p", "Method", "Sign test p"],
        rows=rows,
        numeric=[False, True, True, False, True],
        note="Two-sided; these test a pseudo-median or median, not the mean, and do not enter "
        "the verdict.",
    )


def margin_table(report: Report) -> Table:
    """Verdict sensitivity to the equivalence margin."""
    m = report["margin_sensitivity"]
    unit = "SD" if m["unit"] == "sd" else "points"
    rows = []
    for dim in tie_keys(report):
        label = report["dimensions"][dim]["label"]
        rows.append([label] + ["tie" if ok else DASH for ok in m["ties"][dim]])
    rows.append(["Joint verdict holds"] + [yes_no(ok) for ok in m["validated"]])
    note = (
        f"Margin in {unit}. A sensitivity table: the verdict is read at the pre-registered "
        f"margin ({report['settings']['margin']:g}); a margin picked from this grid after "
        "seeing the data is not pre-registered."
    )
    record = report["margin_record"]
    if record is not None:
        note += (
            f" Margin set at {minute(record['set_at'], 'unknown time')}; first rating at "
            f"{minute(record['first_rating_at'])}: {record['note']}."
        )
        if record["changed_after_data"]:
            note += " CHANGED AFTER DATA ARRIVED."
    return Table(
        headers=["Margin", *[f"{x:g}" for x in m["margins"]]],
        rows=rows,
        numeric=[False] + [False] * len(m["margins"]),
        note=note,
    )


def mixed_table(report: Report) -> Table:
    """The crossed mixed model beside the primary verdict."""
    mm = report["mixed_model"]
    rows = []
    for dim in question_keys(report):
        r = mm["dimensions"][dim]
        rows.append(
            [
                report["dimensions"][dim]["label"],
                f"{num(r['estimate'], signed=True)} {interval(r['ci95'])}",
                f"{num(r['side_a_advantage'], signed=True)} {interval(r['side_a_advantage_ci95'])}",
                num(r["var_pair"], 3),
                num(r["var_annotator"], 3),
                num(r["var_residual"], 3),
                VERDICT_LABELS[r["verdict"]],
                VERDICT_LABELS[report["dimensions"][dim]["verdict"]],
            ]
        )
    return Table(
        headers=[
            "Dimension",
            "Chosen − rejected [95% CI]",
            "Side A advantage [95% CI]",
            "Var pair",
            "Var annotator",
            "Var residual",
            "Mixed verdict",
            "Primary verdict",
        ],
        rows=rows,
        numeric=[False, True, True, True, True, True, False, False],
        note="Secondary analysis: per-rating chosen − rejected with crossed random pair and "
        "annotator effects (REML, Satterthwaite t intervals). " + mm["note"],
    )


def verdict_table(report: Report) -> Table:
    checks = report["checks"]
    caveat = checks["reliability_caveat"]
    rubric_alpha = report["dimensions"][target_key_of(report)]["alpha_difference"]
    ties, diverges = verdict_claims(report)
    rows = [
        [ties, yes_no(checks["general_quality_tie"])],
        [diverges, yes_no(checks["rubric_alignment_diverges"])],
        ["Validated (intersection-union, no correction needed)", yes_no(checks["validated"])],
        [
            "Reliability caveat (alpha of the rubric difference < 0.667)",
            "not assessed"
            if caveat is None
            else f"{yes_no(caveat)} (α difference {num(rubric_alpha, 3)}, raw agreement "
            f"{pct(checks.get('raw_agreement'))})",
        ],
    ]
    if "reliability" in checks:
        rows.append(["Reliability in words", checks["reliability"]])
    differs = [
        f"{dim} ties but chosen is significantly {r['differs']}"
        for dim, r in report["dimensions"].items()
        if r["verdict"] == "tie" and r.get("differs")
    ]
    if differs:
        rows.append(["Ties that still differ from 0", "; ".join(differs)])
    if checks["insufficient_data"]:
        rows.append(["Insufficient data", ", ".join(checks["insufficient_data"])])
    plan = report.get("plan")
    if plan is not None:
        rows.append(["Analysis plan", plan["note"]])
    simulated = report.get("simulated")
    if simulated is not None:
        rows.append(["Simulated ratings", simulated["note"]])
    return Table(headers=["Check", "Result"], rows=rows)


def plan_table(report: Report) -> Table | None:
    """The pre-registered analysis plan, what this report used, and every change since it was
    set (None: a report built without a plan)."""
    plan = report.get("plan")
    if plan is None:
        return None
    s = report["settings"]
    sesoi = plan["smallest_effect"]
    used_sesoi = s.get("smallest_effect")
    rows = [
        ["Equivalence margin", f"{plan['margin']:g} {plan['margin_unit']}",
         f"{s['margin']:g} {s['margin_unit']}"],
        ["Smallest effect of interest",
         "the margin" if sesoi is None else f"{sesoi:g}",
         "the margin" if used_sesoi is None else f"{used_sesoi:g}"],
        ["Alpha", f"{plan['alpha']:g}", f"{s['alpha']:g}"],
        ["Planned pairs", DASH if plan["planned_pairs"] is None else str(plan["planned_pairs"]),
         f"{plan['n_pairs_analysed']} analysed" + (" (INTERIM)" if plan["interim"] else "")],
        ["Stopping rule", plan["stopping_rule"] or DASH, DASH],
    ]  # fmt: skip
    look = plan.get("sequential")
    if look is not None:
        rows.append(["Group-sequential plan", f"{look['n_looks']} looks, "
                     f"{look['alpha_spending']} spending", look["words"]])  # fmt: skip
    internal = plan.get("internal_pilot")
    if internal:
        rows.append(["Internal pilot", f"first stage {internal['first_stage_pairs']} pairs",
                     f"tie TOSTs at {internal['tie_alpha']:g}"])  # fmt: skip
    rows += [
        [f"Changed: {WORDS.get(c['setting'], c['setting'])}", value_words(c["before"]),
         f"{value_words(c['after'])} on {time_words(c['at'])}"
         + (" (AFTER DATA)" if c["after_data"] else "")]
        for c in plan["changes"]
    ]  # fmt: skip
    return Table(
        headers=["Setting", "Pre-registered", "This report"],
        rows=rows,
        note=f"Plan set at {time_words(plan['set_at'])}; first rating at "
        f"{time_words(plan['first_rating_at']) if plan['first_rating_at'] else DASH}. "
        f"{plan['note'][0].upper()}{plan['note'][1:]}.",
    )


def accuracy_table(report: Report) -> Table:
    acc = report["human_accuracy"]
    ties = acc["ties"]
    majority = acc["panel_majority"]
    rows = [
        [f["label"], pct(f["value"]), pct_interval(f["ci95"]), str(f["n"])]
        for f in (acc["single_annotator"], acc["strict"])
    ]
    rows.append(
        [
            "Single annotator rates both equally (tie share)",
            pct(ties["share"]),
            pct_interval(ties["ci95"]),
            str(ties["count"]),
        ]
    )
    rows.append(
        [
            majority["label"],
            pct(majority["value"]),
            pct_interval(majority["ci95"]),
            f"{majority['n']} pairs",
        ]
    )
    rows.extend(_reference_row(report))
    return Table(
        headers=["Measure", "Value", "95% CI", "Ratings"],
        rows=rows,
        numeric=[False, True, True, True],
        note="Headline: the probability that a single annotator puts chosen above rejected "
        "(ties as half), comparable to a reward model's accuracy; interval over pairs and "
        "annotators. The panel majority grows with the annotators per pair (Wilson interval "
        f"over pairs). Ratings: {acc['n_chosen_higher']} chosen higher / {acc['n_ties']} tie / "
        f"{acc['n_rejected_higher']} rejected higher.",
    )


def _reference_row(report: Report) -> list[list[str]]:
    """The published reward-model figure, only while no model's results are in the report."""
    if report.get("reward_models"):
        return []
    return [
        [
            "Reward-model reference (published accuracy)",
            pct(report["human_accuracy"]["reward_model_reference"], 2),
            DASH,
            DASH,
        ]
    ]


def agreement_table(report: Report) -> Table:
    rows = []
    for dim in question_keys(report):
        r = report["dimensions"][dim]
        rows.append(
            [
                dim,
                f"{num(r['alpha_ordinal'], 3)} {interval(r['alpha_ordinal_ci95'], 3)}",
                f"{num(r['alpha_interval'], 3)} {interval(r['alpha_interval_ci95'], 3)}",
                f"{num(r['alpha_difference'], 3)} {interval(r['alpha_difference_ci95'], 3)}",
                str(r["alpha_units"]),
                r["alpha_note"] or "",
            ]
        )
    pref = report["agreement"]["preference"]
    rows.append(
        [
            "rubric preference (nominal)",
            f"{num(pref['alpha_nominal'], 3)} {interval(pref['ci95'], 3)}",
            DASH,
            DASH,
            str(pref["n_pairs"]),
            "",
        ]
    )
    n_boot = report["settings"]["n_boot"]
    note = (
        f"95% bootstrap CIs over pairs and coders ({n_boot} resamples; variance pairs + "
        "coders - pair-ratings)."
        if n_boot
        else "No bootstrap."
    )
    note += (
        " α difference: interval alpha on each annotator's chosen − rejected score (units = "
        "pairs). Thresholds (Krippendorff, 2004): 0.667 tentative, 0.8 reliable."
    )
    return Table(
        headers=[
            "Dimension",
            "α ordinal [95% CI]",
            "α interval [95% CI]",
            "α difference [95% CI]",
            "Units",
            "Note",
        ],
        rows=rows,
        numeric=[False, True, True, True, True, False],
        note=note,
    )


def domain_table(report: Report) -> Table:
    rows = []
    for domain, d in report["by_domain"].items():
        cells = [domain, str(d["n_pairs"])]
        for dim in question_keys(report):
            r = d["dimensions"][dim]
            cells.append(f"{VERDICT_LABELS[r['verdict']]} ({num(r['mean_diff'], signed=True)})")
        acc = d["human_accuracy"]
        cells += [
            yes_no(d["checks"]["validated"]),
            f"{pct(acc['accuracy'])} {pct_interval(acc['ci95'])}",
        ]
        rows.append(cells)
    return Table(
        headers=["Domain", "Pairs", *question_keys(report), "Validated", "Human accuracy [95% CI]"],
        rows=rows,
        numeric=[False, True] + [False] * (len(question_keys(report)) + 1) + [True],
        note="Exploratory. Cells: verdict (mean chosen − rejected). "
        + (
            "Verdicts use Holm-adjusted p-values (one family: all domains and dimensions)."
            if report["settings"]["holm"]
            else "p-values not adjusted for multiplicity."
        ),
    )


def position_table(report: Report) -> Table:
    rows = []
    for dim in question_keys(report):
        r = report["position_bias"][dim]
        rows.append(
            [
                dim,
                str(r["n_ratings"]),
                num(r["diff_chosen_on_a"], signed=True),
                num(r["diff_chosen_on_b"], signed=True),
                f"{num(r['side_a_advantage'], signed=True)} {interval(r['side_a_advantage_ci95'])}",
                p_value(r["t_p"]),
                p_value(r["wilcoxon_p"]),
            ]
        )
    return Table(
        headers=[
            "Dimension",
            "Pair-ratings",
            "Chosen − rejected, chosen on A",
            "… chosen on B",
            "Side A advantage [95% CI]",
            "Welch p",
            "Rank-sum p",
        ],
        rows=rows,
        numeric=[False, True, True, True, True, True, True],
        note="Chosen − rejected per pair-rating, by the side chosen was shown on; side A "
        "advantage = half the difference (points).",
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
