"""The validation report's shape: typed dicts with exactly the JSON keys other tools read.

Why 566 lines: type declarations only: the report's whole JSON shape in one place.

`analysis.report.build_report` returns a :class:`Report`; the JSON rendering is the same dict
dumped as is, so a key named here is a key in the JSON file. NaN never appears: an undefined
figure is None.

Schema version 3 (issue 23): the primary inference is over pairs AND annotators.

* ``dimensions.<dim>``: ``mean_diff``, ``ci95``, ``ci_tost``, ``tost_p``, ``superiority_p``,
  ``equivalence_bound`` and ``verdict`` are now the crossed mixed model's (random pair and
  annotator effects, REML, Satterthwaite df: ``analysis.inference.crossed``), described by
  ``primary`` (:class:`PrimaryFit`); ``superiority_p`` tests chosen - rejected > ``sesoi`` (the
  smallest effect of interest, default the margin), ``difference_p`` the two-sided test of 0,
  and ``differs`` says when a tie still differs significantly from 0. The per-pair-mean paired
  t-test of version 2 is under ``sensitivity`` (:class:`PairMeansTest`); Wilcoxon, sign test,
  Hodges-Lehmann and d_z stay per-pair-mean sensitivity figures.
* ``checks.validated`` is the study verdict from those primary verdicts;
  ``checks.reliability_caveat`` reads the alpha of the rubric chosen - rejected difference,
  explained in ``checks.reliability``.
* ``human_accuracy``: the headline ``accuracy`` is the probability that a single annotator puts
  chosen above rejected on rubric alignment, ties as half (``single_annotator``), with its
  crossed interval ``ci95``; ``strict`` and ``ties`` beside it; ``panel_majority`` the majority
  of each pair's panel (the study's k), a second, labelled figure.
* ``settings.smallest_effect`` (the SESOI in points) and ``settings.df_method``.
"""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict

from analysis.schema.adjudication_types import AdjudicationSummary
from analysis.schema.aspect_types import AspectSummary
from analysis.schema.exclusion_types import ExclusionReport
from analysis.schema.model_types import AuditRow, RewardModelResult
from analysis.schema.preference_types import AttributeGroup, PreferenceSummary

Interval = list[float]
"""[low, high] of a confidence interval."""


class PairMeansTest(TypedDict):
    """The per-pair-mean paired t-test (version 2's primary), kept as a sensitivity analysis:
    pairs random, annotators fixed."""

    method: str
    n_pairs: int
    mean_diff: float | None
    ci95: Interval | None
    ci_tost: Interval | None
    tost_p: float | None
    superiority_p: float | None
    equivalence_bound: float | None
    verdict: str


class PrimaryFit(TypedDict):
    """What the primary figures of a dimension come from (`analysis.inference.crossed`)."""

    method: str  # crossed, pair only, annotator only, one-sample t, pair means t, degenerate
    df_method: str
    estimate: float | None
    se: float | None
    df: float | None
    n_ratings: int
    n_annotators: int
    var_pair: float | None
    var_annotator: float | None
    var_residual: float | None
    singular: NotRequired[list[str]]
    """The factors ("pair", "annotator") whose variance the fit puts at 0 (a boundary fit):
    then ``se`` and ``df`` are Kenward-Roger's (``df_method``); empty otherwise."""


