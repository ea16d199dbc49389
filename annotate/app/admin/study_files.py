"""The Studies page's training and settings-file sections (issue 14, items 3 and 6).

Training: the practice pairs, comprehension questions and attempts, edited as one YAML text (the
settings file's own format, so what an admin types here is what a file holds). Settings file:
download the study's settings as YAML or JSON; upload one, see each setting it changes (now,
after) and confirm. Both are checked by `annotate.services.admin.study_settings` like a file given
to `prb-annotate studies import-settings`, and saved in one audited transaction.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import streamlit as st
import yaml

from annotate.app.admin.admin_common import (
    act,
    actor_id,
    ask_confirmation,
    draw_pending_here,
    holds,
)
from annotate.app.downloads import offer_download
from annotate.app.safe_text import plain_text
from annotate.app.session import engine
from annotate.db.tables import Study
from annotate.domain.study.settings_model import settings_where
from annotate.services.admin import study_settings

STUDY_FILE_FORMS = ("training", "settings_file")  # the forms whose confirmation is drawn here
TRAINING_FIELDS = settings_where(lambda s: s.group == "training")
TRAINING_SOURCE = "training (Studies page)"
TRAINING_HELP = (
    "practice_pairs: [{id, question, response_a, response_b, expected: {relevance: {A: 5, B: 2}}, "
    "explanations: {relevance: why}}] (optional: category, narrative, profile, rubric_aspects); "
    "comprehension_questions: [{id, text, options: [...], correct: [0-based indices]}]; "
    "comprehension_attempts: 2. Quote Yes/No options in YAML."
)


def draw_training_settings(study: Study) -> None:
    """The study's training as YAML, saved after a confirmation (empty lists: no training)."""
    key = f"study_{study.id}_training"
    with st.expander(
        "Training before real work: practice pairs, comprehension check",
        expanded=holds("training"),
        key="training_expander",
    ):
        st.caption(
            "Annotators score each practice pair and then see the expected scores and why; then "
            "they answer the comprehension questions, with a set number of attempts. Only those "
            "who pass see real pairs; the others get the screen-out code. Gold pairs (Data page, "
            "gold rate) serve as attention checks mixed into the real queue."
        )
        current = {name: getattr(study, name) for name in TRAINING_FIELDS}
        with st.form(key):
            text = st.text_area(
                "Training (YAML)",
                value=yaml.safe_dump(current, sort_keys=False, allow_unicode=True, width=100),
                height=240,
                key=f"{key}_yaml",
                help=TRAINING_HELP,
            )
            saved = st.form_submit_button("Save training", type="primary")
        if saved:
            _ask(study.name, "training", TRAINING_SOURCE, f"{TRAINING_SOURCE}.yaml", text.encode())
        draw_pending_here("training")


def draw_settings_file(study: Study) -> None:
    """Download the settings; upload a file and confirm what it changes."""
    with st.expander(
        "Settings file: download, upload", expanded=holds("settings_file"), key="settings_expander"
    ):
        left, right = st.columns(2)
        for column, fmt in ((left, "yaml"), (right, "json")):
            text = act(
                partial(study_settings.export_settings, engine(), actor_id(), study.name, fmt)
            )
            if text is not None:
                offer_download(
                    column,
                    "settings_file",
                    f"Download settings ({fmt.upper()})",
                    partial(str, text),
                    file_name=f"{study.name}-settings.{fmt}",
                    mime="application/json" if fmt == "json" else "application/yaml",
                    key=f"settings_download_{fmt}",
                    icon=None,
                )
        upload = st.file_uploader(
            "Settings file (.yaml, .yml or .json; settings it leaves out are kept)",
            type=["yaml", "yml", "json"],
            key="settings_upload",
        )
        if upload is not None and st.button("Preview its changes", key="settings_preview"):
            _ask(study.name, "settings_file", upload.name, upload.name, upload.getvalue())
        draw_pending_here("settings_file")


def _ask(study: str, form: str, source: str, file: str, data: bytes) -> None:
    found = act(
        lambda: study_settings.preview_settings_file(engine(), actor_id(), study, file, data)
    )
    if found is None:
        return
    settings, preview = found
    if not preview:
        st.info(f"Nothing to change in {plain_text(study)}.", icon=":material/info:")
        return
    apply = partial(_apply, study, source, settings)
    typed = data.decode() if form == "training" else None  # the YAML, as it will be saved
    ask_confirmation(form, study, preview, apply, text=typed)


def _apply(study: str, source: str, settings: dict[str, Any]) -> str:
    study_settings.apply_settings(engine(), actor_id(), study, source, settings)
    return f"Settings of {plain_text(study)} saved (from {plain_text(source)})."
