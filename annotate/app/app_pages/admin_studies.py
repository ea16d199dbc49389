"""Admin: create a study and edit its settings (the questionnaire, guidelines, margin, overlap,
pool, gold, and the study design: consent, survey, the crowd's codes and completion URL, the
preference; training and the settings file: `study_files`)."""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

from annotate.app import study_plan
from annotate.app.app_pages.admin_common import (
    act,
    actor_id,
    ask_settings_change,
    choose_study,
    draw_pending,
    draw_pending_here,
    link_base,
    notify,
    pool_order_select,
    show_notice,
)
from annotate.app.app_pages.study_files import (
    STUDY_FILE_FORMS,
    draw_settings_file,
    draw_training_settings,
)
from annotate.app.safe_text import plain_text
from annotate.app.session import engine
from annotate.app.study_picker import STUDY, page_title
from annotate.app.study_rules import draw_rules
from annotate.db.tables import Study
from annotate.domain.operations.monitor import closed_words
from annotate.domain.study.questionnaire import (
    QuestionnaireError,
    questionnaire_of,
    questionnaire_text,
    read_questionnaire,
    template_name,
)
from annotate.domain.study.studies import DEFAULT_CROWD_QUOTA
from annotate.questionnaire import TEMPLATES
from annotate.services import studies
from annotate.vocabulary import MARGIN_UNITS, PLATFORM_NAMES, RATIONALE_MODES

SURVEY_HELP = (
    'A JSON list, e.g. [{"id": "age", "text": "Your age band", "kind": "choice", '
    '"options": ["18-29", "30-49", "50+"]}, {"id": "field", "text": "Your field", "kind": "text"}]'
)
CHECKS_HELP = (
    'A JSON list, e.g. [{"text": "For this item, select Somewhat.", "options": ["Not at all", '
    '"Somewhat", "Very much"], "expected": "Somewhat", "after": 2}]: shown to crowd participants '
    "after that many pairs; a first wrong answer is warned, a second ends their work with the "
    'status "failed checks" and no completion code.'
)


def draw() -> None:
    name = choose_study()
    page_title("Studies", name)
    here = ("settings", *STUDY_FILE_FORMS) if name is not None else ()
    draw_pending(here=here)  # a change asked on this page is confirmed under its form
    show_notice(here=here)
    _draw_create()
    if name is None:
        return
    study_rows = act(lambda: studies.list_studies(engine(), actor_id())) or []
    study = next(s for s in study_rows if s.name == name)
    st.subheader(f"Settings of {plain_text(study.name)}")
    _draw_settings(study)
    draw_rules(study.name, actor_id(), act, notify)
    draw_training_settings(study)
    draw_settings_file(study)


def _draw_create() -> None:
    with st.expander("Create a study", icon=":material/add:"):
        with st.form("create_study"):
            name = st.text_input("Name", key="new_study_name")
            seed = st.number_input(
                "Seed (empty: drawn at random)", value=None, step=1, key="new_study_seed"
            )
            created = st.form_submit_button("Create study", type="primary")
        if created:
            settings = {} if seed is None else {"seed": int(seed)}
            study = act(lambda: studies.create_study(engine(), actor_id(), name, **settings))
            if study is not None:
                st.session_state[STUDY] = study.name
                notify(f"Study {plain_text(study.name)} created.")
                st.rerun()


