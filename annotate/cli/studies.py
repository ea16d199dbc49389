"""Study commands of `prb-annotate`: create, edit, show and list studies (through
`annotate.services.studies`, as the Studies page does)."""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from annotate.cli.common import (
    ACTOR,
    ForceOption,
    State,
    YesOption,
    app,
    confirmed,
    fail,
    out,
    refusals,
)
from annotate.db.tables import Study
from annotate.domain.assignment.quota import counts_words
from annotate.domain.crowd.enrolment import enrolment_link
from annotate.domain.crowd.payment_rules import major_units
from annotate.domain.operations.monitor import closed_words
from annotate.domain.study.instructed_checks import checks_words
from annotate.domain.study.plan import PLAN_SETTINGS, sequential_words
from annotate.domain.study.questionnaire import (
    QuestionnaireError,
    questionnaire_of,
    read_questionnaire,
    template_name,
)
from annotate.domain.study.study_settings import read_settings
from annotate.questionnaire import TEMPLATES, Questionnaire
from annotate.services import studies
from annotate.vocabulary import check_sequential_plan

studies_app = typer.Typer(help="Create, show and edit studies.", no_args_is_help=True)
app.add_typer(studies_app, name="studies")

# ---------------------------------------------------------------- studies

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


def _from_file(path: Path | None) -> dict[str, Any]:
    """The settings a `--settings` file gives (all of its problems, located, if any)."""
    if path is None:
        return {}
    try:
        data = path.read_bytes()
    except OSError as error:
        raise fail(f"{path}: cannot read it ({error})") from None
    with refusals():
        return read_settings(str(path), data)


def _design(
    consent_file: Path | None,
    no_consent: bool,
    survey_file: Path | None,
    screenout_code: str | None,
    completion_url: str | None,
    preference: bool | None,
    rationale: str | None,
    aspect_checklist: bool | None = None,
    adjudication_threshold: float | None = None,
    checks_file: Path | None = None,
) -> dict[str, Any]:
    """The study design options given on the command line (issue 14)."""
    settings: dict[str, Any] = {
        "screenout_code": screenout_code,
        "completion_url": completion_url,
        "ask_preference": preference,
        "rationale": rationale,
        "aspect_checklist": aspect_checklist,
        "adjudication_threshold": adjudication_threshold,
    }
    if consent_file is not None:
        settings["consent_text"] = _read(consent_file)
    if no_consent:
        settings["consent_text"] = ""
    for key, path in (("survey_questions", survey_file), ("instructed_checks", checks_file)):
        if path is not None:
            settings[key] = _json_list(path)
    return {k: v for k, v in settings.items() if v is not None}


def _platform(
    platform: str | None,
    platform_study_id: str | None,
    reward: int | None,
    currency: str | None,
    platform_fee: float | None,
    bonus_rule: str | None,
) -> dict[str, Any]:
    """The crowd platform and the study's money (issue 34.3); '' clears the platform."""
    given: dict[str, Any] = {
        "reward": reward,
        "currency": currency.strip().upper() if currency is not None else None,
        "platform_fee_percent": platform_fee,
        "bonus_rule": bonus_rule,
    }
    settings = {k: v for k, v in given.items() if v is not None}
    if platform is not None:
        settings["platform"] = platform.strip() or None
    if platform_study_id is not None:
        settings["platform_study_id"] = platform_study_id.strip() or None
    return settings


_PLATFORM = _platform.__code__.co_varnames[: _platform.__code__.co_argcount]

DESIGN_SETTINGS = frozenset({"overlap", "count_simulated", *PLAN_SETTINGS, "exclusion_rules"})
"""Settings whose change alters a study's design after the fact: confirmed first (--yes)."""


def _json_list(path: Path) -> Any:
    try:
        return json.loads(_read(path))
    except json.JSONDecodeError as error:
        raise fail(f"{path}, line {error.lineno}: not JSON ({error.msg})") from None


def _value(value: object) -> str:
    return "not set" if value is None or value == "" else str(value)


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise fail(f"{path}: cannot read it ({error})") from None


