"""Study commands of `prb-annotate`: create, edit, show and list studies (through
`annotate.services.admin.studies`, as the Studies page does)."""

from __future__ import annotations

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
from annotate.cli.study_options import with_study_options
from annotate.db.tables import Study
from annotate.domain.assignment.quota import counts_words
from annotate.domain.crowd.enrolment import enrolment_link
from annotate.domain.crowd.payment_rules import major_units
from annotate.domain.operations.monitor import closed_words
from annotate.domain.study.instructed_checks import checks_words
from annotate.domain.study.plan import internal_pilot_words, sequential_words
from annotate.domain.study.questionnaire import (
    questionnaire_of,
    template_name,
)
from annotate.domain.study.settings_model import DESIGN_SETTINGS
from annotate.questionnaire import Questionnaire
from annotate.services.admin import studies

studies_app = typer.Typer(help="Create, show and edit studies.", no_args_is_help=True)
app.add_typer(studies_app, name="studies")


def _value(value: object) -> str:
    return "not set" if value is None or value == "" else str(value)


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"


def _or(value: int | None, default: str) -> int | str:
    return default if value is None else value


@studies_app.command("create")
@with_study_options
def studies_create(
    name: Annotated[str, typer.Argument(help="Study name.")], settings: dict[str, Any]
) -> None:
    """Create a study (settings not given keep their defaults)."""
    with refusals():
        _show(studies.create_study(State.engine(), ACTOR, name, **settings))


@studies_app.command("edit")
@with_study_options
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
        ("internal pilot", internal_pilot_words(study.internal_pilot, study.alpha)),
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
