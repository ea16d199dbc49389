"""The methods text, generated from the settings a report was computed with.

:func:`methods` gives one entry per figure (the report's ``methods`` dict, shown as a table);
:func:`methods_paragraph` joins the essentials into a paragraph for a paper's methods section.
"""

from __future__ import annotations

from analysis.inference.paired import EXACT_MAX_N, MIN_PAIRS
from analysis.inference.reestimate import RULE as INTERNAL_PILOT
from analysis.inference.reestimate import TIE_ALPHA_WHY
from analysis.inference.sizing import (
    DEFAULT_DIFFERENCE,
    SMALL_PILOT,
    WIDER_POOLS,
)
from analysis.schema.plan_words import change_words, interim_words, time_words
from analysis.schema.questions import report_questionnaire
from analysis.schema.report_types import AnalysisPlan, Report, SequentialLook, Settings

ALPHA_TENTATIVE, ALPHA_RELIABLE = 0.667, 0.8
CAVEAT_MEANING = (
    "annotators agree little on how much better chosen is than rejected on the rubric, pair "
    "by pair; the verdict's interval treats annotators as random, so it already includes this "
    "disagreement (it is wider for it): the caveat says a pair's difference depends on who "
    "rates it, not that the verdict is unreliable"
)
"""What the reliability caveat measures, said the same way by the report, its renderers, the
results page, the card and docs/statistics.md (tests/analysis/test_statistics_docs.py)."""
ESTIMAND = (
    "the mean difference d = chosen - rejected in one annotator's scores of one pair; the unit "
    "of analysis is the pair-rating (an annotator's two scores of a pair)"
)
PRIMARY_MODEL = "linear mixed model of d with crossed random pair and annotator effects"
SUPERIORITY_NULL = "chosen exceeds rejected by more than the smallest effect of interest"
HUMAN_ACCURACY = (
    "the probability that a single annotator's rubric_alignment score is higher for chosen "
    "than for rejected, ties counted as half"
)
MIXED_RULE = "diverges when its lower end exceeds the smallest effect of interest"
HOLM = (
    "Holm-adjusted as one family (the TOST and superiority p-values of every domain and dimension)"
)
DOC_STATEMENTS = {
    "estimand": ESTIMAND,
    "primary model": PRIMARY_MODEL,
    "superiority null": SUPERIORITY_NULL,
    "human accuracy": HUMAN_ACCURACY,
    "caveat": CAVEAT_MEANING,
    "mixed model": MIXED_RULE,
    "holm": HOLM,
}
"""The methods text's statements that docs/statistics.md must make word for word (its prose is
written by hand; tests/analysis/test_statistics_docs.py holds the two together)."""
PLANNER_STATEMENTS = {
    "default difference": DEFAULT_DIFFERENCE,
    "wider pools": WIDER_POOLS,
    "small pilot": SMALL_PILOT,
    "internal pilot": INTERNAL_PILOT,
}
"""What the sizing planner (`analysis.inference.sizing`) does where its pilot says little, as
docs/statistics.md must say it word for word (tests/analysis/test_statistics_docs.py); the
planner's own output says it too (tests/analysis/inference/test_sizing.py)."""
CAVEAT_WORDS = (
    f"Reliability caveat: Krippendorff's alpha of the rubric chosen - rejected difference is "
    f"below {ALPHA_TENTATIVE}: {CAVEAT_MEANING}."
)


def _margin_words(report: Report) -> str:
    s = report["settings"]
    if s["margin_unit"] == "sd":
        return (
            f"±{s['margin']:g} standard deviations of one annotator's chosen - rejected "
            "difference (converted per dimension with sqrt(s2_pair + s2_annotator + "
            "s2_residual), the crossed model's REML components: the same points whatever the "
            "annotators per pair, though the margin depends on the data)"
        )
    return f"±{s['margin']:g} scale points"