def _questionnaire(value: str) -> dict[str, Any]:
    """`--questionnaire rmbench` or `--questionnaire FILE.yaml`, as the study stores it."""
    if value.strip() in TEMPLATES:
        return TEMPLATES[value.strip()].stored()
    path = Path(value)
    if not path.is_file():
        raise fail(
            f"--questionnaire {value!r}: expected a template ({', '.join(TEMPLATES)}) or a "
            "YAML or JSON file"
        )
    try:
        return read_questionnaire(str(path), _read(path)).stored()
    except QuestionnaireError as error:
        raise fail(str(error)) from None


def _settings(
    seed: int | None,
    questionnaire: str | None,
    guidelines: str | None,
    guidelines_file: Path | None,
    margin: float | None,
    margin_unit: str | None,
    smallest_effect: str | None,
    alpha: float | None,
    planned_pairs: int | None,
    stopping_rule: str | None,
    sequential: str | None,
    count_simulated: bool | None,
    completion_code: str | None,
    overlap: int | None,
    reservation_minutes: int | None,
    gold_rate: float | None,
    pool: bool | None,
    pool_quota: int | None,
    finish_minimum: int | None,
    finish_counts_flags: bool | None,
    finish_counts_skips: bool | None,
    skip_limit: int | None,
    pool_order: str | None,
    enrolment: bool | None,
    close_at_stop: bool | None,
) -> dict[str, Any]:
    if guidelines_file is not None:
        guidelines = guidelines_file.read_text(encoding="utf-8")
    settings: dict[str, Any] = {
        "seed": seed,
        "questionnaire": None if questionnaire is None else _questionnaire(questionnaire),
        "guidelines": guidelines,
        "equivalence_margin": margin,
        "margin_unit": margin_unit,
        "alpha": alpha,
        "stopping_rule": stopping_rule,
        "count_simulated": count_simulated,
        "completion_code": completion_code,
        "overlap": overlap,
        "reservation_minutes": reservation_minutes,
        "gold_rate": gold_rate,
        "pool_open": pool,
        "pool_order": pool_order,
        "enrolment_open": enrolment,
        "close_at_stop": close_at_stop,
        "finish_counts_flags": finish_counts_flags,
        "finish_counts_skips": finish_counts_skips,
    }
    settings = {k: v for k, v in settings.items() if v is not None}
    if pool_quota is not None:
        settings["pool_quota"] = pool_quota or None
    if finish_minimum is not None:
        settings["finish_minimum"] = finish_minimum or None
    if skip_limit is not None:
        settings["skip_limit"] = None if skip_limit < 0 else skip_limit
    if planned_pairs is not None:
        settings["planned_pairs"] = planned_pairs or None
    if smallest_effect is not None:
        settings["smallest_effect"] = _smallest_effect(smallest_effect)
    if sequential is not None:
        settings["sequential"] = sequential_plan(sequential)
    return settings


def _or(value: int | None, default: str) -> int | str:
    return default if value is None else value


SEQUENTIAL_WORDS = {"looks": "looks", "unit": "unit", "alpha": "alpha_spending",
                    "futility": "futility", "beta": "beta", "binding": "binding"}  # fmt: skip


def sequential_plan(text: str) -> dict[str, Any] | None:
    """`--sequential 'looks=30,60,90,120 alpha=pocock futility=pocock'` as the plan's mapping
    (checked by `check_sequential_plan`); 'none' or '': no plan."""
    if text.strip().lower() in ("", "none"):
        return None
    plan: dict[str, Any] = {}
    for word in text.split():
        key, sep, value = word.partition("=")
        if not sep or key not in SEQUENTIAL_WORDS:
            raise fail(f"--sequential {word!r}: expected one of {', '.join(SEQUENTIAL_WORDS)}=...")
        plan[SEQUENTIAL_WORDS[key]] = _sequential_value(key, value)
    try:
        return check_sequential_plan(plan)
    except ValueError as error:
        raise fail(f"--sequential: {error}") from None


def _sequential_value(key: str, value: str) -> Any:
    try:
        if key == "looks":
            return [int(n) for n in value.split(",")]
        if key == "beta":
            return float(value)
    except ValueError:
        raise fail(f"--sequential {key}={value!r}: expected numbers") from None
    if key == "binding":
        return value.lower() in ("yes", "true", "1")
    return None if key == "futility" and value.lower() == "none" else value