class PairedTest(TypedDict):
    """Chosen against rejected on one dimension: the primary figures (over pairs and
    annotators) and the per-pair-mean sensitivity figures, from `analysis.inference.paired` and
    `analysis.inference.primary`."""

    n_pairs: int
    mean_chosen: float | None
    mean_rejected: float | None
    ci95_chosen: Interval | None
    ci95_rejected: Interval | None
    mean_diff: float | None
    sd_diff: float | None
    ci95: Interval | None
    ci_tost: Interval | None
    margin: float
    tost_p: float | None
    tost_p_adjusted: float | None
    superiority_p: float | None
    superiority_p_adjusted: float | None
    equivalence_bound: float | None
    wilcoxon_statistic: float | None
    wilcoxon_p: float | None
    wilcoxon_p_adjusted: float | None
    wilcoxon_method: str | None
    sign_p: float | None
    hodges_lehmann: float | None
    hodges_lehmann_ci95: Interval | None
    d_z: float | None
    d_z_ci95: Interval | None
    rule: str  # "equivalence" (general dimensions) or "superiority" (rubric alignment)
    verdict: str  # tie, diverges, inconclusive, insufficient_data
    notes: list[str]
    d_z_ci_method: NotRequired[str | None]  # exact, or approximate (labelled)
    sesoi: NotRequired[float]  # the smallest effect of interest superiority_p tests against
    difference_p: NotRequired[float | None]  # two-sided test of chosen - rejected = 0
    differs: NotRequired[str | None]  # "higher"/"lower" when significantly different from 0
    primary: NotRequired[PrimaryFit]
    sensitivity: NotRequired[PairMeansTest]


class DimensionAgreement(TypedDict):
    """Krippendorff's alpha of one dimension, units (pair, response)."""

    alpha_ordinal: float | None
    alpha_ordinal_ci95: Interval | None
    alpha_interval: float | None
    alpha_interval_ci95: Interval | None
    alpha_units: int
    alpha_difference: float | None  # interval alpha on chosen - rejected, units = pairs
    alpha_difference_ci95: Interval | None
    alpha_note: str | None  # why alpha is missing, when it is


class Histogram(TypedDict):
    centres: list[float]
    counts: list[int]


class DimensionResult(PairedTest, DimensionAgreement):
    """One row of the paper table: the paired test, agreement and the difference histogram."""

    label: str
    diff_histogram: Histogram


class Checks(TypedDict):
    general_quality_tie: bool
    rubric_alignment_diverges: bool
    validated: bool
    insufficient_data: list[str]  # dimensions without enough data for a verdict
    reliability_caveat: bool | None  # rubric difference alpha < 0.667; None: not assessed
    reliability: NotRequired[str]  # the caveat in words, with the raw agreement beside it
    raw_agreement: NotRequired[float | None]  # annotators agreeing on the rubric preference


class AccuracyFigure(TypedDict):
    """One way of counting human accuracy, with its own 95% interval."""

    value: float | None
    ci95: Interval | None
    n: int  # ratings (single annotator) or pairs (panel majority)
    label: str
    method: NotRequired[str]  # how ci95 was computed
    k: NotRequired[float]  # panel majority: the median annotators per pair
    strict: NotRequired[float | None]  # panel majority: share with a chosen majority


class TiesFigure(TypedDict):
    count: int
    share: float | None
    ci95: Interval | None


class HumanAccuracy(TypedDict):
    """See :mod:`analysis.inference.accuracy`: the headline is a single annotator's (ties as
    half)."""

    headline: str  # the key of the headline figure: "single_annotator"
    single_annotator: AccuracyFigure  # the headline: comparable to a reward model's accuracy
    strict: AccuracyFigure
    ties: TiesFigure
    ties_as_half: AccuracyFigure  # the same figure as single_annotator (version 2's key)
    panel_majority: AccuracyFigure
    accuracy: float | None  # the headline value
    ties_count_as: float
    strict_accuracy: float | None
    ci95: Interval | None  # the headline's interval
    ci95_of: str
    ci_method: str
    ci95_ties_half: Interval | None
    definition: str
    n_pairs: int
    n_ratings: int
    n_chosen_higher: int  # ratings
    n_ties: int
    n_rejected_higher: int
    reward_model_reference: float
    reward_model_reference_source: str


class PreferenceAgreement(TypedDict):
    alpha_nominal: float | None
    ci95: Interval | None
    n_pairs: int
    n_judgements: int
    shares: dict[str, float]


class AnnotatorPair(TypedDict):
    annotator_a: str
    annotator_b: str
    n_shared: int
    exact: float
    within_one: float


