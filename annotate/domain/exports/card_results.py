"""The validation card's findings, from the report as a JSON-like dict: the verdict with its
figures, missing data, the analysis plan, agreement and human accuracy, reward models and the
downstream check, the spans (sections of :func:`annotate.domain.exports.publish.dataset_card`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from annotate.domain.exports.card_format import cell, interval, num, p_text, table
from annotate.domain.study.plan import internal_pilot_words
from annotate.questionnaire import (
    DEFAULT_QUESTIONNAIRE,
    Questionnaire,
    parse_questionnaire,
)

PLAN_FILE = "plan.json"  # the study's pre-registered analysis plan (annotate.domain.study.plan)


def _claims(questionnaire: Questionnaire) -> tuple[str, str]:
    """The verdict's two claims in the card's words."""
    if questionnaire == DEFAULT_QUESTIONNAIRE:
        return "general quality ties", "rubric alignment diverges"
    ties = ", ".join(questionnaire.tie_keys) or "none"
    diverges = ", ".join(questionnaire.diverge_keys) or "none"
    return f"every tie question ties ({ties})", f"every diverge question diverges ({diverges})"


def verdict_section(
    report: Mapping[str, Any], questionnaire: Questionnaire = DEFAULT_QUESTIONNAIRE
) -> list[str]:
    checks = report["checks"]
    ties, diverges = _claims(questionnaire)
    rows = [
        [
            dim,
            r["n_pairs"],
            num(r["mean_diff"]),
            interval(r["ci95"]),
            p_text(r["tost_p"]),
            p_text(r["wilcoxon_p"]),
            r["verdict"].replace("_", " "),  # "insufficient data", not the report's key
        ]
        for dim, r in report["dimensions"].items()
    ]
    headers = ["dimension", "pairs", "mean diff", "95% CI", "TOST p", "Wilcoxon p", "verdict"]
    differs = [
        f"{dim} ties within the margin yet chosen is significantly {r['differs']}"
        for dim, r in report["dimensions"].items()
        if r["verdict"] == "tie" and r.get("differs")
    ]
    word = "VALIDATED" if checks["validated"] else "NOT validated"
    plan = report.get("plan")
    if plan is not None and plan["interim"]:
        word = f"INTERIM: {word}"
    return [
        "## Verdict",
        "",
        *_plan_warning(plan),
        *_simulated_warning(report.get("simulated")),
        f"The benchmark's labels are **{word}** by these ratings: {ties} "
        f"({num(checks['general_quality_tie'])}), {diverges} "
        f"({num(checks['rubric_alignment_diverges'])}). Mean diff is chosen minus rejected; "
        "the intervals and tests treat pairs and annotators as random.",
        *(["", "; ".join(differs).capitalize() + "."] if differs else []),
        *(["", checks["reliability"]] if checks.get("reliability") else []),
        "",
        *table(headers, rows),
    ]


def missing_section(report: Mapping[str, Any]) -> list[str]:
    """Skips and flags, the missing-at-random assumption, its test and the sensitivity
    analysis in the verdict's words (report key ``missing_data``; none in an older report)."""
    found = report.get("missing_data")
    if found is None:
        return []
    test = found["skip_test"]
    rows = [
        ["skipped", f"{found['n_skipped']} of {found['n_assigned']}"],
        ["flagged", f"{found['n_flagged']} of {found['n_assigned']}"],
        ["skipping related to the pair: permutation p", p_text(test["p"])],
    ]
    return ["## Missing data", "", found["words"], "", *table(["", "value"], rows)]


def _plan_warning(plan: Mapping[str, Any] | None) -> list[str]:
    """The plan's standing above the verdict when it is not as pre-registered."""
    if plan is None or plan["note"] == "as pre-registered":
        return []
    return [f"**Analysis plan: {cell(plan['note'])}** (see Analysis plan).", ""]


def _sequential_line(look: Mapping[str, Any] | None) -> list[str]:
    """The group-sequential plan's look in the card: which look, the boundary, stop/continue."""
    if look is None:
        return []
    return [f"- **Group-sequential plan**: {cell(look['words'])}"]


