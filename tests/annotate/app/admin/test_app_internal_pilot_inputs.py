"""The Studies page's internal pilot inputs (issue 33 item 4), in real Streamlit (AppTest): a
study's pre-registered internal pilot shown, 0 first-stage pairs meaning none, and the values
typed handed to the service as the setting's mapping."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest


def _page() -> None:
    import streamlit as st

    from annotate.app.admin.study_plan import internal_pilot_inputs
    from annotate.db.tables import Study

    internal = st.session_state.get("given")
    study = Study(name="s", seed=1, internal_pilot=internal)
    st.session_state["answer"] = internal_pilot_inputs(study, "k")


def test_the_inputs_show_the_setting_and_give_it_back() -> None:
    at = AppTest.from_function(_page)
    at.session_state["given"] = {"first_stage_pairs": 40, "tie_alpha": 0.03}
    at.run()
    assert not at.exception
    first = at.number_input(key="k_first_stage")
    tie = at.number_input(key="k_tie_alpha")
    assert (first.value, tie.value) == (40, 0.03)
    assert at.session_state["answer"] == {"first_stage_pairs": 40, "tie_alpha": 0.03}
    first.set_value(0).run()
    assert at.session_state["answer"] is None  # 0 pairs: no internal pilot


def test_a_study_without_one_offers_the_default_tie_alpha() -> None:
    at = AppTest.from_function(_page)
    at.run()
    assert not at.exception
    assert at.session_state["answer"] is None
    assert at.number_input(key="k_tie_alpha").value == 0.04
    at.number_input(key="k_first_stage").set_value(24).run()
    assert at.session_state["answer"] == {"first_stage_pairs": 24, "tie_alpha": 0.04}