class AnnotatorRow(TypedDict):
    annotator: str
    n_pairs: int
    n_scores: int
    median_seconds: float | None
    straight_lining: float | None
    modal_value: int
    modal_share: float
    n_comparisons: int
    exact: float | None
    within_one: float | None
    mean_abs_diff_from_others: float | None


class Agreement(TypedDict):
    preference: PreferenceAgreement
    pairwise: list[AnnotatorPair]
    pairwise_total: int
    pairwise_truncated: bool


class DomainResult(TypedDict):
    n_pairs: int
    dimensions: dict[str, PairedTest]
    checks: Checks
    human_accuracy: HumanAccuracy


class SideTest(TypedDict):
    """Chosen minus rejected per pair-rating, compared between pair-ratings that showed chosen
    on side A and those that showed it on side B (from `analysis.core.position`)."""

    n_chosen_on_a: int
    n_chosen_on_b: int
    diff_chosen_on_a: float | None
    diff_chosen_on_b: float | None
    side_a_advantage: float | None  # half the difference of the two: points gained on side A
    side_a_advantage_ci95: Interval | None
    t_p: float | None  # Welch two-sample t-test (the decision)
    wilcoxon_p: float | None  # Wilcoxon rank-sum test (sensitivity)
    wilcoxon_method: str | None
    biased: bool


class PositionBias(SideTest):
    n_ratings: int
    mean_a: float | None
    mean_b: float | None
    mean_diff: float | None  # descriptive A - B (mixes in the chosen/rejected effect)
    n_dropped: int


class DimensionExclusions(TypedDict):
    n_excluded: int
    no_chosen_scores: int
    no_rejected_scores: int
    no_scores: int
    pairs: list[str]
    pairs_truncated: bool


class ExcludedPair(TypedDict):
    """A pair an admin left out of the analysis (passed in by the caller, never guessed)."""

    pair_id: str
    reason: str
    by: str
    at: str


class Exclusions(TypedDict):
    dimensions: dict[str, DimensionExclusions]
    n_excluded_total: int
    incomplete_pair_ratings: int
    note: str
    excluded_pairs: list[ExcludedPair]  # left out of every figure, with the admin's reason


class MarginSensitivity(TypedDict):
    unit: str
    margins: list[float]
    ties: dict[str, list[bool]]  # per general dimension, at each margin
    validated: list[bool]
    equivalence_bounds: dict[str, float | None]  # in the margin's unit


class PlanChange(TypedDict):
    """One change of a pre-registered plan setting (annotate.domain.study.plan)."""

    setting: str  # margin, unit, smallest_effect, alpha, planned_pairs, stopping_rule, ...
    before: object
    after: object
    at: str | None  # when it changed (ISO)
    after_data: bool  # changed after the first rating


class SequentialLook(TypedDict):
    """Where a study stands in its group-sequential plan (the report's `plan.sequential`)."""

    look: int  # 0 before the first look
    n_looks: int
    unit: str  # "pairs" or "ratings"
    looks: list[int]  # the planned looks, cumulative, in `unit`
    n_observed: int  # pairs or ratings collected so far (excluded pairs included)
    information: float  # n_observed / the last look, at most 1
    alpha_spending: str
    futility: str | None
    binding: bool
    boundary_p: float | None  # the efficacy boundary as a nominal one-sided p-value
    boundary_z: float | None
    futility_p: float | None  # a p-value above it crosses the futility boundary
    futility_z: float | None
    tests: dict[str, dict[str, Any]]  # test -> {p, crossed, futile}
    crossed: bool  # every test crossed its efficacy boundary: validated at this look
    decision: str  # "stop", "continue" or "stop for futility"
    final: bool
    words: str