def _draw_settings(study: Study) -> None:
    key = f"study_{study.id}"
    plan = act(lambda: studies.study_plan(engine(), actor_id(), study.name)) or {}
    with st.form(f"settings_{study.id}"):
        changes = _seed_input(study, key)
        changes |= _questionnaire_inputs(study, key)
        changes |= _work_inputs(study, key)
        changes |= study_plan.plan_inputs(study, key, plan)
        force = study_plan.force_box(key, plan)
        changes |= _design_inputs(study, key)
        changes |= _platform_inputs(study, key)
        saved = st.form_submit_button("Save settings", type="primary")
    unread = [str(v) for k in JSON_LISTS if isinstance(v := changes[k], str)]
    if isinstance(changes["questionnaire"], QuestionnaireError):
        unread.append(str(changes["questionnaire"]))
    if saved and unread:
        for problem in unread:
            st.error(problem)  # the list's JSON, located
    elif saved:
        ask_settings_change(
            "settings",
            study.name,
            changes,
            f"Settings of {plain_text(study.name)} saved.",
            force=force,
        )
    draw_pending_here("settings")
    if study.enrolment_open and not study.completion_code:
        st.warning(
            "Crowd enrolment is open but the study has no completion code: participants who "
            "finish get no code to prove it. Set one above.",
            icon=":material/warning:",
        )
    closed = closed_words(study)
    if closed:
        st.info(plain_text(closed), icon=":material/block:")
    if study.enrolment_open:
        st.markdown("**Crowd enrolment link** (paste it into the platform's study URL):")
        st.code(
            studies.study_enrolment_link(engine(), actor_id(), study.name, link_base()),
            language=None,
        )


def _seed_input(study: Study, key: str) -> dict[str, Any]:
    seed = st.number_input(
        "Seed",
        value=study.seed,
        step=1,
        key=f"{key}_seed",
        help="Draws the blinding and the plan. Fixed once any pair is assigned.",
    )
    return {"seed": int(seed)}


CUSTOM = "custom (the text below)"
QUESTIONNAIRE_HELP = (
    "What annotators are asked of each response. A template, or your own questions in YAML or "
    "JSON: `questions:` a list of {key, label, text, points: [1, 2, 3, 4, 5], anchors: {1: Very "
    "poor, ...} or choices: [...], role: tie | diverge | describe}, and optional `span_labels:`. "
    "Locked once the study has ratings."
)


def _questionnaire_inputs(study: Study, key: str) -> dict[str, Any]:
    """The questionnaire: a template's name, or the text of a custom one (read when saved: a
    text that cannot be read is returned as a QuestionnaireError for the form to show)."""
    st.markdown("##### Questionnaire and guidelines")
    current = questionnaire_of(study)
    name = template_name(current)
    choices = [*TEMPLATES, CUSTOM]
    picked = st.selectbox(
        "Questionnaire",
        choices,
        index=choices.index(name or CUSTOM),
        key=f"{key}_questionnaire",
        help=QUESTIONNAIRE_HELP,
    )
    text = st.text_area(
        "Custom questionnaire (YAML or JSON; read when the picker says custom)",
        value=questionnaire_text(current),
        height=200,
        key=f"{key}_questionnaire_text",
    )
    guidelines = st.text_area(
        "Guidelines shown to annotators (Markdown)",
        value=study.guidelines,
        height=120,
        key=f"{key}_guidelines",
    )
    value: Any = picked
    if picked == CUSTOM:
        try:
            value = read_questionnaire("the custom questionnaire", text).stored()
        except QuestionnaireError as error:
            value = error
    return {"questionnaire": value, "guidelines": guidelines}