def methods(report: Report) -> dict[str, str]:
    """How each figure is computed, with the settings used (alpha, margin, bootstrap)."""
    s = report["settings"]
    alpha = f"{s['alpha']:g}"
    tost_level = f"{100 * (1 - 2 * s['alpha']):g}%"
    boot = (
        f"{s['n_boot']} bootstrap resamples (seed {s['seed']})" if s["n_boot"] else "no bootstrap"
    )
    holm = HOLM if s["holm"] else "not adjusted for multiplicity"
    return _asked(report) | {
        "estimand": f"Estimand: per dimension, {ESTIMAND}. The inference generalises to "
        "other pairs drawn like these and to other annotators drawn like these: pairs and "
        "annotators are both random (crossed), so a small panel's shared way of seeing the "
        "difference widens the interval instead of being averaged away.",
        "pair_means": "A pair lacking chosen or rejected scores on a dimension is excluded from "
        "that dimension (see exclusions). The per-pair means (each pair's annotators averaged) "
        "feed the sensitivity analyses: the paired t-test under 'sensitivity' (pairs random, "
        "annotators fixed: schema 2's primary), Wilcoxon, sign test, Hodges-Lehmann and d_z.",
        "ci95": f"Primary 95% CI: {PRIMARY_MODEL}, fitted by REML "
        "(R: lmerTest::lmer(d ~ 1 + (1 | pair) + (1 | annotator))), t interval with "
        "Satterthwaite degrees of freedom (as lmerTest); with one annotator, or "
        "one rating per pair, the factor that cannot be estimated is left out (named in "
        "primary.method). When REML puts the pair or annotator variance at 0 (a singular fit, "
        "named in primary.singular and the dimension's notes), the SE and df are "
        "Kenward-Roger's (as R's pbkrtest), which keep that variance's uncertainty where "
        "Satterthwaite's df would jump to about n - 1. "
        f"ci_tost is the {tost_level} interval. Coverage by seeded simulation "
        "in benchmarks/bench_coverage.py.",
        "tost": f"TOST at a margin of {_margin_words(report)}: the larger of the two one-sided "
        "t-tests of the mixed model's mean (Satterthwaite df) against -margin and +margin. "
        "equivalence_bound is the smallest margin at which TOST would hold: max |bound| of the "
        f"{tost_level} CI.",
        "superiority": f"One-sided test that {SUPERIORITY_NULL} "
        f"({s.get('smallest_effect', s['margin']):g} in the margin's unit; "
        "the margin unless set otherwise), on the same model; difference_p is the two-sided "
        "test of d = 0.",
        "verdict": f"At alpha = {alpha}{_tie_level(s)}: a general dimension is 'tie' when "
        "its TOST holds, "
        "else 'diverges' when the superiority test holds, else 'inconclusive'. Rubric "
        "alignment is 'diverges' when its superiority test holds, else 'tie' when TOST holds, "
        f"else 'inconclusive'. Fewer than {MIN_PAIRS} complete pairs or zero variance of the "
        "differences reads 'insufficient_data', never 'tie'. A tie whose difference from 0 is "
        "still significant (two-sided) is said so ('differs').",
        "validated": "Validated when all general dimensions tie and rubric alignment diverges: "
        "an intersection-union test (Berger, 1982), every component at level alpha, so the "
        "joint claim holds at level alpha with no multiplicity correction.",
        "by_domain": f"By-domain results are exploratory and {holm}.",
        "margin_sensitivity": "Sensitivity only: whether each general dimension would tie, and "
        "the joint verdict hold, at each margin of the grid (a TOST holds at margin m exactly "
        "when equivalence_bound < m); the verdict uses the pre-registered margin.",
        "wilcoxon": "Sensitivity analysis (tests a pseudo-median, not the mean): two-sided "
        "Wilcoxon signed-rank test, exact when fewer than "
        f"{EXACT_MAX_N + 1} differences, none zero and no ties, else normal approximation "
        "with tie and continuity correction (as R's wilcox.test). Differences rounded to 9 "
        "decimals. Statistic V = sum of ranks of positive differences. sign_p: exact sign "
        "test (R binom.test).",
        "hodges_lehmann": "Hodges-Lehmann estimate: median of the Walsh averages of the "
        "differences; 95% CI from their order statistics (exact signed-rank critical value "
        "below 50 pairs, normal approximation above).",
        "d_z": "d_z = mean difference / SD of the per-pair differences; 95% CI by inverting the "
        "noncentral t distribution (root found by bracketing; where that fails the normal "
        "approximation is used and labelled).",
        "alpha": "Krippendorff's alpha (krippendorff package), ordinal and interval, units = "
        f"(pair, response), coders = annotators. 95% CIs from {boot}: the pairs-only "
        "percentile interval (both units of a pair resampled together), widened about the "
        "estimate so that its variance is V_pairs + V_coders - V_pair-ratings (a two-way "
        "bootstrap for crossed pairs x coders; McCullagh 2000, Owen 2007); seeded simulation: "
        "nominal 95% covers 0.94-0.95 (benchmarks/bench_alpha_coverage.py). alpha_difference: "
        "interval alpha on each annotator's chosen - rejected score, units = pairs. "
        f"Thresholds (Krippendorff, 2004): {ALPHA_TENTATIVE} tentative, {ALPHA_RELIABLE} "
        "reliable.",
        "reliability_caveat": "Set when the interval alpha of rubric alignment's chosen - "
        f"rejected difference is below {ALPHA_TENTATIVE}: {CAVEAT_MEANING}. 'Not assessed', "
        "with the reason, when alpha cannot be computed (no pair rated twice, or no variation "
        "at all). Raw agreement on the rubric preference is shown beside it. Difference alphas "
        "of general dimensions that truly tie are near 0 (nothing to agree on) and raise no "
        "caveat.",
        "preference_alpha": "Nominal alpha on each annotator's rubric preference per pair "
        "(chosen / equal / rejected by their rubric_alignment scores); units = pairs.",
        "annotator_agreement": "Pairwise: share of shared units (pair, response, dimension) "
        "where two annotators gave the same score (exact) or scores at most one point apart "
        "(within_one); per annotator pooled over all their comparisons.",
        "human_accuracy": f"Headline: {HUMAN_ACCURACY} (independent of "
        "the annotators per pair; a reward model practically never ties), with a 95% interval "
        "over pairs and annotators (the crossed model above on each judgement's 1 / 0.5 / 0). "
        "The strict rate and the tie share are beside it; the panel majority (share of pairs "
        "whose majority vote is chosen, a tied majority as half, Wilson interval) is a second, "
        "labelled figure that grows with k.",
        "mixed_model": "Secondary analysis: per dimension, each annotator's chosen - rejected "
        "score difference d = mu + beta * side + pair + annotator + error, with crossed random "
        "pair and annotator effects (the score model score ~ response x dimension + side with "
        "random pair and annotator effects, taken within each pair-rating), fitted by REML; "
        "t intervals with Satterthwaite df (as the primary); it adjusts for the side chosen "
        "was shown on. Its verdict applies the primary rules to its "
        f"{tost_level} interval (a tie when it lies inside ±margin; {MIXED_RULE}, the "
        "primary's superiority null); "
        "disagreements with the primary verdict are listed.",
        "position_bias": "Per pair-rating, chosen - rejected, compared between ratings that "
        "showed chosen on side A and on side B: Welch two-sample t-test (decision), Wilcoxon "
        "rank-sum (sensitivity). side_a_advantage = half the difference of the two means.",
        "missing_data": "Missing ratings: the primary fit uses the ratings given and assumes a "
        "skipped rating is missing at random given pair and annotator (Little & Rubin 2019). "
        "Skips and flags are counted by pair and annotator. Whether skipping is related to the "
        "pair: Spearman correlation of a pair's skips beyond its annotators' own skip rates "
        "with its distance from a tie (|mean rubric difference|, annotator-adjusted), two-sided "
        "permutation p-value over pairs. Sensitivity (pattern-mixture, delta-adjusted; "
        "Carpenter & Kenward 2013): each skipped rating counted as a tie by its own annotator "
        "and the crossed model refitted; a verdict it changes is said to hold only if skips "
        "are at random. Size and power by seeded simulation in benchmarks/bench_coverage.py.",
    }