class AnalysisPlan(TypedDict):
    """The study's pre-registered analysis plan, what changed in it, and how this report
    relates to it (analysis.inference.plan)."""

    study: str | None
    exported_at: str | None
    margin: float
    margin_unit: str
    smallest_effect: float | None  # None: the margin
    alpha: float
    planned_pairs: int | None
    stopping_rule: str
    set_at: str | None
    first_rating_at: str | None
    changes: list[PlanChange]
    changed_after_data: bool
    deviations: list[str]  # this report's options that differ from the plan, in words
    n_pairs_analysed: int
    interim: bool  # the verdict came before the planned size was reached
    note: str
    n_pairs_collected: NotRequired[int]  # pairs rated, excluded ones included (interim counts them)
    sequential: NotRequired[SequentialLook | None]  # the group-sequential plan's current look
    # the pre-registered internal pilot: {first_stage_pairs, tie_alpha} (None: none)
    internal_pilot: NotRequired[dict[str, Any] | None]
    # when and why the plan closed crowd enrolment: {at, look, n_looks, n_observed, reason}
    enrolment_closed: NotRequired[dict[str, Any] | None]


class SimulatedRatings(TypedDict):
    """Made-up ratings of simulated annotators in the study (prb-annotate synth ratings)."""

    n_annotators: int
    n_scores: int
    counted: bool  # in every figure (the study opts in) or left out of all of them
    note: str


class MarginRecord(TypedDict):
    set_at: str | None
    history: list[dict[str, object]]
    first_rating_at: str | None
    changed_after_data: bool
    note: str


class TestPower(TypedDict):
    test: str  # "tost" or "superiority"
    true_diff: float
    sd: float
    power: float
    pairs_needed: int | None  # for the target power; None when unreachable


class PowerResult(TypedDict):
    """The power planner's answer (`analysis.inference.power.plan_power`)."""

    n_pairs: int
    annotators_per_pair: int
    margin: float
    alpha: float
    target: float
    sd: dict[str, float]
    sd_source: str
    true_diff: dict[str, float]
    tests: dict[str, TestPower]
    joint_power: float
    joint_power_mc_se: float
    joint_pairs_needed: int | None
    simulations: int
    seed: int
    method: str
    notes: list[str]


class MixedDimension(TypedDict):
    """Crossed mixed model of one dimension (`analysis.inference.mixed`)."""

    estimate: float | None  # mean chosen - rejected
    ci95: Interval | None
    ci_tost: Interval | None  # (1 - 2 alpha) Satterthwaite t interval, for the verdict
    side_a_advantage: float | None
    side_a_advantage_ci95: Interval | None
    var_pair: float | None
    var_annotator: float | None
    var_residual: float | None
    n_ratings: int
    n_pairs: int
    n_annotators: int
    converged: bool
    verdict: str


class MixedModel(TypedDict):
    dimensions: dict[str, MixedDimension]
    disagreements: list[str]  # dimensions whose verdict differs from the primary
    note: str


class SlotRow(TypedDict):
    """Assignments of one pair or annotator (pseudonym): rated or skipped, and flagged."""

    name: str  # the pair id, or the annotator's pseudonym
    n_assigned: int
    n_skipped: int
    skipped_share: float
    n_flagged: int
    flagged_share: float


class SkipTestResult(TypedDict):
    """Is skipping related to the pair? (`analysis.inference.missing.skip_test`)"""

    method: str
    rho: float | None  # Spearman: a pair's excess skips against its distance from a tie
    p: float | None  # two-sided permutation p-value; None: not tested
    n_pairs: int
    n_unrated: int  # pairs every attempt of which was skipped (not tested)
    permutations: int
    related: bool | None  # p < alpha; None: not tested


class SensitivityDimension(TypedDict):
    estimate: float | None
    ci95: Interval | None
    tost_p: float | None
    superiority_p: float | None
    verdict: str


class MissingSensitivity(TypedDict):
    method: str
    dimensions: dict[str, SensitivityDimension]
    changed: list[str]  # dimensions whose verdict differs from the primary one