def _work_inputs(study: Study, key: str) -> dict[str, Any]:
    st.markdown("##### Analysis, overlap and the open pool")
    margin_box, unit_box, code_box, k_box = st.columns(4)
    margin = margin_box.number_input(
        "Equivalence margin",
        value=float(study.equivalence_margin),
        min_value=0.01,
        step=0.1,
        key=f"{key}_margin",
        help="Pre-registered: locked once the study has ratings (a forced change is audited "
        "and shown in the report and the card).",
    )
    unit = unit_box.selectbox(
        "Unit",
        MARGIN_UNITS,
        index=MARGIN_UNITS.index(study.margin_unit),
        format_func=lambda u: {"points": "scale points", "sd": "SD of differences"}[u],
        key=f"{key}_margin_unit",
    )
    code = code_box.text_input(
        "Completion code", value=study.completion_code or "", key=f"{key}_code"
    )
    overlap = k_box.number_input(
        "Annotators per pair (k)", value=study.overlap, min_value=1, step=1, key=f"{key}_k"
    )
    reservation_box, quota_box, gold_box, minimum_box = st.columns(4)
    reservation = reservation_box.number_input(
        "Reservation (minutes)",
        value=study.reservation_minutes,
        min_value=1,
        step=5,
        key=f"{key}_reservation",
    )
    quota = quota_box.number_input(
        "Pairs per person from the pool (0: no limit)",
        value=study.pool_quota or 0,
        min_value=0,
        step=1,
        key=f"{key}_quota",
    )
    minimum = minimum_box.number_input(
        "Crowd: pairs before Finish (0: the pairs per person)",
        value=study.finish_minimum or 0,
        min_value=0,
        step=1,
        key=f"{key}_finish_minimum",
        help="A crowd participant who has rated this many may finish with the completion code. "
        f"Opening crowd enrolment sets {DEFAULT_CROWD_QUOTA} pairs per person when none is set.",
    )
    gold_rate = gold_box.number_input(
        "Gold rate (share of each queue)",
        value=float(study.gold_rate),
        min_value=0.0,
        max_value=0.9,
        step=0.05,
        key=f"{key}_gold",
    )
    limit_box, flags_box, skips_box = st.columns(3)
    limit = limit_box.number_input(
        "Crowd: pairs one may set aside (-1: the pairs per person)",
        value=-1 if study.skip_limit is None else study.skip_limit,
        min_value=-1,
        step=1,
        key=f"{key}_skip_limit",
        help="Skipped pairs and flags without scores that the finish rule does not count are "
        "replaced by new pairs up to this many; then, short of the rule, the participant is "
        "screened out with the screen-out code.",
    )
    counts_flags = flags_box.toggle(
        "Crowd: flags without scores count towards Finish",
        value=study.finish_counts_flags,
        key=f"{key}_counts_flags",
    )
    counts_skips = skips_box.toggle(
        "Crowd: skips count towards Finish",
        value=study.finish_counts_skips,
        key=f"{key}_counts_skips",
    )
    toggles = st.columns(4)
    pool = toggles[0].toggle("Open pool", value=study.pool_open, key=f"{key}_pool")
    enrolment = toggles[1].toggle(
        "Crowd enrolment (needs the open pool)", value=study.enrolment_open, key=f"{key}_enrol"
    )
    close_at_stop = toggles[2].toggle(
        "Close enrolment when the plan says stop",
        value=study.close_at_stop,
        key=f"{key}_close_at_stop",
        help="Needs a group-sequential plan: when a look of it says stop, the Monitor page "
        "(or `prb-annotate monitor`) closes crowd enrolment, audited, and says why.",
    )
    order = pool_order_select(toggles[3], study, f"{key}_pool_order")
    return {
        "equivalence_margin": float(margin),
        "margin_unit": unit,
        "completion_code": code,
        "overlap": int(overlap),
        "reservation_minutes": int(reservation),
        "pool_quota": int(quota) or None,
        "finish_minimum": int(minimum) or None,
        "skip_limit": None if int(limit) < 0 else int(limit),
        "finish_counts_flags": counts_flags,
        "finish_counts_skips": counts_skips,
        "gold_rate": float(gold_rate),
        "pool_open": pool,
        "pool_order": order,
        "enrolment_open": enrolment,
        "close_at_stop": close_at_stop,
    }