def _asked(report: Report) -> dict[str, str]:
    """Which questions the texts' roles name, for a study asking its own questions (the
    default's report carries no such text: its words are those of its questions)."""
    if "questionnaire" not in report:
        return {}
    asked = report_questionnaire(report)
    return {
        "questionnaire": "The study's questions and their roles: a 'general dimension' below "
        f"is each tie question ({', '.join(asked.tie_keys) or 'none'}); every diverge "
        f"question ({', '.join(asked.diverge_keys)}) is tested as 'rubric alignment' is; "
        f"'rubric alignment' and 'rubric_alignment' in the human accuracy, the preference "
        f"alpha, the caveat and the missing-data test mean the target, {asked.target}; "
        f"describe questions ({', '.join(asked.describe_keys) or 'none'}) are reported "
        "without a hypothesis (a choice question counted by response under 'choices')."
    }


def _tie_level(settings: Settings) -> str:
    """', each tie question's TOST at 0.04 (...)' when an internal pilot set its own level."""
    tie = settings.get("tie_alpha")
    if tie is None:
        return ""
    return (
        f" (each tie question's TOST at {tie:g}, its interval the {100 * (1 - 2 * tie):g}% one, "
        f"as the internal pilot's plan pre-registered: {TIE_ALPHA_WHY})"
    )