class MissingData(TypedDict):
    """Skipped and flagged assignments, the missing-at-random assumption, a test of it and a
    sensitivity analysis of the verdict (`analysis.inference.missing`, issue 33.2)."""

    assumption: str
    n_assigned: int  # ordinary assignments: rated or skipped
    n_skipped: int
    skipped_share: float | None
    n_flagged: int
    flagged_share: float | None
    by_pair: list[SlotRow]  # most skipped and flagged first, at most 100
    by_pair_truncated: bool
    by_annotator: list[SlotRow]
    skip_test: SkipTestResult
    sensitivity: MissingSensitivity | None  # None: nothing skipped
    words: str  # the assumption, the test and the sensitivity in the verdict's words


class Settings(TypedDict):
    margin: float
    margin_unit: str
    margins_points: dict[str, float | None]  # the margin each dimension was tested at
    unit_sds: NotRequired[dict[str, float | None] | None]  # SD units: SD of one annotator's d
    min_pairs: int
    alpha: float
    holm: bool
    n_boot: int
    seed: int
    scale_min: int
    scale_max: int
    ci_level: float
    smallest_effect: NotRequired[float]  # SESOI in points (None given: the margin)
    df_method: NotRequired[str]
    # an internal pilot's level of each tie question's TOST (None: alpha; analysis.inference.plan)
    tie_alpha: NotRequired[float | None]


class ErasureEntry(TypedDict):
    """One participant's data erased (issue 24.2): when (a date), why, how many scores, and
    whether other people's ratings were in by then. Nothing about who."""

    at: str
    reason: str
    n_scores: int
    after_ratings: bool


class ChoiceCounts(TypedDict):
    """A choice question (analysis.core.choices): picks per choice, in the order of ``choices``,
    for each response."""

    label: str
    choices: list[str]
    counts: dict[str, list[int]]  # response (chosen / rejected) -> count per choice
    n_pairs: int


class Report(TypedDict):
    schema_version: int
    n_pairs: int
    n_annotators: int
    n_scores: int
    n_pair_ratings: int
    studies: list[str]
    domains: list[str]
    dimensions: dict[str, DimensionResult]
    checks: Checks
    human_accuracy: HumanAccuracy
    agreement: Agreement
    by_domain: dict[str, DomainResult]
    margin_sensitivity: MarginSensitivity
    margin_record: MarginRecord | None
    plan: NotRequired[AnalysisPlan]  # analysis.inference.plan: the study's pre-registered plan
    simulated: NotRequired[SimulatedRatings]  # a study holding simulated ratings
    power: PowerResult | None
    mixed_model: MixedModel
    position_bias: dict[str, PositionBias]
    exclusions: Exclusions
    settings: Settings
    methods: dict[str, str]
    annotators: list[AnnotatorRow]
    reward_models: NotRequired[dict[str, RewardModelResult]]  # analysis.models.reward_models
    label_audit: NotRequired[list[AuditRow]]
    preference: NotRequired[
        PreferenceSummary
    ]  # analysis.designs.preference: a study that asks for it
    by_attribute: NotRequired[dict[str, dict[str, AttributeGroup]]]  # analysis.designs.attributes
    aspects: NotRequired[
        AspectSummary
    ]  # analysis.designs.aspects: a study with the aspect checklist
    spans: NotRequired[list[dict[str, Any]]]  # analysis.designs.spans: a study with span labels
    exclusion_rules: NotRequired[
        ExclusionReport
    ]  # analysis.designs.exclusion_rules: a study's rules
    adjudication: NotRequired[
        AdjudicationSummary
    ]  # analysis.designs.adjudication: adjudicated pairs
    erasures: NotRequired[list[ErasureEntry]]  # analysis.designs.erasures: participants erased
    missing_data: NotRequired[MissingData]  # analysis.inference.missing: skips and flags
    questionnaire: NotRequired[dict[str, Any]]  # a study not asking the default questions
    choices: NotRequired[dict[str, ChoiceCounts]]  # analysis.core.choices: choice questions