def _smallest_effect(value: str) -> float | None:
    if value.strip().lower() == "margin":
        return None
    try:
        number = float(value)
    except ValueError:
        raise fail(f"--smallest-effect {value!r}: expected a number or 'margin'") from None
    if not 0 < number < float("inf"):
        raise fail(
            f"--smallest-effect {value!r}: expected a number above 0 or 'margin' (at 0 any "
            "positive difference would diverge)"
        )
    return number


_SETTINGS = _settings.__code__.co_varnames[: _settings.__code__.co_argcount]


def _study_options(
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

    The options of `studies create` and `studies edit` (`_with_study_options`)."""
    given = {k: v for k, v in locals().items() if k != "settings_file"}
    money = _platform(**{k: given.pop(k) for k in _PLATFORM})
    settings = _settings(**{k: given.pop(k) for k in _SETTINGS}) | _design(**given) | money
    return _from_file(settings_file) | settings


def _with_study_options(command: Callable[..., None]) -> Callable[..., None]:
    """`command(name, settings, **own options)` as a Typer command whose options are the study
    options (`_study_options`, shown after `name`) and its own; it is called with the settings
    they give."""
    shared = inspect.signature(_study_options, eval_str=True).parameters
    own = inspect.signature(command, eval_str=True).parameters
    name, _settings_param, *rest = own.values()

    @functools.wraps(command)
    def run(**given: Any) -> None:
        settings = _study_options(**{k: given.pop(k) for k in shared})
        command(given.pop(name.name), settings, **given)

    parameters = [name, *shared.values(), *rest]
    run.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    run.__annotations__ = {p.name: p.annotation for p in parameters}
    return run


@studies_app.command("create")
@_with_study_options
def studies_create(
    name: Annotated[str, typer.Argument(help="Study name.")], settings: dict[str, Any]
) -> None:
    """Create a study (settings not given keep their defaults)."""
    with refusals():
        _show(studies.create_study(State.engine(), ACTOR, name, **settings))


@studies_app.command("edit")
@_with_study_options
def studies_edit(
    name: Annotated[str, typer.Argument(help="Study name.")],
    settings: dict[str, Any],
    force: ForceOption = False,
    yes: YesOption = False,
) -> None:
    """Change some settings of a study; the others stay as they are. A change of the design
    (overlap, the analysis plan) is confirmed first (--yes); the plan is locked once the
    study has ratings (--force, audited)."""
    if not settings:
        raise fail("nothing to change; see --help for the settings")
    with refusals():
        preview = studies.preview_study_changes(State.engine(), ACTOR, name, **settings)
    design = [
        f"{key}: {_value(now)} -> {_value(after)}"
        for key, (now, after) in preview.items()
        if key in DESIGN_SETTINGS
    ]
    confirmed(f"studies edit {name}", design, yes)
    with refusals():
        _show(studies.update_study(State.engine(), ACTOR, name, force=force, **settings))


@studies_app.command("show")
def studies_show(name: Annotated[str, typer.Argument(help="Study name.")]) -> None:
    """Print a study's settings (and its enrolment link when enrolment is open)."""
    with refusals():
        _show(studies.get_study(State.engine(), ACTOR, name))


@studies_app.command("list")
def studies_list() -> None:
    """List studies with their pair count."""
    with refusals():
        lines = studies.study_lines(State.engine(), ACTOR)
    for line in lines:
        mode = "pool" if line.pool_open else "plan"
        out.print(f"{line.name}\t{line.pairs} pairs\tk={line.overlap}\t{mode}", markup=False)


def _questionnaire_rows(questionnaire: Questionnaire) -> list[tuple[str, str]]:
    """The questionnaire, one line per question: key (role): label, its answers; its text."""
    rows = [("questionnaire", template_name(questionnaire) or "custom")]
    for q in questionnaire.questions:
        words = ", ".join(f"{v}={q.word_for(v)}" if q.word_for(v) != str(v) else str(v)
                          for v in q.values)  # fmt: skip
        rows.append((f"question {q.key} ({q.role})", f"{q.label}: {words}"))
        rows.append((f"text {q.key}", q.text))
    rows += [(f"span label {s.key}", s.label) for s in questionnaire.span_labels]
    return rows


def _show(study: Study) -> None:
    rows = [
        ("name", study.name),
        ("seed", study.seed),
        *_questionnaire_rows(questionnaire_of(study)),
        ("guidelines", _shortened(study.guidelines) or "-"),
        ("equivalence margin", f"{study.equivalence_margin} {study.margin_unit}"),
        ("smallest effect", _sesoi(study)),
        ("alpha", f"{study.alpha:g}"),
        ("planned pairs", study.planned_pairs or "-"),
        ("stopping rule", _shortened(study.stopping_rule) or "-"),
        ("group-sequential plan", sequential_words(study.sequential)),
        ("plan set at", study.margin_set_at.isoformat() if study.margin_set_at else "-"),
        ("earlier plans", _margin_history(study.margin_history)),
        ("simulated ratings", "counted" if study.count_simulated else "left out"),
        ("completion code", study.completion_code or "-"),
        ("overlap k", study.overlap),
        ("open pool", "open" if study.pool_open else "closed"),
        ("reservation minutes", study.reservation_minutes),
        ("pool quota", study.pool_quota or "no limit"),
        ("pool order", study.pool_order),
        ("pairs before Finish", study.finish_minimum or "the pool quota"),
        ("finish rule counts", counts_words(study)),
        ("skip-and-flag limit", _or(study.skip_limit, "the pool quota")),
        ("gold rate", study.gold_rate),
        ("crowd enrolment", "open" if study.enrolment_open else "closed"),
        ("close enrolment at a stop", "on" if study.close_at_stop else "off"),
        ("enrolment closed by the plan", closed_words(study) or "-"),
        ("consent page", _shortened(study.consent_text) or "-"),
        ("survey questions", ", ".join(q["id"] for q in study.survey_questions) or "-"),
        ("instructed checks", checks_words(study.instructed_checks)),
        ("screen-out code", study.screenout_code or "-"),
        ("completion URL", study.completion_url or "-"),
        ("preference", f"asked, rationale {study.rationale}" if study.ask_preference else "-"),
        ("aspect checklist", "on" if study.aspect_checklist else "off"),
        ("adjudication threshold", _number(study.adjudication_threshold)),
        ("training", _training(study)),
        ("platform", study.platform or "-"),
        ("platform study id", study.platform_study_id or "-"),
        ("reward", _money(study.reward, study.currency)),
        ("platform fee", f"{study.platform_fee_percent:g}%"),
        ("bonus rule", study.bonus_rule or "-"),
    ]
    for key, value in rows:
        out.print(f"{key}\t{value}", highlight=False, markup=False)
    if study.enrolment_open:
        link = enrolment_link(study.name, study.enrolment_key or "")
        out.print(f"enrolment link\t{link}", highlight=False, markup=False)


def _money(minor: int | None, currency: str) -> str:
    return "-" if minor is None else f"{major_units(minor)} {currency}"


def _training(study: Study) -> str:
    pairs, questions = len(study.practice_pairs), len(study.comprehension_questions)
    if not pairs and not questions:
        return "-"
    return (
        f"{pairs} practice pair(s), {questions} comprehension question(s), "
        f"{study.comprehension_attempts} attempt(s)"
    )


def _sesoi(study: Study) -> str:
    if study.smallest_effect is None:
        return f"the margin ({study.equivalence_margin:g} {study.margin_unit})"
    return f"{study.smallest_effect:g} {study.margin_unit}"


def _margin_history(history: list[dict[str, Any]]) -> str:
    earlier = [
        f"margin {h['margin']} {h['unit']}"
        + "".join(f", {k} {h[k]}" for k in ("smallest_effect", "alpha", "planned_pairs") if k in h)
        + f" (set {h['set_at'] or '?'}"
        + (", replaced after data" if h.get("forced") else "")
        + ")"
        for h in history
    ]
    return "; ".join(earlier) or "-"


def _shortened(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