def _internal_pilot_line(internal: Mapping[str, Any] | None, alpha: float) -> list[str]:
    """The pre-registered internal pilot in the card: its first stage and the tie alpha."""
    if not internal:
        return []
    return [f"- **Internal pilot**: {internal_pilot_words(dict(internal), alpha)}"]


def _closed_line(closed: Mapping[str, Any] | None) -> list[str]:
    """Enrolment closed by the plan at a look that said stop (the monitor), in the card."""
    if not closed:
        return []
    return [
        f"- **Enrolment closed by the plan**: {_minute(closed.get('at'))}, at look "
        f"{closed.get('look')} of {closed.get('n_looks')} ({closed.get('n_observed')} collected)"
    ]


def _minute(iso: str | None) -> str:
    """An ISO time in the card, to the minute ('2026-12-01 10:00 UTC'; the exact time is in
    plan.json)."""
    return "n/a" if not iso else iso[:16].replace("T", " ") + " UTC"


def _simulated_warning(simulated: Mapping[str, Any] | None) -> list[str]:
    """Made-up ratings said above the verdict: counted in it (the study opts in) or left out."""
    if simulated is None:
        return []
    return [f"**Simulated ratings: {simulated['note']}.**", ""]


def plan_section(report: Mapping[str, Any]) -> list[str]:
    """The pre-registered analysis plan, and each change with its before, after and time."""
    plan = report.get("plan")
    if plan is None:
        return []
    sesoi = plan["smallest_effect"]
    size = plan["planned_pairs"]
    lines = [
        "## Analysis plan",
        "",
        f"Pre-registered in prb-annotate (`{PLAN_FILE}`), last set {_minute(plan['set_at'])}; "
        f"first rating {_minute(plan['first_rating_at'])}.",
        "",
        f"- **Equivalence margin**: {num(plan['margin'], 2)} {plan['margin_unit']}",
        "- **Smallest effect of interest**: "
        + ("the margin" if sesoi is None else num(float(sesoi), 2)),
        f"- **Alpha**: {plan['alpha']:g}",
        "- **Planned sample size**: "
        + (f"{size} pairs ({plan['n_pairs_analysed']} analysed)" if size else "not set"),
        f"- **Stopping rule**: {cell(plan['stopping_rule']) or 'none'}",
        *_sequential_line(plan.get("sequential")),
        *_internal_pilot_line(plan.get("internal_pilot"), plan["alpha"]),
        *_closed_line(plan.get("enrolment_closed")),
        f"- **Standing**: {cell(plan['note'])}",
    ]
    changes = plan["changes"]
    if not changes:
        return [*lines, "", "No change to the plan since it was set."]
    rows = [
        [c["setting"], cell(c["before"]), cell(c["after"]), _minute(c["at"]),
         "after data" if c["after_data"] else "before data"]
        for c in changes
    ]  # fmt: skip
    return [*lines, "", *table(["setting", "from", "to", "when", ""], rows)]


def agreement_section(report: Mapping[str, Any]) -> list[str]:
    pref = report["agreement"]["preference"]
    rows = [
        [dim, num(r["alpha_ordinal"]), interval(r["alpha_ordinal_ci95"]), r["alpha_units"]]
        for dim, r in report["dimensions"].items()
    ]
    acc = report["human_accuracy"]
    return [
        "## Agreement",
        "",
        f"Preference agreement (nominal Krippendorff's alpha on each annotator's rubric "
        f"preference): {num(pref['alpha_nominal'])} {interval(pref['ci95'])}, "
        f"{pref['n_pairs']} pairs.",
        "",
        *table(["dimension", "ordinal alpha", "95% CI", "units"], rows),
        "",
        "## Human accuracy",
        "",
        *_accuracy_lines(acc, asked(report).target),
    ]