def _design_inputs(study: Study, key: str) -> dict[str, Any]:
    """Consent, survey, the crowd's way out and the direct preference (all off by default)."""
    st.markdown("##### Study design: consent, survey, completion, preference")
    consent = st.text_area(
        "Consent page (Markdown; empty: no consent page)",
        value=study.consent_text,
        height=100,
        key=f"{key}_consent",
    )
    survey = st.text_area(
        "Survey questions after consent (JSON; empty: no survey)",
        value=json.dumps(study.survey_questions, indent=1) if study.survey_questions else "",
        height=100,
        key=f"{key}_survey",
        help=SURVEY_HELP,
    )
    cols = st.columns([1, 2])
    screenout = cols[0].text_input(
        "Screen-out code", value=study.screenout_code or "", key=f"{key}_screenout"
    )
    url = cols[1].text_input(
        "Completion URL ({code} is replaced by the code)",
        value=study.completion_url or "",
        placeholder="https://app.prolific.com/submissions/complete?cc={code}",
        key=f"{key}_completion_url",
    )
    asks = st.columns(2)
    ask = asks[0].toggle(
        "Ask which response fits better (after the scores)",
        value=study.ask_preference,
        key=f"{key}_preference",
    )
    rationale = asks[1].selectbox(
        "Rationale with the preference",
        RATIONALE_MODES,
        index=RATIONALE_MODES.index(study.rationale),
        key=f"{key}_rationale",
    )
    checklist = st.toggle(
        "Aspect checklist: mark each rubric aspect's coverage per response (0/1/2)",
        value=study.aspect_checklist,
        key=f"{key}_aspect_checklist",
    )
    checks = st.text_area(
        "Instructed-response checks between pairs (JSON; empty: none)",
        value=json.dumps(study.instructed_checks, indent=1) if study.instructed_checks else "",
        height=100,
        key=f"{key}_checks",
        help=CHECKS_HELP,
    )
    return {
        "aspect_checklist": checklist,
        "consent_text": consent,
        "survey_questions": _questions(survey, "Survey questions"),
        "instructed_checks": _questions(checks, "Instructed-response checks"),
        "screenout_code": screenout,
        "completion_url": url,
        "ask_preference": ask,
        "rationale": rationale,
    }


NO_PLATFORM = "none"


def _platform_inputs(study: Study, key: str) -> dict[str, Any]:
    """The crowd platform and the study's money (issue 34.3): what the Participants page's
    platform section sends and what the cost is reckoned from."""
    st.markdown("##### Crowd platform and pay")
    where, study_id, currency = st.columns(3)
    options = [NO_PLATFORM, *PLATFORM_NAMES]
    name = where.selectbox(
        "Platform",
        options,
        index=options.index(study.platform or NO_PLATFORM),
        format_func=lambda n: {"completion_url": "other (completion URL, no API)"}.get(n, n),
        key=f"{key}_platform",
    )
    platform_study = study_id.text_input(
        "The study's id on the platform",
        value=study.platform_study_id or "",
        key=f"{key}_platform_study_id",
    )
    money = currency.text_input("Currency", value=study.currency, key=f"{key}_currency")
    reward_box, fee_box, bonus_box = st.columns(3)
    reward = reward_box.number_input(
        "Reward per completed participant (pence, cents; 0: not set)",
        value=study.reward or 0,
        min_value=0,
        step=10,
        key=f"{key}_reward",
    )
    fee = fee_box.number_input(
        "Platform fee (%)",
        value=float(study.platform_fee_percent),
        min_value=0.0,
        max_value=100.0,
        step=0.5,
        key=f"{key}_platform_fee",
    )
    bonus = bonus_box.text_input(
        "Bonus rule ('' or per_extra_pair:N)",
        value=study.bonus_rule,
        key=f"{key}_bonus_rule",
        help="per_extra_pair:N pays N pence (cents) for each rated pair beyond the pairs asked "
        "before Finish, to those approved.",
    )
    return {
        "platform": None if name == NO_PLATFORM else name,
        "platform_study_id": platform_study.strip() or None,
        "currency": money.strip().upper(),
        "reward": int(reward) or None,
        "platform_fee_percent": float(fee),
        "bonus_rule": bonus.strip(),
    }


JSON_LISTS = ("survey_questions", "instructed_checks")  # the design settings typed as JSON


def _questions(text: str, what: str) -> list[Any] | str:
    """A list typed as JSON (`what`: its name), or the located reason it cannot be read."""
    if not text.strip():
        return []
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as error:
        return f"{what}, line {error.lineno}, column {error.colno}: {error.msg}"
    return parsed if isinstance(parsed, list) else [parsed]


if __name__ == "__main__":
    draw()
