"""Admin: create a study and edit its settings (scale, wording, margin, overlap, pool, gold,
and the study design: consent, survey, the crowd's codes and completion URL, the preference;
training and the settings file: `study_files`)."""

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
from annotate.domain.study.studies import DEFAULT_CROWD_QUOTA
from annotate.services import studies
from annotate.vocabulary import DIMENSIONS, MARGIN_UNITS, RATIONALE_MODES

SURVEY_HELP = (
    'A JSON list, e.g. [{"id": "age", "text": "Your age band", "kind": "choice", '
    '"options": ["18-29", "30-49", "50+"]}, {"id": "field", "text": "Your field", "kind": "text"}]'
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
        changes = _scale_inputs(study, key)
        changes |= _wording_inputs(study, key)
        changes |= _work_inputs(study, key)
        changes |= study_plan.plan_inputs(study, key, plan)
        force = study_plan.force_box(key, plan)
        changes |= _design_inputs(study, key)
        saved = st.form_submit_button("Save settings", type="primary")
    if saved and isinstance(changes["survey_questions"], str):
        st.error(changes["survey_questions"])  # the survey's JSON, located
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
    if study.enrolment_open:
        st.markdown("**Crowd enrolment link** (paste it into the platform's study URL):")
        st.code(
            studies.study_enrolment_link(engine(), actor_id(), study.name, link_base()),
            language=None,
        )


def _scale_inputs(study: Study, key: str) -> dict[str, Any]:
    st.markdown("##### Scale")
    low, high, seed = st.columns(3)
    frozen_scale = "Fixed once any score is given."
    scale_min = low.number_input(
        "Lowest score", value=study.scale_min, step=1, key=f"{key}_min", help=frozen_scale
    )
    scale_max = high.number_input(
        "Highest score", value=study.scale_max, step=1, key=f"{key}_max", help=frozen_scale
    )
    seed_value = seed.number_input(
        "Seed",
        value=study.seed,
        step=1,
        key=f"{key}_seed",
        help="Draws the blinding and the plan. Fixed once any pair is assigned.",
    )
    anchors = {}
    points = list(range(int(scale_min), int(scale_max) + 1)) if scale_max > scale_min else []
    for column, point in zip(st.columns(max(len(points), 1)), points, strict=False):
        anchors[str(point)] = column.text_input(
            f"Anchor {point}", value=study.anchors.get(str(point), ""), key=f"{key}_anchor_{point}"
        )
    return {
        "scale_min": int(scale_min),
        "scale_max": int(scale_max),
        "seed": int(seed_value),
        "anchors": anchors,
    }


def _wording_inputs(study: Study, key: str) -> dict[str, Any]:
    st.markdown("##### Dimensions and guidelines")
    labels, definitions = {}, {}
    for dim in DIMENSIONS:
        label_col, definition_col = st.columns([1, 2])
        labels[dim] = label_col.text_input(
            f"Label: {dim}", value=study.dimension_labels.get(dim, ""), key=f"{key}_label_{dim}"
        )
        definitions[dim] = definition_col.text_area(
            f"Definition: {dim}",
            value=study.dimension_definitions.get(dim, ""),
            height=68,
            key=f"{key}_definition_{dim}",
        )
    guidelines = st.text_area(
        "Guidelines shown to annotators (Markdown)",
        value=study.guidelines,
        height=120,
        key=f"{key}_guidelines",
    )
    return {
        "dimension_labels": labels,
        "dimension_definitions": definitions,
        "guidelines": guidelines,
    }


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
    toggles = st.columns(3)
    pool = toggles[0].toggle("Open pool", value=study.pool_open, key=f"{key}_pool")
    enrolment = toggles[1].toggle(
        "Crowd enrolment (needs the open pool)", value=study.enrolment_open, key=f"{key}_enrol"
    )
    order = pool_order_select(toggles[2], study, f"{key}_pool_order")
    return {
        "equivalence_margin": float(margin),
        "margin_unit": unit,
        "completion_code": code,
        "overlap": int(overlap),
        "reservation_minutes": int(reservation),
        "pool_quota": int(quota) or None,
        "finish_minimum": int(minimum) or None,
        "gold_rate": float(gold_rate),
        "pool_open": pool,
        "pool_order": order,
        "enrolment_open": enrolment,
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
    return {
        "aspect_checklist": checklist,
        "consent_text": consent,
        "survey_questions": _questions(survey),
        "screenout_code": screenout,
        "completion_url": url,
        "ask_preference": ask,
        "rationale": rationale,
    }


def _questions(text: str) -> list[Any] | str:
    """The survey questions typed as JSON, or the located reason they cannot be read."""
    if not text.strip():
        return []
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as error:
        return f"Survey questions, line {error.lineno}, column {error.colno}: {error.msg}"
    return parsed if isinstance(parsed, list) else [parsed]


if __name__ == "__main__":
    draw()