def methods_paragraph(report: Report) -> str:
    """The essentials as one paragraph of prose."""
    m = methods(report)
    parts = [
        m[key]
        for key in (
            "estimand",
            "ci95",
            "tost",
            "superiority",
            "verdict",
            "validated",
            "by_domain",
            "pair_means",
        )
    ]
    plan = report.get("plan")
    if plan is not None:
        parts.append(plan_sentences(plan))
    adjudicated = report.get("adjudication")
    if adjudicated is not None:
        parts.append(
            f"{adjudicated['n_adjudicated_pairs']} disputed pairs were rated again, blind, by "
            f"{adjudicated['n_adjudicators']} adjudicators; these ratings are left out of the "
            f"figures above and reported apart, before and after adjudication, where "
            f"{adjudicated['rule']}."
        )
    rules = report.get("exclusion_rules")  # a study's pre-registered exclusion rules
    if rules is not None and rules["rules"]:
        parts.append(rules["note"])
    if "preference" in report:
        parts.append(PREFERENCE_METHOD)
    if "aspects" in report:
        parts.append(ASPECT_METHOD)
    return " ".join(parts)


def plan_sentences(plan: AnalysisPlan) -> str:
    """The pre-registered plan in the methods paragraph: what was fixed and when, any change
    (from what, to what, when, after the data or not), and whether the verdict is interim."""
    sesoi = plan["smallest_effect"]
    sesoi_words = "the margin" if sesoi is None else f"{sesoi:g}"
    size = (
        f"{plan['planned_pairs']} pairs"
        if plan["planned_pairs"] is not None
        else (plan["stopping_rule"] or "no planned size")
    )
    look = plan.get("sequential")
    size = (
        f"{look['looks'][-1]} {look['unit']} at most, in {look['n_looks']} looks"
        if look is not None
        else size
    )
    text = (
        f"The analysis plan (margin {plan['margin']:g} {plan['margin_unit']}, smallest effect of "
        f"interest {sesoi_words}, alpha {plan['alpha']:g}, sample size: {size}) was last set "
        f"on {time_words(plan['set_at'])}; the first rating came on "
        f"{time_words(plan['first_rating_at']) if plan['first_rating_at'] else '(none yet)'}"
    )
    late = [c for c in plan["changes"] if c["after_data"]]
    if late:
        text += "; it was changed after data arrived: " + "; ".join(change_words(c) for c in late)
    text += "."
    if plan["deviations"]:
        text += " This report departs from it: " + "; ".join(plan["deviations"]) + "."
    look = plan.get("sequential")
    if look is not None:
        text += f" {sequential_sentence(look)}"
    internal = plan.get("internal_pilot")
    if internal:
        text += (
            f" The study ran an internal pilot: a first stage of "
            f"{internal['first_stage_pairs']} pairs, then one sample-size re-estimation look "
            "that read only the variance components; each tie question's TOST is read at "
            f"{internal['tie_alpha']:g}, the superiority test at alpha {plan['alpha']:g}."
        )
    if plan["interim"]:
        text += f" The verdict is interim: {interim_words(plan)}."
    return text


def sequential_sentence(look: SequentialLook) -> str:
    """The group-sequential plan in the methods: spending, looks, how a look is read."""
    futility = look["futility"]
    text = (
        f"The plan is group-sequential: looks at {', '.join(map(str, look['looks']))} "
        f"{look['unit']}, the one-sided alpha of each test spent by a Lan-DeMets "
        f"{look['alpha_spending']}-type function (Lan & DeMets 1983)"
    )
    if futility:
        kind = "binding" if look["binding"] else "non-binding"
        text += f", with a {kind} futility boundary by {futility}-type beta spending"
    return (
        text + "; at each look every TOST and the rubric superiority test must fall below the "
        "look's boundary, taken as a nominal one-sided p-value against the test's own t "
        "distribution, for the verdict to be read as validated."
    )


PREFERENCE_METHOD = (
    "After the scores, annotators said which response fits the user better on a symmetric "
    "five-point scale by side (A much better to B much better, with a tie), mapped to chosen and "
    "rejected on the server; forced-choice accuracy is reported strict and with ties as half a "
    "win (Wilson intervals), with its agreement with the score-implied preference (Cohen's "
    "kappa) and ordinal Krippendorff's alpha."
)
ASPECT_METHOD = (
    "Annotators also marked how well each response covers each aspect of the user's rubric "
    "(0 not, 1 partly, 2 well: the benchmark judge's scale); chosen minus rejected coverage is "
    "tested per place in the rubric and overall (paired t interval, Wilcoxon signed-rank), "
    "agreement per aspect is ordinal Krippendorff's alpha, and imported LLM-judge marks are "
    "compared with the annotators' median by quadratic-weighted Cohen's kappa."
)
