"""Admin: create a study and edit its settings (the questionnaire, guidelines, margin, overlap,
pool, gold, and the study design: consent, survey, the crowd's codes and completion URL, the
preference; training and the settings file: `study_files`)."""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

from annotate.app.admin import study_plan
from annotate.app.admin.admin_common import (
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
from annotate.app.admin.settings_inputs import (
    Unread,
    help_text,
    label,
    other_inputs,
    read_json,
    setting_input,
)
from annotate.app.admin.study_files import (
    STUDY_FILE_FORMS,
    draw_settings_file,
    draw_training_settings,
)
from annotate.app.admin.study_rules import draw_rules
from annotate.app.safe_text import plain_text
from annotate.app.session import engine
from annotate.app.study_picker import STUDY, page_title
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
from annotate.services.admin import studies
from annotate.vocabulary import MARGIN_UNITS, PLATFORM_NAMES, RATIONALE_MODES

_box = setting_input  # a setting's input in a column of the form


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
        changes |= other_inputs(study, key, drawn=changes)
        saved = st.form_submit_button("Save settings", type="primary")
    unread = [str(value) for value in changes.values() if isinstance(value, Unread)]
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
    return {"seed": _box(st, study, "seed", f"{key}_seed")}


CUSTOM = "custom (the text below)"


def _questionnaire_inputs(study: Study, key: str) -> dict[str, Any]:
    """The questionnaire: a template's name, or the text of a custom one (read when saved: a
    text that cannot be read is returned as a QuestionnaireError for the form to show)."""
    st.markdown("##### Questionnaire and guidelines")
    current = questionnaire_of(study)
    name = template_name(current)
    choices = [*TEMPLATES, CUSTOM]
    picked = st.selectbox(
        label("questionnaire"),
        choices,
        index=choices.index(name or CUSTOM),
        key=f"{key}_questionnaire",
        help=help_text("questionnaire"),
    )
    text = st.text_area(
        "Custom questionnaire (YAML or JSON; read when the picker says custom)",
        value=questionnaire_text(current),
        height=200,
        key=f"{key}_questionnaire_text",
    )
    guidelines = st.text_area(
        label("guidelines"),
        value=study.guidelines,
        height=120,
        key=f"{key}_guidelines",
        help=help_text("guidelines"),
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
    unit = unit_box.selectbox(
        label("margin_unit"),
        MARGIN_UNITS,
        index=MARGIN_UNITS.index(study.margin_unit),
        format_func=lambda u: {"points": "scale points", "sd": "SD of differences"}[u],
        key=f"{key}_margin_unit",
        help=help_text("margin_unit"),
    )
    changes = {
        "equivalence_margin": _box(margin_box, study, "equivalence_margin", f"{key}_margin",
                                   min_value=0.01, step=0.1),
        "margin_unit": unit,
        "completion_code": _box(code_box, study, "completion_code", f"{key}_code"),
        "overlap": _box(k_box, study, "overlap", f"{key}_k", min_value=1),
    }  # fmt: skip
    reservation_box, quota_box, gold_box, minimum_box = st.columns(4)
    limit_box, flags_box, skips_box = st.columns(3)
    toggles = st.columns(4)
    crowd = f"Opening crowd enrolment sets {DEFAULT_CROWD_QUOTA} pairs per person when none is set."
    changes |= {
        "reservation_minutes": _box(reservation_box, study, "reservation_minutes",
                                    f"{key}_reservation", min_value=1, step=5),
        "pool_quota": _box(quota_box, study, "pool_quota", f"{key}_quota", none_as=0,
                           min_value=0),
        "gold_rate": _box(gold_box, study, "gold_rate", f"{key}_gold", min_value=0.0,
                          max_value=0.9, step=0.05),
        "finish_minimum": _box(minimum_box, study, "finish_minimum", f"{key}_finish_minimum",
                               none_as=0, min_value=0,
                               help=f"{help_text('finish_minimum')} {crowd}"),
        "skip_limit": _box(limit_box, study, "skip_limit", f"{key}_skip_limit", none_as=-1,
                           min_value=-1),
        "finish_counts_flags": _box(flags_box, study, "finish_counts_flags",
                                    f"{key}_counts_flags"),
        "finish_counts_skips": _box(skips_box, study, "finish_counts_skips",
                                    f"{key}_counts_skips"),
        "pool_open": _box(toggles[0], study, "pool_open", f"{key}_pool"),
        "enrolment_open": _box(toggles[1], study, "enrolment_open", f"{key}_enrol"),
        "close_at_stop": _box(toggles[2], study, "close_at_stop", f"{key}_close_at_stop"),
        "pool_order": pool_order_select(toggles[3], study, f"{key}_pool_order"),
    }  # fmt: skip
    return changes


def _design_inputs(study: Study, key: str) -> dict[str, Any]:
    """Consent, survey, the crowd's way out and the direct preference (all off by default)."""
    st.markdown("##### Study design: consent, survey, completion, preference")
    consent = st.text_area(
        label("consent_text"),
        value=study.consent_text,
        height=100,
        key=f"{key}_consent",
        help=help_text("consent_text"),
    )
    survey = st.text_area(
        label("survey_questions"),
        value=json.dumps(study.survey_questions, indent=1) if study.survey_questions else "",
        height=100,
        key=f"{key}_survey",
        help=help_text("survey_questions"),
    )
    cols, asks = st.columns([1, 2]), st.columns(2)
    url_example = "https://app.prolific.com/submissions/complete?cc={code}"
    changes = {
        "screenout_code": _box(cols[0], study, "screenout_code", f"{key}_screenout"),
        "completion_url": _box(cols[1], study, "completion_url", f"{key}_completion_url",
                               placeholder=url_example),
        "ask_preference": _box(asks[0], study, "ask_preference", f"{key}_preference"),
    }  # fmt: skip
    rationale = asks[1].selectbox(
        label("rationale"),
        RATIONALE_MODES,
        index=RATIONALE_MODES.index(study.rationale),
        key=f"{key}_rationale",
        help=help_text("rationale"),
    )
    checklist = _box(st, study, "aspect_checklist", f"{key}_aspect_checklist")
    checks = st.text_area(
        label("instructed_checks"),
        value=json.dumps(study.instructed_checks, indent=1) if study.instructed_checks else "",
        height=100,
        key=f"{key}_checks",
        help=help_text("instructed_checks"),
    )
    return changes | {
        "aspect_checklist": checklist,
        "consent_text": consent,
        "survey_questions": read_json(survey, "Survey questions", []),
        "instructed_checks": read_json(checks, "Instructed-response checks", []),
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
        label("platform"),
        options,
        index=options.index(study.platform or NO_PLATFORM),
        format_func=lambda n: {"completion_url": "other (completion URL, no API)"}.get(n, n),
        key=f"{key}_platform",
        help=help_text("platform"),
    )
    reward_box, fee_box, bonus_box = st.columns(3)
    return {
        "platform": None if name == NO_PLATFORM else name,
        "platform_study_id": _box(study_id, study, "platform_study_id",
                                  f"{key}_platform_study_id"),
        "currency": _box(currency, study, "currency", f"{key}_currency").strip().upper(),
        "reward": _box(reward_box, study, "reward", f"{key}_reward", none_as=0, min_value=0,
                       step=10),
        "platform_fee_percent": _box(fee_box, study, "platform_fee_percent",
                                     f"{key}_platform_fee", min_value=0.0, max_value=100.0,
                                     step=0.5),
        "bonus_rule": _box(bonus_box, study, "bonus_rule", f"{key}_bonus_rule").strip(),
    }  # fmt: skip


if __name__ == "__main__":
    draw()
