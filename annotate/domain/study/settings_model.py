"""A study's settings, each declared once (issue 35, item 4).

`Settings` is the typed model of what an admin sets on a study: each field its type and default,
and a `Setting` beside it (`Annotated[type, Setting(...)]`) with its label and help text, its
group, and what it takes part in: the settings file (`file`), the locked analysis plan (`plan`:
its key in the plan's record), the confirmation a design change needs (`design`), how the
command line gives it (`cli`: none given derives `--the-name`, `--the-name/--no-the-name` for
a yes/no, `--the-name-file` of JSON for a list or mapping; `()` none), and a whole number's
bounds (`limits`, checked by `annotate.domain.study.studies.study_problems`). Everything else
is derived from it, never listed again:

* `EDITABLE` (what `create_study` / `update_study` accept) and its `LIMITS`, `PLAN_SETTINGS`
  and the plan record's keys and words (`annotate.domain.study.plan`), `DESIGN_SETTINGS`
  (confirmed first);
* the settings file's model (`annotate.domain.study.study_settings.StudySettings`): the fields
  whose `file` is true, in this order;
* the options of `prb-annotate studies create|edit` (`annotate.cli.study_options`);
* the Studies page's labels, help and words (`annotate.app.admin.settings_inputs`), and an input for
  any setting its laid-out forms do not draw.

A setting added here (and as a column of `annotate.db.tables.Study`, with the same default:
`tests/annotate/domain/study/test_settings_model.py` checks both agree) is in the file, the CLI and
the page without another edit.

Why 675 lines: one declaration per setting (44, each with its label, help text and options as
the formatter lays them out); splitting them would list the settings twice.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict
from pydantic.fields import FieldInfo

from annotate.domain.study import option_values as read
from annotate.domain.study.training_rules import ComprehensionQuestion, PracticePair
from annotate.questionnaire import DEFAULT_TEMPLATE, TEMPLATES
from annotate.vocabulary import DEFAULT_EQUIVALENCE_MARGIN


@dataclass(frozen=True)
class Option:
    """One command-line option of a setting. `names`: its flags (the first long one names the
    parameter; `--x/--no-x` for a yes/no); `kind`: its own type when not the setting's (`Path`
    for a file); `parse`: its value to the setting's (raises `OptionValueError`); `help`: when
    it differs from the setting's."""

    names: tuple[str, ...]
    help: str = ""
    kind: Any = None
    parse: Callable[[Any], Any] | None = None
    default: Any = None

    @property
    def param(self) -> str:
        first = next(n for n in self.names if n.startswith("--"))
        return first.split("/")[0].removeprefix("--").replace("-", "_")


@dataclass(frozen=True)
class Setting:
    """What a setting is besides its type and default (see the module's docstring)."""

    group: str
    label: str
    help: str = ""
    words: str = ""
    file: bool = True
    plan: str = ""
    design: bool = False
    cli: tuple[Option, ...] | None = None
    limits: tuple[int | None, int] | None = None
    """A whole number's (lowest, or None where the study's checks say it; highest)."""
    recorded_when_set: bool = False
    """A plan setting added after the plan's format was fixed: in the plan record only when set,
    so a study without it writes the plan (and report) it wrote before."""


def _zero(flag: str, what: str) -> tuple[Option, ...]:
    return (Option((flag,), f"{what} (0: none).", parse=read.zero_is_none),)


PLAN = "plan"
S = Setting


