"""The options of `prb-annotate studies create` and `studies edit`: each declared once, and
:func:`with_study_options`, which gives a command all of them and calls it with the settings they
give (read by :mod:`annotate.cli.option_settings`)."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from annotate.cli.option_settings import (
    GENERAL_OPTIONS,
    PLATFORM_OPTIONS,
    design_settings,
    general_settings,
    platform_settings,
    settings_from_file,
)
from annotate.questionnaire import TEMPLATES

Opt = typer.Option
Seed = Annotated[int | None, Opt(help="Seed of the blinding draws and the plan.")]
QuestionnaireOpt = Annotated[
    str | None,
    Opt(
        "--questionnaire",
        help=f"What annotators are asked: a template ({', '.join(TEMPLATES)}) or a YAML/JSON "
        "file of questions (locked once the study has ratings).",
    ),
]
Guidelines = Annotated[str | None, Opt(help="Guideline text (Markdown).")]
GuidelinesFile = Annotated[Path | None, Opt("--guidelines-file", help="Read guidelines from.")]
Margin = Annotated[
    float | None, Opt("--margin", help="Equivalence margin, in the unit of --margin-unit.")
]
MarginUnit = Annotated[
    str | None,
    Opt("--margin-unit", help="'points' (scale points) or 'sd' (SDs of the paired differences)."),
]
SmallestEffect = Annotated[
    str | None,
    Opt(
        "--smallest-effect",
        help="Pre-registered smallest effect of interest, in the margin's unit: rubric "
        "alignment must exceed it ('margin': the margin, the default).",
    ),
]
AlphaLevel = Annotated[float | None, Opt("--alpha", help="Pre-registered significance level.")]
PlannedPairs = Annotated[
    int | None,
    Opt(
        "--planned-pairs",
        help="Pre-registered sample size: pairs to analyse; a verdict before it is interim "
        "(0: none).",
    ),
]
StoppingRule = Annotated[
    str | None, Opt("--stopping-rule", help="Pre-registered stopping rule, in words ('': none).")
]
Sequential = Annotated[
    str | None,
    Opt(
        "--sequential",
        help="Pre-registered group-sequential plan: 'looks=30,60,90,120 [unit=pairs|ratings] "
        "[alpha=obrien-fleming|pocock] [futility=obrien-fleming|pocock] [beta=0.2] "
        "[binding=yes]' (Lan-DeMets spending; futility non-binding by default; 'none': no plan).",
    ),
]
InternalPilot = Annotated[
    str | None,
    Opt(
        "--internal-pilot",
        help="Pre-registered internal pilot: 'first=N [tie_alpha=0.04]' (a first stage of N "
        "pairs, then one sample-size look; each tie question's TOST read at tie_alpha after "
        "it, the superiority test at --alpha; `python -m analysis size` recommends both; "
        "'none': no internal pilot).",
    ),
]
CountSimulated = Annotated[
    bool | None,
    Opt(
        "--count-simulated/--no-count-simulated",
        help="Count simulated annotators' ratings in the verdict and the card (labelled).",
    ),
]
Code = Annotated[str | None, Opt("--completion-code", help="Shown when a queue is finished.")]
Overlap = Annotated[int | None, Opt("--overlap", "-k", help="Distinct annotators per pair.")]
Reservation = Annotated[
    int | None, Opt("--reservation-minutes", help="Open pool: how long a pulled pair is held.")
]
GoldRate = Annotated[float | None, Opt("--gold-rate", help="Share of gold pairs in queues.")]
Pool = Annotated[bool | None, Opt("--pool/--no-pool", help="Open or close the open pool.")]
Quota = Annotated[
    int | None, Opt("--pool-quota", help="Open pool: most pairs per annotator (0: no limit).")
]
FinishMinimum = Annotated[
    int | None,
    Opt(
        "--finish-minimum",
        help="Crowd: pairs a participant rates before Finish gives the completion code (at "
        "most --pool-quota; 0: the pool quota).",
    ),
]
FinishCountsFlags = Annotated[
    bool | None,
    Opt(
        "--finish-counts-flags/--no-finish-counts-flags",
        help="Crowd: a pair flagged without scores counts towards the finish rule (default: no).",
    ),
]
FinishCountsSkips = Annotated[
    bool | None,
    Opt(
        "--finish-counts-skips/--no-finish-counts-skips",
        help="Crowd: a skipped pair counts towards the finish rule (default: no).",
    ),
]
SkipLimit = Annotated[
    int | None,
    Opt(
        "--skip-limit",
        help="Crowd: pairs a participant may set aside (skip, or flag without scores) before "
        "the pool stops; short of the finish rule they are then screened out (-1: the pool "
        "quota, the default).",
    ),
]
PoolOrderOpt = Annotated[
    str | None,
    Opt(
        "--pool-order",
        help="Open pool: depth (fill partly rated pairs to k first; the default) or breadth "
        "(the pairs with the fewest ratings first).",
    ),
]
Enrolment = Annotated[
    bool | None, Opt("--enrolment/--no-enrolment", help="Accept crowd enrolment links.")
]
CloseAtStop = Annotated[
    bool | None,
    Opt(
        "--close-at-stop/--no-close-at-stop",
        help="Close crowd enrolment when the group-sequential plan says stop (`prb-annotate "
        "monitor` and the Monitor page apply it, audited; the reason is kept and shown).",
    ),
]
ConsentFile = Annotated[
    Path | None,
    Opt("--consent-file", help="Crowd: consent page text (Markdown) read from this file."),
]
NoConsent = Annotated[bool, Opt("--no-consent", help="Crowd: remove the consent page.")]
SurveyFile = Annotated[
    Path | None,
    Opt(
        "--survey-file",
        help="Crowd: survey questions, a JSON list of {id, text, kind: choice|text, options}"
        " ('[]' removes the survey).",
    ),
]
ChecksFile = Annotated[
    Path | None,
    Opt(
        "--checks-file",
        help="Crowd: instructed-response checks, a JSON list of {text, options, expected, "
        "after} (shown after that many pairs; two failed end the participant's work, no code; "
        "'[]' removes them).",
    ),
]
Screenout = Annotated[
    str | None, Opt("--screenout-code", help="Crowd: code for people screened out.")
]
CompletionUrl = Annotated[
    str | None,
    Opt(
        "--completion-url",
        help="Crowd: where the done page sends people; {code} is replaced, e.g. "
        "'https://app.prolific.com/submissions/complete?cc={code}'.",
    ),
]
Preference = Annotated[
    bool | None,
    Opt("--preference/--no-preference", help="Ask which response fits better, after the scores."),
]
Rationale = Annotated[
    str | None, Opt("--rationale", help="With the preference: off, optional or required.")
]
AspectChecklist = Annotated[
    bool | None,
    Opt(
        "--aspect-checklist/--no-aspect-checklist",
        help="Mark each rubric aspect's coverage per response (0 not, 1 partly, 2 well).",
    ),
]
AdjudicationThreshold = Annotated[
    float | None,
    Opt(
        "--adjudication-threshold",
        help="Pairs whose annotators' rubric differences spread this much go to adjudication "
        "(clear it with `prb-annotate adjudication threshold`).",
    ),
]
PlatformName = Annotated[
    str | None,
    Opt("--platform", help="Crowd: the platform, prolific or completion_url ('': none)."),
]
PlatformStudy = Annotated[
    str | None, Opt("--platform-study-id", help="Crowd: the study's id on the platform.")
]
Reward = Annotated[
    int | None,
    Opt("--reward", help="Crowd: pay per completed participant in minor units (pence, cents)."),
]
Currency = Annotated[str | None, Opt("--currency", help="Crowd: GBP, USD, ... (default GBP).")]
PlatformFee = Annotated[
    float | None, Opt("--platform-fee", help="Crowd: the platform's fee, in percent.")
]
BonusRule = Annotated[
    str | None,
    Opt(
        "--bonus-rule",
        help="Crowd: 'per_extra_pair:N' (N minor units per rated pair beyond the minimum "
        "before Finish) or '' (no bonus).",
    ),
]
SettingsFile = Annotated[
    Path | None,
    Opt(
        "--settings",
        help="A settings file (.yaml/.json, as `studies export-settings` writes; training: "
        "practice pairs, comprehension questions); the other options given win over it.",
    ),
]


def study_options(
    seed: Seed = None,
    questionnaire: QuestionnaireOpt = None,
    guidelines: Guidelines = None,
    guidelines_file: GuidelinesFile = None,
    margin: Margin = None,
    margin_unit: MarginUnit = None,
    smallest_effect: SmallestEffect = None,
    alpha: AlphaLevel = None,
    planned_pairs: PlannedPairs = None,
    stopping_rule: StoppingRule = None,
    sequential: Sequential = None,
    internal_pilot: InternalPilot = None,
    count_simulated: CountSimulated = None,
    completion_code: Code = None,
    overlap: Overlap = None,
    reservation_minutes: Reservation = None,
    gold_rate: GoldRate = None,
    pool: Pool = None,
    pool_quota: Quota = None,
    finish_minimum: FinishMinimum = None,
    finish_counts_flags: FinishCountsFlags = None,
    finish_counts_skips: FinishCountsSkips = None,
    skip_limit: SkipLimit = None,
    pool_order: PoolOrderOpt = None,
    enrolment: Enrolment = None,
    close_at_stop: CloseAtStop = None,
    consent_file: ConsentFile = None,
    no_consent: NoConsent = False,
    survey_file: SurveyFile = None,
    screenout_code: Screenout = None,
    completion_url: CompletionUrl = None,
    preference: Preference = None,
    rationale: Rationale = None,
    aspect_checklist: AspectChecklist = None,
    adjudication_threshold: AdjudicationThreshold = None,
    platform: PlatformName = None,
    platform_study_id: PlatformStudy = None,
    reward: Reward = None,
    currency: Currency = None,
    platform_fee: PlatformFee = None,
    bonus_rule: BonusRule = None,
    checks_file: ChecksFile = None,
    settings_file: SettingsFile = None,
) -> dict[str, Any]:
    """The settings a study command was given: its options, over those of its --settings file.

    The options of `studies create` and `studies edit` (`with_study_options`)."""
    given = {k: v for k, v in locals().items() if k != "settings_file"}
    money = platform_settings(**{k: given.pop(k) for k in PLATFORM_OPTIONS})
    settings = (
        general_settings(**{k: given.pop(k) for k in GENERAL_OPTIONS})
        | design_settings(**given)
        | money
    )
    return settings_from_file(settings_file) | settings


def with_study_options(command: Callable[..., None]) -> Callable[..., None]:
    """`command(name, settings, **own options)` as a Typer command whose options are the study
    options (`study_options`, shown after `name`) and its own; it is called with the settings
    they give."""
    shared = inspect.signature(study_options, eval_str=True).parameters
    own = inspect.signature(command, eval_str=True).parameters
    name, _settings_param, *rest = own.values()

    @functools.wraps(command)
    def run(**given: Any) -> None:
        settings = study_options(**{k: given.pop(k) for k in shared})
        command(given.pop(name.name), settings, **given)

    parameters = [name, *shared.values(), *rest]
    run.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    run.__annotations__ = {p.name: p.annotation for p in parameters}
    return run
