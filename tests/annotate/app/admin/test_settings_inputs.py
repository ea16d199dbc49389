"""The Studies page's inputs for settings its laid-out forms do not draw (issue 35, item 4): a
setting added to the settings model is on the page, with its label and help, without another
edit; what is typed comes back as the setting's value (a JSON box that is not JSON: located)."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from annotate.app.admin.settings_inputs import other_settings
from annotate.domain.study.settings_model import EDITABLE


def _page() -> None:  # run by AppTest as the page's script
    from typing import Annotated, Any

    import streamlit as st

    from annotate.app.admin.settings_inputs import other_inputs
    from annotate.domain.study.settings_model import EDITABLE, Setting, Settings

    class Extended(Settings):
        external_pilot: Annotated[
            dict[str, Any] | None, Setting("plan", "External pilot", "The pilot.", plan="pilot")
        ] = None
        pilot_pairs: Annotated[int | None, Setting("plan", "Pilot pairs", "Pairs in it.")] = None
        pilot_blind: Annotated[bool, Setting("plan", "Blind pilot", "Blind or not.")] = False

    class Row:  # a study row without the new columns: each input starts at the default
        pass

    st.session_state["values"] = other_inputs(Row(), "s", drawn=EDITABLE, model=Extended)


def test_a_setting_added_to_the_model_has_an_input_with_its_label_and_help() -> None:
    at = AppTest.from_function(_page).run()
    assert not at.exception
    (box,) = at.text_area
    assert box.label == "External pilot (JSON)"
    assert box.help == "The pilot."
    assert at.number_input(key="s_pilot_pairs").label == "Pilot pairs"
    assert at.toggle(key="s_pilot_blind").help == "Blind or not."
    assert at.session_state["values"] == {
        "external_pilot": None,
        "pilot_pairs": None,
        "pilot_blind": False,
    }
    box.input('{"pairs": 40}')
    at.number_input(key="s_pilot_pairs").set_value(40)
    at.toggle(key="s_pilot_blind").set_value(True).run()
    assert at.session_state["values"] == {
        "external_pilot": {"pairs": 40},
        "pilot_pairs": 40,
        "pilot_blind": True,
    }
    at.text_area[0].input("{pairs").run()
    assert at.session_state["values"]["external_pilot"].startswith("External pilot, line 1")


def test_the_forms_of_the_studies_page_leave_out_only_what_they_do_not_lay_out() -> None:
    assert other_settings(EDITABLE) == ()
    assert other_settings([n for n in EDITABLE if n != "retention_days"]) == ("retention_days",)