def _accuracy_lines(
    acc: Mapping[str, Any], target: str | None = DEFAULT_QUESTIONNAIRE.target
) -> list[str]:
    """Human accuracy as the report defines it (schema 3): a single annotator, ties as half,
    with the strict rate, the tie share and the panel majority beside it."""
    if "single_annotator" not in acc:  # a report of schema version 2
        return [f"Ties as half: **{num(acc['accuracy'])}** over {acc['n_pairs']} pairs."]
    majority = acc["panel_majority"]
    return [
        f"Probability that a single annotator scores the chosen response higher on "
        f"{target} (ties as half; comparable to a reward model's accuracy): "
        f"**{num(acc['accuracy'])}** {interval(acc['ci95'])} (interval over pairs and "
        f"annotators); strict {num(acc['strict']['value'])} "
        f"{interval(acc['strict']['ci95'])}, tie share {num(acc['ties']['share'])}; "
        f"{acc['n_ratings']} judgements on {acc['n_pairs']} pairs.",
        "",
        f"Panel majority (a median of {majority.get('k', 0):g} annotators per pair, a tied "
        f"majority as half): {num(majority['value'])} {interval(majority['ci95'])}.",
    ]


def models_section(report: Mapping[str, Any]) -> list[str]:
    models = report.get("reward_models") or {}
    if not models:
        return []
    rows = [
        [
            name,
            m["kind"],
            m["n_pairs"],
            num(m["accuracy_all"]),
            interval(m["accuracy_all_ci95"]),
            num(m["human_accuracy_same_pairs"]),
        ]
        for name, m in sorted(models.items())
    ]
    headers = ["model", "kind", "pairs", "accuracy", "95% CI", "single annotator, same pairs"]
    return ["## Reward models", "", *table(headers, rows)]


SPAN_HEADERS = [
    "span label",
    "spans",
    "chosen with a span",
    "rejected with a span",
    "difference",
    "95% CI",
    "McNemar p",
    "token F1",
    "annotator pairs",
]


def spans_section(report: Mapping[str, Any]) -> list[str]:
    """The spans marked with each span label (issue 36.3), when the study has span labels:
    the share of ratings whose chosen and rejected response carry one, their difference by
    pair with its interval, and agreement on where (token F1 between annotators)."""
    found = report.get("spans") or []
    if not found:
        return []
    rows = [
        [
            s["words"],
            s["n_spans"],
            num(s["chosen_share"]),
            num(s["rejected_share"]),
            num(s["difference"]),
            interval(s["difference_ci"]),
            p_text(s["mcnemar_p"]),
            num(s["agreement"]["f1"]),
            s["agreement"]["n_compared"],
        ]
        for s in found
    ]
    words = (
        "Shares are of ratings (a pair as one annotator rated it); the difference (chosen minus "
        "rejected) averages a pair's annotators, with the t interval over pairs; McNemar's test "
        "is continuity-corrected; token F1 compares every two annotators of a pair."
    )
    return ["## Spans", "", words, "", *table(SPAN_HEADERS, rows)]


def downstream_section(report: Mapping[str, Any]) -> list[str]:
    """The downstream comparisons and the correlation claim (issue 25), when the report has
    them (`analysis.downstream`)."""
    found = report.get("downstream")
    if not found or not found.get("comparisons"):
        return []
    rows = [
        [
            c["expected"],
            c["baseline"],
            c["human"]["n_questions"],
            num(c["human"]["share_identical"]),
            num(c["human"]["gain"]["estimate"]),
            interval(c["human"]["gain"]["ci"]),
            num(c["judge"]["gain"]["estimate"]),
        ]
        for c in found["comparisons"]
    ]
    headers = ["expected", "baseline", "questions", "identical", "human gain", "95% CI", "judge"]
    claim = found.get("claim")
    sentence = [claim["sentence"], ""] if claim else []
    return ["## Downstream (Best-of-N, PPO)", "", *sentence, *table(headers, rows)]


def asked(report: Mapping[str, Any]) -> Questionnaire:
    """The questionnaire the report was built with (a report of the default stores none)."""
    return parse_questionnaire(report.get("questionnaire"))