class Settings(BaseModel):
    """A study's editable settings with their defaults (the types a settings file must give)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    seed: Annotated[
        int | None,
        S(
            "study",
            "Seed",
            "Seed of the blinding draws and the plan; fixed once any pair is assigned.",
            file=False,
            limits=(0, 2**31 - 1),
        ),
    ] = None
    questionnaire: Annotated[
        str | dict[str, Any],
        S(
            "questions",
            "Questionnaire",
            f"What annotators are asked of each response: a template ({', '.join(TEMPLATES)}), "
            "or your own questions in YAML or JSON: `questions:` a list of {key, label, text, "
            "points: [1, 2, 3, 4, 5], anchors: {1: Very poor, ...} or choices: [...], role: tie "
            "| diverge | describe}, and optional `span_labels:`. Locked once the study has "
            "ratings.",
            cli=(
                Option(
                    ("--questionnaire",),
                    f"What annotators are asked: a template "
                    f"({', '.join(TEMPLATES)}) or a YAML/JSON file of questions (locked once the "
                    "study has ratings).",
                    kind=str,
                    parse=read.questionnaire_option,
                ),
            ),
        ),
    ] = DEFAULT_TEMPLATE
    guidelines: Annotated[
        str,
        S(
            "questions",
            "Guidelines shown to annotators (Markdown)",
            "Guideline text (Markdown).",
            cli=(
                Option(("--guidelines",)),
                Option(
                    ("--guidelines-file",), "Read guidelines from.", kind=Path, parse=read.read_text
                ),
            ),
        ),
    ] = ""
    equivalence_margin: Annotated[
        float,
        S(
            PLAN,
            "Equivalence margin",
            "Pre-registered equivalence margin, in the margin's unit: locked once the study has "
            "ratings (a forced change is audited and shown in the report and the card).",
            words="equivalence margin",
            plan="margin",
            cli=(Option(("--margin",), "Equivalence margin, in the unit of --margin-unit."),),
        ),
    ] = DEFAULT_EQUIVALENCE_MARGIN
    margin_unit: Annotated[
        str,
        S(
            PLAN,
            "Unit",
            "'points' (scale points) or 'sd' (SDs of the paired differences).",
            words="margin unit",
            plan="unit",
        ),
    ] = "points"
    smallest_effect: Annotated[
        float | None,
        S(
            PLAN,
            "Smallest effect of interest (empty: the margin)",
            "Pre-registered smallest effect of interest, in the margin's unit: rubric "
            "alignment must exceed it to diverge (empty: the margin).",
            words="smallest effect of interest",
            plan="smallest_effect",
            cli=(
                Option(
                    ("--smallest-effect",),
                    "Pre-registered smallest effect of interest, in "
                    "the margin's unit: rubric alignment must exceed it ('margin': the margin, the "
                    "default).",
                    kind=str,
                    parse=read.smallest_effect,
                ),
            ),
        ),
    ] = None
    alpha: Annotated[
        float, S(PLAN, "Alpha", "Pre-registered significance level.", plan="alpha")
    ] = 0.05
    planned_pairs: Annotated[
        int | None,
        S(
            PLAN,
            "Planned pairs (0: none)",
            "Pre-registered sample size: pairs to analyse; a verdict before it is interim.",
            words="planned pairs",
            plan="planned_pairs",
            cli=_zero(
                "--planned-pairs",
                "Pre-registered sample size: pairs to analyse; a verdict before it is interim",
            ),
        ),
    ] = None
    stopping_rule: Annotated[
        str,
        S(
            PLAN,
            "Stopping rule (in words; empty: none; not a pre-registered stopping plan)",
            "Pre-registered stopping rule, in words ('': none).",
            words="stopping rule",
            plan="stopping_rule",
        ),
    ] = ""
    sequential: Annotated[
        dict[str, Any] | None,
        S(
            PLAN,
            "Group-sequential plan",
            "Pre-registered group-sequential plan: looks (cumulative counts), unit (pairs or "
            "ratings), alpha_spending and futility (obrien-fleming or pocock), beta, binding.",
            words="group-sequential plan",
            plan="sequential",
            cli=(
                Option(
                    ("--sequential",),
                    "Pre-registered group-sequential plan: 'looks=30,60,"
                    "90,120 [unit=pairs|ratings] [alpha=obrien-fleming|pocock] [futility=obrien-"
                    "fleming|pocock] [beta=0.2] [binding=yes]' (Lan-DeMets spending; futility "
                    "non-binding by default; 'none': no plan).",
                    kind=str,
                    parse=read.sequential_plan,
                ),
            ),
        ),
    ] = None
    internal_pilot: Annotated[
        dict[str, Any] | None,
        S(
            PLAN,
            "Internal pilot",
            "Pre-registered internal pilot: first_stage_pairs, tie_alpha (each tie question's "
            "TOST level after the sample-size look; the superiority test keeps alpha).",
            words="internal pilot",
            plan="internal_pilot",
            recorded_when_set=True,
            cli=(
                Option(
                    ("--internal-pilot",),
                    "Pre-registered internal pilot: 'first=N [tie_alpha=0.04]' (a first stage of "
                    "N pairs, then one sample-size look; each tie question's TOST read at "
                    "tie_alpha after it, the superiority test at --alpha; `python -m analysis "
                    "size` recommends both; 'none': no internal pilot).",
                    kind=str,
                    parse=read.internal_pilot_plan,
                ),
            ),
        ),
    ] = None
    count_simulated: Annotated[
        bool,
        S(
            PLAN,
            "Count simulated ratings",
            "Count simulated annotators' ratings (prb-annotate synth ratings) in the verdict "
            "and the card (labelled); off: they stay out.",
            design=True,
        ),
    ] = False
    completion_code: Annotated[
        str | None, S("crowd", "Completion code", "Shown when a queue is finished.")
    ] = None
    overlap: Annotated[
        int,
        S(
            "pool",
            "Annotators per pair (k)",
            "Distinct annotators per pair.",
            words="annotators per pair (k)",
            design=True,
            limits=(None, 1000),
            cli=(Option(("--overlap", "-k")),),
        ),
    ] = 3
    reservation_minutes: Annotated[
        int,
        S(
            "pool",
            "Reservation (minutes)",
            "Open pool: how long a pulled pair is held.",
            words="reservation (minutes)",
            limits=(None, 7 * 24 * 60),
        ),
    ] = 60
    gold_rate: Annotated[
        float, S("pool", "Gold rate (share of each queue)", "Share of gold pairs in queues.")
    ] = 0.0
    pool_open: Annotated[
        bool,
        S(
            "pool",
            "Open pool",
            "Open or close the open pool.",
            words="open pool",
            file=False,
            cli=(Option(("--pool/--no-pool",)),),
        ),
    ] = False
    pool_quota: Annotated[
        int | None,
        S(
            "pool",
            "Pairs per person from the pool (0: no limit)",
            "Open pool: most pairs per annotator.",
            words="pairs per person",
            limits=(None, 10**7),
            cli=(
                Option(
                    ("--pool-quota",),
                    "Open pool: most pairs per annotator (0: no limit).",
                    parse=read.zero_is_none,
                ),
            ),
        ),
    ] = None
    finish_minimum: Annotated[
        int | None,
        S(
            "crowd",
            "Crowd: pairs before Finish (0: the pairs per person)",
            "Crowd: pairs a participant rates before Finish gives the completion "
            "code (at most the pairs per person; empty: the pairs per person).",
            words="pairs before Finish",
            cli=(
                Option(
                    ("--finish-minimum",),
                    "Crowd: pairs a participant rates before Finish "
                    "gives the completion code (at most --pool-quota; 0: the pool quota).",
                    parse=read.zero_is_none,
                ),
            ),
        ),
    ] = None
    finish_counts_flags: Annotated[
        bool,
        S(
            "crowd",
            "Crowd: flags without scores count towards Finish",
            "Crowd: a pair flagged without scores counts towards the finish rule (default: no).",
            words="flags without scores count towards Finish",
        ),
    ] = False
    finish_counts_skips: Annotated[
        bool,
        S(
            "crowd",
            "Crowd: skips count towards Finish",
            "Crowd: a skipped pair counts towards the finish rule (default: no).",
            words="skips count towards Finish",
        ),
    ] = False
    skip_limit: Annotated[
        int | None,
        S(
            "crowd",
            "Crowd: pairs one may set aside (-1: the pairs per person)",
            "Crowd: pairs a participant may set aside (skip, or flag without scores) before the "
            "pool stops; short of the finish rule they are then screened out (empty: the pairs "
            "per person).",
            words="pairs one may set aside",
            cli=(
                Option(
                    ("--skip-limit",),
                    "Crowd: pairs a participant may set aside (skip, or flag without scores) "
                    "before the pool stops; short of the finish rule they are then screened out "
                    "(-1: the pool quota, the default).",
                    parse=read.negative_is_none,
                ),
            ),
        ),
    ] = None
    pool_order: Annotated[
        str,
        S(
            "pool",
            "Order of the open pool",
            "Open pool: depth (fill "
            "partly rated pairs to k first; the default) or breadth (the pairs with the fewest "
            "ratings first).",
            words="order of the open pool",
        ),
    ] = "depth"
    enrolment_open: Annotated[
        bool,
        S(
            "crowd",
            "Crowd enrolment (needs the open pool)",
            "Accept crowd enrolment links.",
            words="crowd enrolment",
            file=False,
            cli=(Option(("--enrolment/--no-enrolment",)),),
        ),
    ] = False
    close_at_stop: Annotated[
        bool,
        S(
            "crowd",
            "Close enrolment when the plan says stop",
            "Close crowd enrolment when the group-sequential plan says stop (`prb-annotate "
            "monitor` and the Monitor page apply it, audited; the reason is kept and shown).",
            words="close enrolment when the plan says stop",
        ),
    ] = False
    consent_text: Annotated[
        str,
        S(
            "design",
            "Consent page (Markdown; empty: no consent page)",
            "Crowd: the consent page's text (Markdown; empty: no consent page).",
            words="consent page",
            cli=(
                Option(
                    ("--consent-file",),
                    "Crowd: consent page text (Markdown) read from this file.",
                    kind=Path,
                    parse=read.read_text,
                ),
                Option(
                    ("--no-consent",),
                    "Crowd: remove the consent page.",
                    kind=bool,
                    parse=read.cleared,
                    default=False,
                ),
            ),
        ),
    ] = ""
    survey_questions: Annotated[
        list[dict[str, Any]],
        S(
            "design",
            "Survey questions after consent (JSON; empty: no survey)",
            'Crowd: survey questions after consent, a JSON list, e.g. [{"id": "age", '
            '"text": "Your age band", "kind": "choice", "options": ["18-29", "30-49", "50+"]}, '
            '{"id": "field", "text": "Your field", "kind": "text"}].',
            words="survey questions",
            cli=(
                Option(
                    ("--survey-file",),
                    "Crowd: survey questions, a JSON list of {id, text, kind: "
                    "choice|text, options} ('[]' removes the survey).",
                    kind=Path,
                    parse=read.read_json,
                ),
            ),
        ),
    ] = []
    screenout_code: Annotated[
        str | None,
        S(
            "crowd",
            "Screen-out code",
            "Crowd: code for people screened out.",
            words="screen-out code",
        ),
    ] = None
    completion_url: Annotated[
        str | None,
        S(
            "crowd",
            "Completion URL ({code} is replaced by the code)",
            "Crowd: where the done page sends people; {code} is replaced, e.g. "
            "'https://app.prolific.com/submissions/complete?cc={code}'.",
            words="completion URL",
        ),
    ] = None
    ask_preference: Annotated[
        bool,
        S(
            "design",
            "Ask which response fits better (after the scores)",
            "Ask which response fits better, after the scores.",
            words="ask which response fits better",
            cli=(Option(("--preference/--no-preference",)),),
        ),
    ] = False
    rationale: Annotated[
        str,
        S(
            "design",
            "Rationale with the preference",
            "With the preference: off, optional or required.",
            words="rationale with the preference",
        ),
    ] = "off"
    aspect_checklist: Annotated[
        bool,
        S(
            "design",
            "Aspect checklist: mark each rubric aspect's coverage per response (0/1/2)",
            "Mark each rubric aspect's coverage per response (0 not, 1 partly, 2 well).",
        ),
    ] = False
    practice_pairs: Annotated[
        list[PracticePair],
        S(
            "training",
            "Practice pairs",
            "Training: practice pairs with expected scores and explanations.",
            cli=(),
        ),
    ] = []
    comprehension_questions: Annotated[
        list[ComprehensionQuestion],
        S(
            "training",
            "Comprehension questions",
            "Training: questions about the task, {id, text, options, correct}.",
            cli=(),
        ),
    ] = []
    comprehension_attempts: Annotated[
        int,
        S(
            "training",
            "Attempts at the comprehension check",
            "Training: attempts at the comprehension check before screen-out.",
            words="attempts at the comprehension check",
            cli=(),
        ),
    ] = 2
    instructed_checks: Annotated[
        list[dict[str, Any]],
        S(
            "design",
            "Instructed-response checks between pairs (JSON; empty: none)",
            'Crowd: instructed-response checks in the rating flow, e.g. [{"text": "For this item, '
            'select Somewhat.", "options": ["Not at all", "Somewhat", "Very much"], "expected": '
            '"Somewhat", "after": 2}]: shown after that many pairs; a first wrong answer is '
            'warned, a second ends their work with the status "failed checks" and no completion '
            "code.",
            words="instructed-response checks",
            cli=(
                Option(
                    ("--checks-file",),
                    "Crowd: instructed-response checks, a JSON list of {text, options, expected, "
                    "after} (shown after that many pairs; two failed end the participant's work, "
                    "no code; '[]' removes them).",
                    kind=Path,
                    parse=read.read_json,
                ),
            ),
        ),
    ] = []
    adjudication_threshold: Annotated[
        float | None,
        S(
            "adjudication",
            "Adjudication threshold",
            "Pairs whose annotators' rubric differences spread this much go to adjudication "
            "(clear it with `prb-annotate adjudication threshold`).",
        ),
    ] = None
    retention_days: Annotated[
        int | None,
        S(
            "design",
            "Retention (days; empty: kept until erased)",
            "Participants' platform ids and free text older than this many days are listed and "
            "erased by `prb-annotate retention`.",
        ),
    ] = None
    platform: Annotated[
        str | None,
        S(
            "platform",
            "Platform",
            "Crowd: the platform, prolific or completion_url ('': none).",
            words="crowd platform",
            cli=(Option(("--platform",), parse=read.blank_is_none),),
        ),
    ] = None
    platform_study_id: Annotated[
        str | None,
        S(
            "platform",
            "The study's id on the platform",
            "Crowd: the study's id on the platform.",
            words="the platform's study id",
            cli=(Option(("--platform-study-id",), parse=read.blank_is_none),),
        ),
    ] = None
    reward: Annotated[
        int | None,
        S(
            "platform",
            "Reward per completed participant (pence, cents; 0: not set)",
            "Crowd: pay per completed participant in minor units (pence, cents).",
            words="reward (minor units)",
        ),
    ] = None
    currency: Annotated[
        str,
        S(
            "platform",
            "Currency",
            "Crowd: GBP, USD, ... (default GBP).",
            cli=(Option(("--currency",), parse=read.currency_code),),
        ),
    ] = "GBP"
    platform_fee_percent: Annotated[
        float,
        S(
            "platform",
            "Platform fee (%)",
            "Crowd: the platform's fee, in percent.",
            words="platform fee (%)",
            cli=(Option(("--platform-fee",)),),
        ),
    ] = 0.0
    bonus_rule: Annotated[
        str,
        S(
            "platform",
            "Bonus rule ('' or per_extra_pair:N)",
            "Crowd: "
            "'per_extra_pair:N' (N minor units per rated pair beyond the minimum before Finish) or "
            "'' (no bonus).",
        ),
    ] = ""
    exclusion_rules: Annotated[
        dict[str, int | float],
        S(
            "rules",
            "Exclusion rules",
            "Pre-registered: set through annotate.domain.operations.exclusion_rules (refused once "
            "the study has ratings).",
            design=True,
            cli=(),
        ),
    ] = {}


def setting(name: str, model: type[BaseModel] = Settings) -> Setting:
    """The `Setting` declared with a field of `model`."""
    return spec_of(model.model_fields[name])


def spec_of(field: FieldInfo) -> Setting:
    return next(m for m in field.metadata if isinstance(m, Setting))


def settings_where(
    test: Callable[[Setting], object], model: type[BaseModel] = Settings
) -> tuple[str, ...]:
    """The settings of `model` whose `Setting` passes `test`, in the model's order."""
    return tuple(name for name, field in model.model_fields.items() if test(spec_of(field)))


EDITABLE = settings_where(lambda s: s.group != "rules")
"""Settings an admin may change through `create_study` / `update_study` (the exclusion rules
change through `annotate.domain.operations.exclusion_rules`)."""
FILE_SETTINGS = settings_where(lambda s: s.file)
PLAN_SETTINGS = settings_where(lambda s: s.plan)
"""The plan's settings on the study (the exclusion rules are the plan's other part)."""
DESIGN_SETTINGS = frozenset(settings_where(lambda s: s.plan or s.design))
"""Settings whose change alters a study's design after the fact: confirmed first (--yes)."""


def words(name: str) -> str:
    """A setting's name in prose (`pool_open` -> 'open pool')."""
    spec = setting(name) if name in Settings.model_fields else None
    return (spec.words if spec else "") or name.replace("_", " ")


def default(name: str, model: type[BaseModel] = Settings) -> Any:
    """A setting's default value (a fresh copy of a list or mapping)."""
    return model.model_fields[name].get_default(call_default_factory=True)
